// Package sdkstest builds a small distribution folder for tests of the package protocols: a Go module
// valuator.dev/sdk/go with one file and no dependency (so the go command can fetch it with no other proxy), an npm
// tarball with the files a published package needs, and a FAKE Python wheel and sdist of a project "valuator"
// (made here, in the test, because the Python SDK is not built on this branch: it stands for whatever wheel and
// sdist sdk/python's build writes).
package sdkstest

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"valuator/internal/sdks"
)

// Module is the Go module's path; Version the version every package carries.
const (
	Module  = "valuator.dev/sdk/go"
	Version = "1.0.0"
)

// Dist builds the folder with sdks.Build and returns it. python false leaves the Python package out.
func Dist(t testing.TB, python bool) string {
	t.Helper()
	src := t.TempDir()
	write(t, filepath.Join(src, "go", "go.mod"), []byte("module "+Module+"\n\ngo 1.24\n"))
	write(t, filepath.Join(src, "go", "valuator.go"), []byte("// Package valuator is a test module.\npackage valuator\n\n"+
		"// Version is the module's version.\nconst Version = \""+Version+"\"\n"))
	write(t, filepath.Join(src, "go", "LICENSE"), []byte("MIT License\n"))
	write(t, filepath.Join(src, "go", ".editor-swap"), []byte("not part of the module"))

	tgz := filepath.Join(src, "valuator-sdk-"+Version+".tgz")
	write(t, tgz, NPMTarball(t, `{"name":"@valuator/sdk","version":"`+Version+`","license":"MIT","main":"dist/src/index.js","types":"dist/src/index.d.ts"}`))

	var py []string
	if python {
		whl := filepath.Join(src, "valuator-"+Version+"-py3-none-any.whl")
		write(t, whl, Wheel(t, "valuator", Version))
		sdist := filepath.Join(src, "valuator-"+Version+".tar.gz")
		write(t, sdist, targz(t, map[string]string{"valuator-" + Version + "/PKG-INFO": "Metadata-Version: 2.1\nName: valuator\nVersion: " + Version + "\n"}))
		py = []string{whl, sdist}
	}
	out := filepath.Join(t.TempDir(), "dist")
	if err := sdks.Build(sdks.BuildOptions{Out: out, Version: Version, GoModule: filepath.Join(src, "go"),
		Time: time.Date(2026, 12, 7, 7, 6, 10, 0, time.UTC), NPMTarball: tgz, PythonFiles: py}); err != nil {
		t.Fatal(err)
	}
	return out
}

// Catalog is Dist loaded.
func Catalog(t testing.TB, python bool) *sdks.Catalog {
	t.Helper()
	c, err := sdks.Load(os.DirFS(Dist(t, python)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// NPMTarball is an npm tarball with this package.json and the files a published package has.
func NPMTarball(t testing.TB, packageJSON string) []byte {
	t.Helper()
	return targz(t, map[string]string{
		"package/package.json":        packageJSON,
		"package/dist/src/index.js":   "export const x = 1;\n",
		"package/dist/src/index.d.ts": "export declare const x = 1;\n",
		"package/README.md":           "# x\n",
		"package/LICENSE":             "MIT License\n",
		"package/CHANGELOG.md":        "# Changelog\n",
	})
}

// Wheel is a minimal pure-Python wheel: a module and its .dist-info (METADATA, WHEEL, RECORD).
func Wheel(t testing.TB, name, version string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	info := name + "-" + version + ".dist-info/"
	for _, f := range [][2]string{
		{name + "/__init__.py", "VERSION = \"" + version + "\"\n"},
		{info + "METADATA", "Metadata-Version: 2.1\nName: " + name + "\nVersion: " + version + "\nRequires-Dist: pytest; extra == \"test\"\n\n"},
		{info + "WHEEL", "Wheel-Version: 1.0\nGenerator: sdkstest\nRoot-Is-Purelib: true\nTag: py3-none-any\n"},
		{info + "RECORD", name + "/__init__.py,,\n" + info + "METADATA,,\n" + info + "WHEEL,,\n" + info + "RECORD,,\n"},
	} {
		w, err := zw.Create(f[0])
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write([]byte(f[1]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func targz(t testing.TB, files map[string]string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	tw := tar.NewWriter(zw)
	for name, body := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		_, _ = tw.Write([]byte(body))
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func write(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
