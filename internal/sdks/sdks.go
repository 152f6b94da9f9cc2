// Package sdks holds the client packages (SDKs) this binary hands out, so that an installation serves its own
// clients without any public registry: the Go module (answered by the server in the GOPROXY protocol), the npm
// tarball of the TypeScript SDK and the Python wheel and sdist (a PEP 503 simple index).
//
// `make sdk-dist` builds them into dist/ (cmd/sdkdist, Build) and `make build` copies that folder into this
// package's dist/, which is embedded (Embedded). A plain `go build` embeds only the committed placeholder: Load
// then answers ErrNotBuilt and the server answers GET /api/sdks with 503 (docs/architecture.md, "The clients the
// server hosts").
//
// The layout, in dist/ and in the embedded folder:
//
//	go/<escaped module path>/@v/list, <version>.info, <version>.mod, <version>.zip   (a GOPROXY tree)
//	npm/<name>-<version>.tgz                                                          (npm pack)
//	python/<name>-<version>-<tags>.whl, <name>-<version>.tar.gz                       (optional)
package sdks

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
)

// ErrNotBuilt is Load's answer for a folder without packages: a binary built by plain `go build`.
var ErrNotBuilt = errors.New("the client packages are not built into this binary (make build builds them)")

// The folders of the layout.
const (
	GoDir     = "go"
	NPMDir    = "npm"
	PythonDir = "python"
)

// File is one file handed out, read whole into memory (the packages are tens of kilobytes).
type File struct {
	Name   string
	Data   []byte
	SHA256 string // hex
}

// NewFile is a File of data, with its checksum.
func NewFile(name string, data []byte) File {
	sum := sha256.Sum256(data)
	return File{Name: name, Data: data, SHA256: hex.EncodeToString(sum[:])}
}

// Catalog is every client package of a build.
type Catalog struct {
	Go         *GoModule
	TypeScript *NPMPackage
	// Python is nil when the build had no Python package (sdk/python absent or not built).
	Python *PyProject
}

// GoModule is one module's versions as a module proxy serves them.
type GoModule struct {
	Path     string   // e.g. valuator.dev/sdk/go
	Versions []string // canonical semantic versions, oldest first
	files    map[string]File
}

// Latest is the highest version.
func (m *GoModule) Latest() string { return m.Versions[len(m.Versions)-1] }

// File returns the .info, .mod or .zip file of a version (ext with its dot); false for any other.
func (m *GoModule) File(version, ext string) (File, bool) {
	f, ok := m.files[version+ext]
	return f, ok
}

// NPMPackage is the TypeScript SDK's npm tarball (the highest version when the folder holds several).
type NPMPackage struct {
	Name, Version string
	Tarball       File
	files         map[string]File
}

// File returns a tarball by its file name.
func (p *NPMPackage) File(name string) (File, bool) {
	f, ok := p.files[name]
	return f, ok
}

// PyProject is a Python project's distribution files (wheels and sdists), as a PEP 503 index lists them.
type PyProject struct {
	Name    string // normalized (PEP 503): lowercase, runs of - _ . as one -
	Version string // the highest version
	Files   []File // sorted by name
	// Dependencies says the highest version's wheel requires other distributions (Requires-Dist), which an
	// installer must then find on another index; true when no wheel tells.
	Dependencies bool
	byName       map[string]File
}

// File returns a distribution file by its name.
func (p *PyProject) File(name string) (File, bool) {
	f, ok := p.byName[name]
	return f, ok
}

// Load reads the packages of a build from fsys (the layout above). A folder with none of them is ErrNotBuilt;
// one with some must hold the Go module and the npm tarball, and every file must be what its name says.
func Load(fsys fs.FS) (*Catalog, error) {
	exists := func(dir string) bool {
		st, err := fs.Stat(fsys, dir)
		return err == nil && st.IsDir()
	}
	if !exists(GoDir) && !exists(NPMDir) && !exists(PythonDir) {
		return nil, ErrNotBuilt
	}
	var c Catalog
	var err error
	if c.Go, err = loadGo(fsys); err != nil {
		return nil, err
	}
	if c.TypeScript, err = loadNPM(fsys); err != nil {
		return nil, err
	}
	if exists(PythonDir) {
		if c.Python, err = loadPython(fsys); err != nil {
			return nil, err
		}
	}
	return &c, nil
}

