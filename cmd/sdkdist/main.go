// Command sdkdist writes the distribution folder of the client packages (`make sdk-dist`): the Go module as a
// GOPROXY tree, the npm tarball of the TypeScript SDK and, when the build made them, the Python wheel and sdist
// (internal/sdks.Build). Every package must carry the API's version, info.version of api/openapi.yaml.
//
//	go run ./cmd/sdkdist -out dist -npm /tmp/x/valuator-sdk-1.0.0.tgz [-python /tmp/x/python]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"valuator/internal/sdks"
)

func main() {
	out := flag.String("out", "dist", "the folder to write (emptied first)")
	root := flag.String("root", ".", "the repository's root")
	npm := flag.String("npm", "", "the tarball `npm pack` made of sdk/typescript")
	python := flag.String("python", "", "a folder with the Python SDK's wheel and sdist (optional)")
	flag.Parse()
	if err := run(*root, *out, *npm, *python); err != nil {
		fmt.Fprintln(os.Stderr, "sdkdist:", err)
		os.Exit(1)
	}
}

func run(root, out, npm, python string) error {
	version, err := Versions(root)
	if err != nil {
		return err
	}
	var pyFiles []string
	if python != "" {
		entries, err := os.ReadDir(python)
		if err != nil {
			return err
		}
		for _, e := range entries {
			n := e.Name()
			if !e.IsDir() && (strings.HasSuffix(n, ".whl") || strings.HasSuffix(n, ".tar.gz") || strings.HasSuffix(n, ".zip")) {
				pyFiles = append(pyFiles, filepath.Join(python, n))
			}
		}
	}
	err = sdks.Build(sdks.BuildOptions{
		Out:         out,
		Version:     version,
		GoModule:    filepath.Join(root, "sdk", "go"),
		Time:        releaseTime(root),
		NPMTarball:  npm,
		PythonFiles: pyFiles,
	})
	if err != nil {
		return err
	}
	fmt.Printf("wrote %s: the Go module v%s, the npm tarball %s, %d Python files\n", out, version, filepath.Base(npm), len(pyFiles))
	return nil
}

// Versions reads the API's version and checks that the SDKs' sources carry it: the Go SDK's Version constant and
// the TypeScript SDK's package.json (the npm tarball is checked again when it is copied; the Python files by their
// names).
func Versions(root string) (string, error) {
	spec, err := os.ReadFile(filepath.Join(root, "api", "openapi.yaml"))
	if err != nil {
		return "", err
	}
	version, err := APIVersion(spec)
	if err != nil {
		return "", err
	}
	goSrc, err := os.ReadFile(filepath.Join(root, "sdk", "go", "valuator.go"))
	if err != nil {
		return "", err
	}
	m := regexp.MustCompile(`(?m)^const Version = "([^"]*)"`).FindSubmatch(goSrc)
	if m == nil || string(m[1]) != version {
		return "", fmt.Errorf("sdk/go/valuator.go: want const Version = %q, the API's version", version)
	}
	pkg, err := os.ReadFile(filepath.Join(root, "sdk", "typescript", "package.json"))
	if err != nil {
		return "", err
	}
	m = regexp.MustCompile(`(?m)^  "version": "([^"]*)"`).FindSubmatch(pkg)
	if m == nil || string(m[1]) != version {
		return "", fmt.Errorf("sdk/typescript/package.json: want \"version\": %q, the API's version", version)
	}
	return version, nil
}

// APIVersion is info.version of the contract (read by its line: `  version: 1.0.0` under `info:`).
func APIVersion(spec []byte) (string, error) {
	inInfo := false
	for _, line := range strings.Split(string(spec), "\n") {
		switch {
		case line == "info:":
			inInfo = true
		case inInfo && strings.HasPrefix(line, "  version:"):
			v := strings.Trim(strings.TrimSpace(strings.TrimPrefix(line, "  version:")), `"'`)
			if !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(v) {
				return "", fmt.Errorf("api/openapi.yaml: info.version %q is not MAJOR.MINOR.PATCH", v)
			}
			return v, nil
		case inInfo && line != "" && !strings.HasPrefix(line, " "):
			inInfo = false
		}
	}
	return "", fmt.Errorf("api/openapi.yaml has no info.version")
}

// releaseTime is the Go version's time: SOURCE_DATE_EPOCH when set, else the last commit's, else now.
func releaseTime(root string) time.Time {
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return time.Unix(n, 0)
		}
	}
	if b, err := exec.Command("git", "-C", root, "log", "-1", "--format=%ct").Output(); err == nil {
		if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil {
			return time.Unix(n, 0)
		}
	}
	return time.Now()
}
