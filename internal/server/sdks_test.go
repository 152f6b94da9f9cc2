package server

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"valuator/internal/config"
	"valuator/internal/contract"
	"valuator/internal/ratelimit"
	"valuator/internal/sdks"
	"valuator/internal/sdks/sdkstest"
)

// sdkServer is a server with the client packages cat (nil: a binary built without them). baseURL "" leaves
// VALUATOR_BASE_URL unset.
func sdkServer(t *testing.T, cat *sdks.Catalog, baseURL string) *httptest.Server {
	t.Helper()
	env := map[string]string{"VALUATOR_DATA_DIR": t.TempDir(), "VALUATOR_BASE_URL": baseURL}
	cfg, err := config.Load(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	h := New(Deps{Config: cfg, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), OpenAPI: []byte("{}"),
		FormLimiter: ratelimit.NewMemory(nil), APILimiter: ratelimit.NewMemory(nil), SDKs: cat})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

type sdkResp struct {
	status int
	header http.Header
	body   []byte
}

// sdkGet sends GET (or HEAD) without following redirects, and checks /api/ answers against the contract.
func sdkGet(t *testing.T, srv *httptest.Server, method, path string, header ...string) sdkResp {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
		} else {
			req.Header.Set(header[i], header[i+1])
		}
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	out := sdkResp{res.StatusCode, res.Header, body}
	if strings.HasPrefix(path, "/api/") {
		c := loadContract(t)
		in, err := c.Operation(req.Clone(context.Background()))
		if err != nil {
			t.Fatalf("%s is not in the contract: %v", path, err)
		}
		if err := contract.CheckResponse(context.Background(), in, out.status, out.header, out.body); err != nil {
			t.Errorf("response %d to %s does not match the contract: %v\n%s", out.status, path, err, body)
		}
	}
	return out
}

// TestSDKsNotBuilt: a binary built without the packages (plain go build) says so on GET /api/sdks (503
// sdks_not_built) and answers every protocol path 404, which is what the go command and pip take as "not here".
func TestSDKsNotBuilt(t *testing.T) {
	srv := sdkServer(t, nil, "")
	r := sdkGet(t, srv, "GET", "/api/sdks")
	if r.status != http.StatusServiceUnavailable || !bytes.Contains(r.body, []byte(`"code":"sdks_not_built"`)) {
		t.Errorf("GET /api/sdks = %d %s, want 503 sdks_not_built", r.status, r.body)
	}
	for _, p := range []string{"/goproxy/valuator.dev/sdk/go/@v/list", "/goproxy/valuator.dev/sdk/go/@latest",
		"/sdk/npm/valuator-sdk-1.0.0.tgz", "/pypi/simple/valuator/", "/pypi/files/valuator-1.0.0.tar.gz", "/sdk/go?go-get=1"} {
		if r := sdkGet(t, srv, "GET", p); r.status != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", p, r.status)
		}
	}
	if r := sdkGet(t, srv, "GET", "/pypi/simple/"); r.status != http.StatusOK || bytes.Contains(r.body, []byte("<a ")) {
		t.Errorf("the empty index = %d %s", r.status, r.body)
	}
}