func loadGo(fsys fs.FS) (*GoModule, error) {
	var found []string
	err := fs.WalkDir(fsys, GoDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "@v" {
			found = append(found, p)
			return fs.SkipDir
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sdks: the Go module: %w", err)
	}
	if len(found) != 1 {
		return nil, fmt.Errorf("sdks: want one Go module under %s/, found %d", GoDir, len(found))
	}
	dir := found[0]
	escaped := strings.TrimSuffix(strings.TrimPrefix(dir, GoDir+"/"), "/@v")
	modPath, err := module.UnescapePath(escaped)
	if err != nil {
		return nil, fmt.Errorf("sdks: the Go module's folder %s: %w", escaped, err)
	}
	list, err := fs.ReadFile(fsys, dir+"/list")
	if err != nil {
		return nil, fmt.Errorf("sdks: the Go module's version list: %w", err)
	}
	m := &GoModule{Path: modPath, files: map[string]File{}}
	for _, v := range strings.Fields(string(list)) {
		if err := module.Check(modPath, v); err != nil || semver.Canonical(v) != v {
			return nil, fmt.Errorf("sdks: the Go module's list names %q, not a canonical version of %s", v, modPath)
		}
		for _, ext := range []string{".info", ".mod", ".zip"} {
			ev, _ := module.EscapeVersion(v)
			data, err := fs.ReadFile(fsys, dir+"/"+ev+ext)
			if err != nil {
				return nil, fmt.Errorf("sdks: the Go module %s@%s: %w", modPath, v, err)
			}
			m.files[v+ext] = NewFile(path.Base(modPath)+"@"+v+ext, data)
		}
		m.Versions = append(m.Versions, v)
	}
	if len(m.Versions) == 0 {
		return nil, fmt.Errorf("sdks: the Go module %s has no version", modPath)
	}
	semver.Sort(m.Versions)
	return m, nil
}

func loadNPM(fsys fs.FS) (*NPMPackage, error) {
	entries, err := fs.ReadDir(fsys, NPMDir)
	if err != nil {
		return nil, fmt.Errorf("sdks: the npm tarball: %w", err)
	}
	var best *NPMPackage
	files := map[string]File{}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".tgz") {
			continue
		}
		data, err := fs.ReadFile(fsys, NPMDir+"/"+e.Name())
		if err != nil {
			return nil, err
		}
		name, version, err := NPMManifest(data)
		if err != nil {
			return nil, fmt.Errorf("sdks: %s: %w", e.Name(), err)
		}
		f := NewFile(e.Name(), data)
		files[e.Name()] = f
		if best == nil || semver.Compare("v"+version, "v"+best.Version) > 0 {
			best = &NPMPackage{Name: name, Version: version, Tarball: f}
		}
	}
	if best == nil {
		return nil, fmt.Errorf("sdks: no npm tarball (.tgz) in %s/", NPMDir)
	}
	best.files = files
	return best, nil
}

// NPMManifest reads the name and version from an npm tarball's package/package.json.
func NPMManifest(tgz []byte) (name, version string, err error) {
	data, err := npmFile(tgz, "package/package.json")
	if err != nil {
		return "", "", err
	}
	var pj struct{ Name, Version string }
	if err := json.Unmarshal(data, &pj); err != nil {
		return "", "", fmt.Errorf("package.json: %w", err)
	}
	if pj.Name == "" || !semver.IsValid("v"+pj.Version) {
		return "", "", fmt.Errorf("package.json has no name or no semantic version (%q %q)", pj.Name, pj.Version)
	}
	return pj.Name, pj.Version, nil
}

// NPMFiles lists the files of an npm tarball, without the package/ prefix.
func NPMFiles(tgz []byte) ([]string, error) {
	var names []string
	err := walkTgz(tgz, func(h *tar.Header, _ io.Reader) (bool, error) {
		if h.Typeflag == tar.TypeReg {
			names = append(names, strings.TrimPrefix(h.Name, "package/"))
		}
		return false, nil
	})
	return names, err
}

func npmFile(tgz []byte, name string) ([]byte, error) {
	var out []byte
	err := walkTgz(tgz, func(h *tar.Header, r io.Reader) (bool, error) {
		if h.Name != name {
			return false, nil
		}
		b, err := io.ReadAll(io.LimitReader(r, 1<<20))
		out = b
		return true, err
	})
	if err == nil && out == nil {
		err = fmt.Errorf("no %s in the tarball", name)
	}
	return out, err
}

func walkTgz(tgz []byte, fn func(*tar.Header, io.Reader) (stop bool, err error)) error {
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return fmt.Errorf("not a gzip file: %w", err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("not a tar file: %w", err)
		}
		if stop, err := fn(h, tr); stop || err != nil {
			return err
		}
	}
}

var pyNameRun = regexp.MustCompile(`[-_.]+`)

// NormalizePyName is PEP 503's normalized form of a project name.
func NormalizePyName(name string) string {
	return strings.ToLower(pyNameRun.ReplaceAllString(name, "-"))
}

// validPyName is PEP 508's project name (ASCII letters and digits, with . _ - inside).
var validPyName = regexp.MustCompile(`^(?i)[a-z0-9]([a-z0-9._-]*[a-z0-9])?$`)

