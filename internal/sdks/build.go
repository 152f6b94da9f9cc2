package sdks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// BuildOptions says what Build puts into a distribution folder.
type BuildOptions struct {
	// Out is the folder written; whatever it held is removed first.
	Out string
	// Version is the version every package must carry, the API's (info.version of api/openapi.yaml): 1.0.0 makes
	// the Go module's v1.0.0, the npm package's 1.0.0 and the Python package's 1.0.0.
	Version string
	// GoModule is the folder of the Go module (its go.mod names the module path).
	GoModule string
	// Time is the Go version's time in its .info file (the go command shows it; the commit's time makes a
	// rebuild of the same commit byte for byte the same).
	Time time.Time
	// NPMTarball is the file `npm pack` wrote for the TypeScript SDK.
	NPMTarball string
	// PythonFiles are the wheel and sdist of the Python SDK (none: the build has no Python package).
	PythonFiles []string
}

// Build writes the distribution folder (the layout in the package comment) and checks every package on the way:
// each carries Version, the Go module zip passes the go command's own checks, the npm tarball has its compiled
// entry point and type declarations and is neither private nor unlicensed, and the Python files are a wheel or an
// sdist of one project.
func Build(o BuildOptions) error {
	if o.Version == "" || o.Out == "" || o.GoModule == "" || o.NPMTarball == "" {
		return errors.New("sdks: Build needs Out, Version, GoModule and NPMTarball")
	}
	if err := os.RemoveAll(o.Out); err != nil {
		return err
	}
	if err := buildGo(o); err != nil {
		return err
	}
	if err := copyNPM(o); err != nil {
		return err
	}
	if err := copyPython(o); err != nil {
		return err
	}
	// What the server will read must load.
	_, err := Load(os.DirFS(o.Out))
	return err
}

func buildGo(o BuildOptions) error {
	gomod, err := os.ReadFile(filepath.Join(o.GoModule, "go.mod"))
	if err != nil {
		return fmt.Errorf("sdks: the Go module: %w", err)
	}
	modPath := modfile.ModulePath(gomod)
	version := "v" + o.Version
	if err := module.Check(modPath, version); err != nil {
		return fmt.Errorf("sdks: the Go module: %w", err)
	}
	files, err := goModuleFiles(o.GoModule)
	if err != nil {
		return err
	}
	var zipBuf bytes.Buffer
	mv := module.Version{Path: modPath, Version: version}
	if err := modzip.Create(&zipBuf, mv, files); err != nil {
		return fmt.Errorf("sdks: the Go module zip: %w", err)
	}
	esc, err := module.EscapePath(modPath)
	if err != nil {
		return err
	}
	escV, err := module.EscapeVersion(version)
	if err != nil {
		return err
	}
	dir := filepath.Join(o.Out, GoDir, filepath.FromSlash(esc), "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, o.Time.UTC().Truncate(time.Second)})
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{
		"list":         []byte(version + "\n"),
		escV + ".info": info,
		escV + ".mod":  gomod,
		escV + ".zip":  zipBuf.Bytes(),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// goModuleFiles are the module's source files: every regular file but hidden ones (an editor's, a local tool's).
func goModuleFiles(root string) ([]modzip.File, error) {
	var files []modzip.File
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != root && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		files = append(files, diskFile{path: filepath.ToSlash(rel), file: p, info: info})
		return nil
	})
	return files, err
}

type diskFile struct {
	path, file string
	info       os.FileInfo
}

func (f diskFile) Path() string                 { return f.path }
func (f diskFile) Lstat() (os.FileInfo, error)  { return f.info, nil }
func (f diskFile) Open() (io.ReadCloser, error) { return os.Open(f.file) }

func copyNPM(o BuildOptions) error {
	data, err := os.ReadFile(o.NPMTarball)
	if err != nil {
		return fmt.Errorf("sdks: the npm tarball: %w", err)
	}
	if err := CheckNPMTarball(data, o.Version); err != nil {
		return fmt.Errorf("sdks: %s: %w", filepath.Base(o.NPMTarball), err)
	}
	dir := filepath.Join(o.Out, NPMDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, filepath.Base(o.NPMTarball)), data, 0o644)
}

// CheckNPMTarball checks that an npm tarball is ready to publish: version, licence, not private, and its main
// entry point and type declarations inside (`npm pack` of a clone without a build shipped no code: issue 37).
func CheckNPMTarball(tgz []byte, version string) error {
	data, err := npmFile(tgz, "package/package.json")
	if err != nil {
		return err
	}
	var pj struct {
		Version, License, Main, Types string
		Private                       bool
	}
	if err := json.Unmarshal(data, &pj); err != nil {
		return fmt.Errorf("package.json: %w", err)
	}
	switch {
	case pj.Version != version:
		return fmt.Errorf("version %q, want the API's %q", pj.Version, version)
	case pj.Private:
		return errors.New(`package.json says "private": true`)
	case pj.License == "" || pj.License == "UNLICENSED":
		return fmt.Errorf("package.json's license is %q", pj.License)
	case pj.Main == "" || pj.Types == "":
		return errors.New("package.json names no main or no types")
	}
	names, err := NPMFiles(tgz)
	if err != nil {
		return err
	}
	for _, want := range []string{pj.Main, pj.Types, "LICENSE", "README.md", "CHANGELOG.md"} {
		if !slices.Contains(names, path.Clean(want)) {
			return fmt.Errorf("the tarball has no %s (it has %s)", want, strings.Join(names, ", "))
		}
	}
	return nil
}

func copyPython(o BuildOptions) error {
	if len(o.PythonFiles) == 0 {
		return nil
	}
	dir := filepath.Join(o.Out, PythonDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range o.PythonFiles {
		name := filepath.Base(f)
		_, version, _, err := ParsePyFile(name)
		if err != nil {
			return fmt.Errorf("sdks: the Python package: %w", err)
		}
		if version != o.Version {
			return fmt.Errorf("sdks: %s has version %s, want the API's %s", name, version, o.Version)
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
