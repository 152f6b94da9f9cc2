package sdks_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"

	"valuator/internal/sdks"
	"valuator/internal/sdks/sdkstest"
)

func TestBuildAndLoad(t *testing.T) {
	dir := sdkstest.Dist(t, true)
	c, err := sdks.Load(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	if c.Go.Path != sdkstest.Module || c.Go.Latest() != "v1.0.0" {
		t.Errorf("Go = %s %v", c.Go.Path, c.Go.Versions)
	}
	// The zip passes the go command's own checks and holds the module's files, not a hidden one.
	zipPath := filepath.Join(dir, "go", "valuator.dev", "sdk", "go", "@v", "v1.0.0.zip")
	cf, err := modzip.CheckZip(module.Version{Path: sdkstest.Module, Version: "v1.0.0"}, zipPath)
	if err != nil || cf.Err() != nil {
		t.Fatalf("CheckZip: %v %v", err, cf.Err())
	}
	if p := "valuator.dev/sdk/go@v1.0.0/"; strings.Join(cf.Valid, ",") != p+"LICENSE,"+p+"go.mod,"+p+"valuator.go" {
		t.Errorf("zip files = %v, want LICENSE, go.mod, valuator.go", cf.Valid)
	}
	info, _ := c.Go.File("v1.0.0", ".info")
	if string(info.Data) != `{"Version":"v1.0.0","Time":"2026-12-07T07:06:10Z"}` {
		t.Errorf(".info = %s", info.Data)
	}
	if c.TypeScript.Name != "@valuator/sdk" || c.TypeScript.Version != "1.0.0" || c.TypeScript.Tarball.Name != "valuator-sdk-1.0.0.tgz" {
		t.Errorf("TypeScript = %+v", c.TypeScript)
	}
	p := c.Python
	if p == nil || p.Name != "valuator" || p.Version != "1.0.0" || len(p.Files) != 2 {
		t.Fatalf("Python = %+v", p)
	}
	if p.Dependencies {
		t.Error("a wheel whose only Requires-Dist is an extra's has no dependencies")
	}
	if len(p.Files[0].SHA256) != 64 {
		t.Errorf("sha256 %q", p.Files[0].SHA256)
	}

	if c, err := sdks.Load(os.DirFS(sdkstest.Dist(t, false))); err != nil || c.Python != nil {
		t.Errorf("without Python: %+v, %v", c, err)
	}
}

// TestEmbeddedLoads: whatever this test binary embedded (the placeholder, or the packages `make build` copied in)
// loads, or is ErrNotBuilt; never a broken folder, which would stop the server at start.
func TestEmbeddedLoads(t *testing.T) {
	if _, err := sdks.Load(sdks.Embedded()); err != nil && !errors.Is(err, sdks.ErrNotBuilt) {
		t.Fatal(err)
	}
	if _, err := sdks.Load(fstest.MapFS{".gitkeep": {}}); !errors.Is(err, sdks.ErrNotBuilt) {
		t.Errorf("an empty folder: %v, want ErrNotBuilt", err)
	}
}

func TestLoadRefusesABrokenFolder(t *testing.T) {
	good := sdkstest.NPMTarball(t, `{"name":"@valuator/sdk","version":"1.0.0","license":"MIT","main":"a.js","types":"a.d.ts"}`)
	v := "go/valuator.dev/sdk/go/@v/"
	goFiles := fstest.MapFS{v + "list": {Data: []byte("v1.0.0\n")}, v + "v1.0.0.info": {Data: []byte("{}")},
		v + "v1.0.0.mod": {Data: []byte("module valuator.dev/sdk/go\n")}, v + "v1.0.0.zip": {Data: []byte("PK")},
		"npm/valuator-sdk-1.0.0.tgz": {Data: good}}
	if _, err := sdks.Load(goFiles); err != nil {
		t.Fatalf("the good folder: %v", err)
	}
	for name, change := range map[string]func(fstest.MapFS){
		"no npm tarball":        func(m fstest.MapFS) { delete(m, "npm/valuator-sdk-1.0.0.tgz") },
		"no Go module":          func(m fstest.MapFS) { delete(m, v+"list") },
		"a version without zip": func(m fstest.MapFS) { delete(m, v+"v1.0.0.zip") },
		"not a version":         func(m fstest.MapFS) { m[v+"list"] = &fstest.MapFile{Data: []byte("1.0\n")} },
		"a tarball that is not": func(m fstest.MapFS) { m["npm/x.tgz"] = &fstest.MapFile{Data: []byte("x")} },
		"not a Python file":     func(m fstest.MapFS) { m["python/setup.py"] = &fstest.MapFile{Data: []byte("x")} },
		"two Python projects": func(m fstest.MapFS) {
			m["python/a-1.0.0.tar.gz"] = &fstest.MapFile{Data: []byte("x")}
			m["python/b-1.0.0.tar.gz"] = &fstest.MapFile{Data: []byte("x")}
		},
		"a wheel that is not a zip": func(m fstest.MapFS) {
			m["python/a-1.0.0-py3-none-any.whl"] = &fstest.MapFile{Data: []byte("x")}
		},
	} {
		m := fstest.MapFS{}
		for k, f := range goFiles {
			m[k] = f
		}
		change(m)
		if _, err := sdks.Load(m); err == nil || errors.Is(err, sdks.ErrNotBuilt) {
			t.Errorf("%s: Load = %v, want an error", name, err)
		}
	}
}

// TestBuildRefusesAPackageNotReadyToPublish: the npm tarball of issue 37 (private, UNLICENSED, no code) and versions
// other than the API's stop the build.
func TestBuildRefusesAPackageNotReadyToPublish(t *testing.T) {
	for name, pj := range map[string]string{
		"private":     `{"name":"@valuator/sdk","version":"1.0.0","license":"MIT","private":true,"main":"dist/src/index.js","types":"dist/src/index.d.ts"}`,
		"UNLICENSED":  `{"name":"@valuator/sdk","version":"1.0.0","license":"UNLICENSED","main":"dist/src/index.js","types":"dist/src/index.d.ts"}`,
		"no licence":  `{"name":"@valuator/sdk","version":"1.0.0","main":"dist/src/index.js","types":"dist/src/index.d.ts"}`,
		"no code":     `{"name":"@valuator/sdk","version":"1.0.0","license":"MIT","main":"dist/index.js","types":"dist/src/index.d.ts"}`,
		"no types":    `{"name":"@valuator/sdk","version":"1.0.0","license":"MIT","main":"dist/src/index.js"}`,
		"old version": `{"name":"@valuator/sdk","version":"0.9.0","license":"MIT","main":"dist/src/index.js","types":"dist/src/index.d.ts"}`,
	} {
		if err := sdks.CheckNPMTarball(sdkstest.NPMTarball(t, pj), "1.0.0"); err == nil {
			t.Errorf("%s: CheckNPMTarball passed", name)
		}
	}

	src := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(src, "go"), 0o755))
	must(os.WriteFile(filepath.Join(src, "go", "go.mod"), []byte("module valuator.dev/sdk/go\n"), 0o644))
	tgz := filepath.Join(src, "valuator-sdk-1.0.0.tgz")
	must(os.WriteFile(tgz, sdkstest.NPMTarball(t, `{"name":"@valuator/sdk","version":"1.0.0","license":"MIT","main":"dist/src/index.js","types":"dist/src/index.d.ts"}`), 0o644))
	whl := filepath.Join(src, "valuator-0.9.0-py3-none-any.whl")
	must(os.WriteFile(whl, sdkstest.Wheel(t, "valuator", "0.9.0"), 0o644))
	o := sdks.BuildOptions{Out: filepath.Join(src, "dist"), Version: "1.0.0", GoModule: filepath.Join(src, "go"),
		Time: time.Now(), NPMTarball: tgz}
	must(sdks.Build(o))
	o.PythonFiles = []string{whl}
	if err := sdks.Build(o); err == nil || !strings.Contains(err.Error(), "0.9.0") {
		t.Errorf("a wheel of another version: %v", err)
	}
	o.PythonFiles, o.Version = nil, "2.0.0"
	if err := sdks.Build(o); err == nil {
		t.Error("a tarball of another version than the API's was built")
	}
}