// ParsePyFile reads the project name and version from a distribution file's name: a wheel
// ({name}-{version}(-{build})?-{python}-{abi}-{platform}.whl) or an sdist ({name}-{version}.tar.gz or .zip).
func ParsePyFile(file string) (name, version string, wheel bool, err error) {
	var stem string
	switch {
	case strings.HasSuffix(file, ".whl"):
		parts := strings.Split(strings.TrimSuffix(file, ".whl"), "-")
		if len(parts) != 5 && len(parts) != 6 {
			return "", "", false, fmt.Errorf("%q is not a wheel's file name", file)
		}
		name, version, wheel = parts[0], parts[1], true
	case strings.HasSuffix(file, ".tar.gz"):
		stem = strings.TrimSuffix(file, ".tar.gz")
	case strings.HasSuffix(file, ".zip"):
		stem = strings.TrimSuffix(file, ".zip")
	default:
		return "", "", false, fmt.Errorf("%q is neither a wheel nor an sdist", file)
	}
	if !wheel {
		i := strings.LastIndex(stem, "-")
		if i <= 0 {
			return "", "", false, fmt.Errorf("%q is not an sdist's file name", file)
		}
		name, version = stem[:i], stem[i+1:]
	}
	if !validPyName.MatchString(name) || version == "" || strings.ContainsAny(version, "/\\ ") {
		return "", "", false, fmt.Errorf("%q does not name a project and version", file)
	}
	return name, version, wheel, nil
}

func loadPython(fsys fs.FS) (*PyProject, error) {
	entries, err := fs.ReadDir(fsys, PythonDir)
	if err != nil {
		return nil, fmt.Errorf("sdks: the Python package: %w", err)
	}
	var p *PyProject
	wheels := map[string][]byte{} // version -> a wheel of it
	for _, e := range entries {
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		name, version, wheel, err := ParsePyFile(e.Name())
		if err != nil {
			return nil, fmt.Errorf("sdks: %s/: %w", PythonDir, err)
		}
		data, err := fs.ReadFile(fsys, PythonDir+"/"+e.Name())
		if err != nil {
			return nil, err
		}
		norm := NormalizePyName(name)
		if p == nil {
			p = &PyProject{Name: norm, Version: version, byName: map[string]File{}}
		} else if p.Name != norm {
			return nil, fmt.Errorf("sdks: %s/ holds two projects, %s and %s", PythonDir, p.Name, norm)
		}
		if ComparePyVersions(version, p.Version) > 0 {
			p.Version = version
		}
		f := NewFile(e.Name(), data)
		p.Files = append(p.Files, f)
		p.byName[f.Name] = f
		if wheel {
			wheels[version] = data
		}
	}
	if p == nil {
		return nil, nil
	}
	sort.Slice(p.Files, func(i, j int) bool { return p.Files[i].Name < p.Files[j].Name })
	p.Dependencies = true
	if w, ok := wheels[p.Version]; ok {
		deps, err := wheelRequires(w)
		if err != nil {
			return nil, fmt.Errorf("sdks: the %s %s wheel: %w", p.Name, p.Version, err)
		}
		p.Dependencies = deps
	}
	return p, nil
}

// wheelRequires reports whether a wheel's METADATA names a dependency that is not an extra's.
func wheelRequires(whl []byte) (bool, error) {
	zr, err := zip.NewReader(bytes.NewReader(whl), int64(len(whl)))
	if err != nil {
		return false, fmt.Errorf("not a zip file: %w", err)
	}
	for _, f := range zr.File {
		dir, base := path.Split(f.Name)
		if base != "METADATA" || !strings.HasSuffix(strings.TrimSuffix(dir, "/"), ".dist-info") || strings.Count(dir, "/") != 1 {
			continue
		}
		r, err := f.Open()
		if err != nil {
			return false, err
		}
		defer r.Close()
		sc := bufio.NewScanner(io.LimitReader(r, 1<<20))
		for sc.Scan() {
			line := sc.Text()
			if line == "" {
				break // the headers end; the description follows
			}
			if v, ok := strings.CutPrefix(line, "Requires-Dist:"); ok && !strings.Contains(v, "extra ==") {
				return true, nil
			}
		}
		return false, sc.Err()
	}
	return false, errors.New("no .dist-info/METADATA")
}

// ComparePyVersions orders two versions by their dot-separated numeric release parts (1.10.0 after 1.9.2), the
// rest as text; enough to pick the highest of a build's few files.
func ComparePyVersions(a, b string) int {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) || i < len(pb); i++ {
		var x, y string
		if i < len(pa) {
			x = pa[i]
		}
		if i < len(pb) {
			y = pb[i]
		}
		nx, ex := strconv.Atoi(x)
		ny, ey := strconv.Atoi(y)
		switch {
		case ex == nil && ey == nil && nx != ny:
			if nx < ny {
				return -1
			}
			return 1
		case (ex != nil || ey != nil) && x != y:
			return strings.Compare(x, y)
		}
	}
	return 0
}