// TestSDKCatalog: GET /api/sdks names each package, its version and absolute URLs on VALUATOR_BASE_URL, or on the
// request's host when it is not set, and the line that installs it.
func TestSDKCatalog(t *testing.T) {
	cat := sdkstest.Catalog(t, true)
	var got sdkInfo
	srv := sdkServer(t, cat, "https://valuator.example.com/")
	r := sdkGet(t, srv, "GET", "/api/sdks")
	if r.status != http.StatusOK {
		t.Fatalf("GET /api/sdks = %d %s", r.status, r.body)
	}
	if err := json.Unmarshal(r.body, &got); err != nil {
		t.Fatal(err)
	}
	want := `{"go":{"module":"valuator.dev/sdk/go","version":"v1.0.0","goproxy":"https://valuator.example.com/goproxy",` +
		`"install":"GOPROXY=https://valuator.example.com/goproxy,https://proxy.golang.org GONOSUMDB=valuator.dev/sdk/go go get valuator.dev/sdk/go@v1.0.0"},` +
		`"typescript":{"package":"@valuator/sdk","version":"1.0.0","tarball":"https://valuator.example.com/sdk/npm/valuator-sdk-1.0.0.tgz",` +
		`"install":"npm install https://valuator.example.com/sdk/npm/valuator-sdk-1.0.0.tgz"},` +
		`"python":{"package":"valuator","version":"1.0.0","index":"https://valuator.example.com/pypi/simple/valuator/",` +
		`"install":"pip install --index-url https://valuator.example.com/pypi/simple/ valuator==1.0.0"}}`
	if strings.TrimSpace(string(r.body)) != want {
		t.Errorf("GET /api/sdks =\n%s\nwant\n%s", r.body, want)
	}

	// Without VALUATOR_BASE_URL: the address the request came to. A plain-HTTP index on another host than the
	// loopback needs pip's --trusted-host.
	srv = sdkServer(t, cat, "")
	r = sdkGet(t, srv, "GET", "/api/sdks", "Host", "valuator.lan:8080")
	if !bytes.Contains(r.body, []byte(`"goproxy":"http://valuator.lan:8080/goproxy"`)) ||
		!bytes.Contains(r.body, []byte(`--trusted-host valuator.lan:8080 valuator==1.0.0`)) {
		t.Errorf("on the request's host: %s", r.body)
	}
	r = sdkGet(t, srv, "GET", "/api/sdks")
	if !bytes.Contains(r.body, []byte(`"tarball":"`+srv.URL+`/sdk/npm/`)) || bytes.Contains(r.body, []byte("trusted-host")) {
		t.Errorf("on the loopback: %s", r.body)
	}

	// A build without the Python package: python is null.
	r = sdkGet(t, sdkServer(t, sdkstest.Catalog(t, false), ""), "GET", "/api/sdks")
	if !bytes.Contains(r.body, []byte(`"python":null`)) {
		t.Errorf("without Python: %s", r.body)
	}
}

// TestGoProxyProtocol: the GOPROXY protocol's paths for the module, and 404 (never 500, never a file outside the
// packages) for every other path: other modules, unknown or malformed versions, wrong case escapes, the checksum
// database's paths (so that the go command asks the next proxy), traversal.
func TestGoProxyProtocol(t *testing.T) {
	cat := sdkstest.Catalog(t, false)
	srv := sdkServer(t, cat, "")
	const m = "/goproxy/valuator.dev/sdk/go"
	zipFile, _ := cat.Go.File("v1.0.0", ".zip")
	modFile, _ := cat.Go.File("v1.0.0", ".mod")
	for _, tc := range []struct {
		path, ctype, body string
	}{
		{m + "/@v/list", "text/plain; charset=utf-8", "v1.0.0\n"},
		{m + "/@v/v1.0.0.info", "application/json", `{"Version":"v1.0.0","Time":"2026-12-07T07:06:10Z"}`},
		{m + "/@latest", "application/json", `{"Version":"v1.0.0","Time":"2026-12-07T07:06:10Z"}`},
		{m + "/@v/v1.0.0.mod", "text/plain; charset=utf-8", string(modFile.Data)},
		{m + "/@v/v1.0.0.zip", "application/zip", string(zipFile.Data)},
	} {
		r := sdkGet(t, srv, "GET", tc.path)
		if r.status != http.StatusOK || r.header.Get("Content-Type") != tc.ctype || string(r.body) != tc.body {
			t.Errorf("GET %s = %d %s %.80q", tc.path, r.status, r.header.Get("Content-Type"), r.body)
		}
	}
	zr, err := zip.NewReader(bytes.NewReader(zipFile.Data), int64(len(zipFile.Data)))
	if err != nil || len(zr.File) == 0 || !strings.HasPrefix(zr.File[0].Name, "valuator.dev/sdk/go@v1.0.0/") {
		t.Errorf("the module zip: %v", err)
	}

	// HEAD and a conditional GET of a version's file.
	r := sdkGet(t, srv, "HEAD", m+"/@v/v1.0.0.zip")
	if r.status != http.StatusOK || len(r.body) != 0 || r.header.Get("ETag") != `"`+zipFile.SHA256+`"` {
		t.Errorf("HEAD = %d %v", r.status, r.header)
	}
	if r := sdkGet(t, srv, "GET", m+"/@v/v1.0.0.zip", "If-None-Match", `"`+zipFile.SHA256+`"`); r.status != http.StatusNotModified {
		t.Errorf("If-None-Match = %d, want 304", r.status)
	}

	for _, p := range []string{
		m + "/@v/v9.9.9.info", m + "/@v/v9.9.9.zip", m + "/@v/v1.0.0", m + "/@v/v1.0.0.tar", m + "/@v/1.0.0.zip",
		m + "/@v/v1.0.0-rc.1.mod", m + "/@v/!v1.0.0.mod", m + "/@v/", m + "/@v/list/x", m, m + "/",
		"/goproxy/valuator.dev/sdk/!go/@v/list", "/goproxy/valuator.dev/sdk/Go/@v/list",
		"/goproxy/github.com/oapi-codegen/runtime/@v/list", "/goproxy/valuator.dev/@v/list",
		"/goproxy/sumdb/sum.golang.org/supported", "/goproxy/sumdb/sum.golang.org/lookup/valuator.dev/sdk/go@v1.0.0",
		"/goproxy/%2e%2e/%2e%2e/etc/passwd", "/goproxy/valuator.dev/sdk/go/@v/..%2f..%2f..%2fgo.mod",
		"/goproxy/valuator.dev/sdk/go/@v/%00.zip", "/goproxy/",
	} {
		r := sdkGet(t, srv, "GET", p)
		if r.status == http.StatusMovedPermanently || r.status == http.StatusTemporaryRedirect {
			// The mux cleans .. out of a path by a redirect; the clean path is then answered like any other.
			r = sdkGet(t, srv, "GET", r.header.Get("Location"))
		}
		if r.status != http.StatusNotFound {
			t.Errorf("GET %s = %d %.100s, want 404", p, r.status, r.body)
		}
		if bytes.Contains(r.body, []byte("root:")) || bytes.HasPrefix(r.body, []byte("module ")) {
			t.Errorf("GET %s answered a file: %.100s", p, r.body)
		}
	}
}