func TestParsePyFile(t *testing.T) {
	for _, tc := range []struct {
		file, name, version string
		wheel, ok           bool
	}{
		{"valuator-1.0.0-py3-none-any.whl", "valuator", "1.0.0", true, true},
		{"valuator_sdk-1.0.0-1-py3-none-any.whl", "valuator_sdk", "1.0.0", true, true},
		{"valuator-1.0.0.tar.gz", "valuator", "1.0.0", false, true},
		{"valuator-sdk-1.0.0.tar.gz", "valuator-sdk", "1.0.0", false, true},
		{"valuator-1.0.0.zip", "valuator", "1.0.0", false, true},
		{"valuator-1.0.0-py3.whl", "", "", false, false},
		{"valuator.tar.gz", "", "", false, false},
		{"../x-1.0.0.tar.gz", "", "", false, false},
		{"setup.py", "", "", false, false},
	} {
		name, version, wheel, err := sdks.ParsePyFile(tc.file)
		if (err == nil) != tc.ok || name != tc.name || version != tc.version || wheel != tc.wheel {
			t.Errorf("ParsePyFile(%q) = %q %q %v %v", tc.file, name, version, wheel, err)
		}
	}
	for in, want := range map[string]string{"Valuator": "valuator", "valuator_sdk": "valuator-sdk", "a.-_b": "a-b"} {
		if got := sdks.NormalizePyName(in); got != want {
			t.Errorf("NormalizePyName(%q) = %q, want %q", in, got, want)
		}
	}
	if sdks.ComparePyVersions("1.10.0", "1.9.2") <= 0 || sdks.ComparePyVersions("1.0.0", "1.0.0") != 0 ||
		sdks.ComparePyVersions("1.0.0", "2.0.0") >= 0 {
		t.Error("ComparePyVersions")
	}
}