// TestGoImportPage: the module path's go-get page names this server's module proxy in its go-import meta tag, for the
// module and its packages.
func TestGoImportPage(t *testing.T) {
	srv := sdkServer(t, sdkstest.Catalog(t, false), "https://valuator.example.com")
	for _, p := range []string{"/sdk/go?go-get=1", "/sdk/go/api?go-get=1", "/sdk/go"} {
		r := sdkGet(t, srv, "GET", p)
		want := `<meta name="go-import" content="valuator.dev/sdk/go mod https://valuator.example.com/goproxy">`
		if r.status != http.StatusOK || !bytes.Contains(r.body, []byte(want)) {
			t.Errorf("GET %s = %d %s", p, r.status, r.body)
		}
	}
}

// TestNPMTarball: the tarball /api/sdks names is served as it was built; any other name is a 404.
func TestNPMTarball(t *testing.T) {
	cat := sdkstest.Catalog(t, false)
	srv := sdkServer(t, cat, "")
	r := sdkGet(t, srv, "GET", "/sdk/npm/valuator-sdk-1.0.0.tgz")
	if r.status != http.StatusOK || !bytes.Equal(r.body, cat.TypeScript.Tarball.Data) {
		t.Errorf("the tarball = %d (%d bytes)", r.status, len(r.body))
	}
	for _, p := range []string{"/sdk/npm/valuator-sdk-9.9.9.tgz", "/sdk/npm/", "/sdk/npm/..%2f..%2fgo.mod",
		"/sdk/npm/%2e%2e", "/sdk/other", "/sdk/npm/valuator-sdk-1.0.0.tgz/x"} {
		if r := sdkGet(t, srv, "GET", p); r.status != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", p, r.status)
		}
	}
}

// TestPythonSimpleIndex: PEP 503 over the wheel and sdist in the build (a fake pair made by the test: the Python SDK
// is not built on this branch). The root lists the project; its page links each file with #sha256=; a name not in
// normalized form and a URL without its slash are redirected; anything else is a 404.
func TestPythonSimpleIndex(t *testing.T) {
	cat := sdkstest.Catalog(t, true)
	srv := sdkServer(t, cat, "")
	r := sdkGet(t, srv, "GET", "/pypi/simple/")
	if r.status != http.StatusOK || !bytes.Contains(r.body, []byte(`<a href="`+srv.URL+`/pypi/simple/valuator/">valuator</a>`)) ||
		!bytes.Contains(r.body, []byte(`<meta name="pypi:repository-version" content="1.0">`)) {
		t.Errorf("the root = %d %s", r.status, r.body)
	}
	r = sdkGet(t, srv, "GET", "/pypi/simple/valuator/")
	links := regexp.MustCompile(`<a href="([^"#]+)#sha256=([0-9a-f]{64})">([^<]+)</a>`).FindAllSubmatch(r.body, -1)
	if r.status != http.StatusOK || len(links) != 2 {
		t.Fatalf("the project page = %d %s", r.status, r.body)
	}
	for _, l := range links {
		f, ok := cat.Python.File(string(l[3]))
		if !ok || string(l[2]) != f.SHA256 || string(l[1]) != srv.URL+"/pypi/files/"+f.Name {
			t.Errorf("link %s", l[0])
		}
		got := sdkGet(t, srv, "GET", strings.TrimPrefix(string(l[1]), srv.URL))
		if got.status != http.StatusOK || !bytes.Equal(got.body, f.Data) {
			t.Errorf("GET %s = %d", l[1], got.status)
		}
	}
	for p, to := range map[string]string{"/pypi/simple/Valuator/": "/pypi/simple/valuator/",
		"/pypi/simple/valuator": "/pypi/simple/valuator/", "/pypi/simple/VALUATOR": "/pypi/simple/valuator/"} {
		if r := sdkGet(t, srv, "GET", p); r.status != http.StatusMovedPermanently || r.header.Get("Location") != to {
			t.Errorf("GET %s = %d to %q, want 301 to %s", p, r.status, r.header.Get("Location"), to)
		}
	}
	for _, p := range []string{"/pypi/simple/requests/", "/pypi/simple/requests", "/pypi/files/valuator-9.9.9.tar.gz",
		"/pypi/files/", "/pypi/files/..%2f..%2fgo.mod", "/pypi/other", "/pypi/simple/valuator/x"} {
		if r := sdkGet(t, srv, "GET", p); r.status != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", p, r.status)
		}
	}
}

// TestGoCommandFetchesFromTheProxy: the go command itself downloads the module through the server's GOPROXY (the
// test module has no dependency, so no other proxy is needed) and verifies the zip against the .mod and .info.
func TestGoCommandFetchesFromTheProxy(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	srv := sdkServer(t, sdkstest.Catalog(t, false), "")
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goBin, "mod", "download", "-json", "valuator.dev/sdk/go@latest")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOPROXY="+srv.URL+"/goproxy", "GONOSUMDB=valuator.dev/sdk/go", "GOFLAGS=-modcacherw",
		"GOMODCACHE="+filepath.Join(dir, "modcache"), "GOTOOLCHAIN=local", "GO111MODULE=on")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go mod download: %v\n%s", err, out)
	}
	var dl struct{ Version, Dir, Sum, Error string }
	if err := json.Unmarshal(out, &dl); err != nil || dl.Version != "v1.0.0" || !strings.HasPrefix(dl.Sum, "h1:") {
		t.Fatalf("go mod download = %s (%v)", out, err)
	}
	if _, err := os.Stat(filepath.Join(dl.Dir, "valuator.go")); err != nil {
		t.Errorf("the module was not extracted: %v", err)
	}
}

// TestPipInstallsFromTheIndex: pip finds the (fake) wheel on the index, checks its #sha256= and installs it.
func TestPipInstallsFromTheIndex(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil || exec.Command(py, "-m", "pip", "--version").Run() != nil {
		t.Skip("no python3 with pip")
	}
	srv := sdkServer(t, sdkstest.Catalog(t, true), "")
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, "-m", "pip", "install", "--disable-pip-version-check", "--no-cache-dir",
		"--no-input", "--index-url", srv.URL+"/pypi/simple/", "--target", filepath.Join(dir, "site"), "valuator==1.0.0")
	cmd.Env = append(os.Environ(), "PIP_CONFIG_FILE=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pip install: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "site", "valuator", "__init__.py")); err != nil {
		t.Errorf("pip did not install the wheel: %v\n%s", err, out)
	}
}
