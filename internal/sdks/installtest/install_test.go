package installtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// catalog is GET /api/sdks.
type catalog struct {
	Go struct {
		Module, Version, GoProxy, Install string
	}
	TypeScript struct {
		Package, Version, Tarball, Install string
	}
	Python *struct {
		Package, Version, Index, Install string
	}
}

const demoAddress = "5873 River Dr N, Seattle, WA 98103"

// TestInstallFromTheServer: the Go module through the server's GOPROXY with `go get`, the npm tarball with
// `npm install <url>` (and a consumer compiled by tsc --strict), and the Python package with `pip install` from its
// PEP 503 index; each installed client values the demo address against the same server.
func TestInstallFromTheServer(t *testing.T) {
	bin := os.Getenv("VALUATOR_BIN")
	if bin == "" {
		t.Skip("VALUATOR_BIN is not set: make test-sdk runs this test against the built binary")
	}
	srv := launch(t, bin)
	var cat catalog
	get(t, srv.base+"/api/sdks", "", http.StatusOK, &cat)
	if cat.Go.Module == "" || cat.TypeScript.Tarball == "" {
		t.Fatalf("GET /api/sdks = %+v", cat)
	}
	if !strings.HasPrefix(cat.Go.GoProxy, srv.base+"/") || !strings.HasPrefix(cat.TypeScript.Tarball, srv.base+"/") {
		t.Fatalf("the URLs are not this server's (%s): %+v", srv.base, cat)
	}
	key := srv.apiKey(t)

	t.Run("go", func(t *testing.T) {
		dir := t.TempDir()
		env := goEnv(dir)
		run(t, dir, env, "go", "mod", "init", "example.com/consumer")
		// The install line exactly as the server gives it.
		t.Logf("install: %s", cat.Go.Install)
		run(t, dir, env, "sh", "-c", cat.Go.Install)
		main := `package main

import (
	"context"
	"fmt"
	"log"
	"os"

	valuator "` + cat.Go.Module + `"
	"` + cat.Go.Module + `/api"
)

func main() {
	c, err := valuator.NewClient(os.Args[1], os.Args[2], nil)
	if err != nil {
		log.Fatal(err)
	}
	city, state, zip := "Seattle", "WA", "98103"
	v, err := c.Valuate(context.Background(), api.PublicValuationParams{Address: "5873 River Dr N", City: &city, State: &state, Zip: &zip})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("value %v (client %s)\n", v.Valuation.EstimatedValue, valuator.Version)
}
`
		writeFile(t, filepath.Join(dir, "main.go"), main)
		out := run(t, dir, env, "go", "run", ".", srv.base, key)
		checkValue(t, out, "client "+strings.TrimPrefix(cat.Go.Version, "v"))
	})

	t.Run("typescript", func(t *testing.T) {
		dir := t.TempDir()
		env := append(os.Environ(), "npm_config_audit=false", "npm_config_fund=false", "npm_config_update_notifier=false",
			"npm_config_loglevel=error", "npm_config_cache="+filepath.Join(dir, ".npm-cache"))
		t.Logf("install: %s", cat.TypeScript.Install)
		run(t, dir, env, "sh", "-c", cat.TypeScript.Install)
		// A consumer in TypeScript, compiled with --strict against the package's own declarations (not skipped:
		// skipLibCheck is off), then run.
		src := `import { createValuatorClient, ValuatorError, type PropertyValuation } from "` + cat.TypeScript.Package + `";

const valuator = createValuatorClient({ baseUrl: ` + jsString(srv.base) + `, apiKey: ` + jsString(key) + ` });
try {
  const v: PropertyValuation = await valuator.valuate({ address: "5873 River Dr N", city: "Seattle", state: "WA", zip: "98103" });
  const value: number = v.valuation.estimatedValue;
  console.log("value " + value);
} catch (e) {
  if (e instanceof ValuatorError) console.error(e.status, e.code, e.message);
  throw e;
}
`
		writeFile(t, filepath.Join(dir, "value.mts"), src)
		writeFile(t, filepath.Join(dir, "tsconfig.json"), `{
  "compilerOptions": {
    "strict": true, "target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext",
    "lib": ["ES2022", "DOM"], "types": [], "skipLibCheck": false, "outDir": "out"
  },
  "files": ["value.mts"]
}
`)
		tsc, err := filepath.Abs(filepath.Join("..", "..", "..", "sdk", "typescript", "node_modules", ".bin", "tsc"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(tsc); err != nil {
			t.Fatalf("no TypeScript compiler at %s (make test-sdk installs sdk/typescript's packages): %v", tsc, err)
		}
		run(t, dir, env, tsc, "-p", "tsconfig.json")
		out := run(t, dir, env, "node", filepath.Join("out", "value.mjs"))
		checkValue(t, out, "")
	})

	t.Run("python", func(t *testing.T) {
		if cat.Python == nil {
			t.Fatal("no Python package in this binary (GET /api/sdks: python null): make build runs make sdk-dist, " +
				"which builds sdk/python's wheel")
		}
		py, err := exec.LookPath("python3")
		if err != nil {
			t.Fatal("python3 is needed to install the Python package")
		}
		// The server's line is "pip install <options> <package>==<version>"; it runs as python3 -m pip, into a
		// folder of its own (--target) rather than this machine's site-packages or a virtual environment, which a
		// Debian Python without python3-venv cannot make.
		t.Logf("install: %s", cat.Python.Install)
		args, ok := strings.CutPrefix(cat.Python.Install, "pip install ")
		if !ok {
			t.Fatalf("the install line does not start with pip install: %s", cat.Python.Install)
		}
		dir := t.TempDir()
		site := filepath.Join(dir, "site")
		env := append(os.Environ(), "PIP_DISABLE_PIP_VERSION_CHECK=1", "PIP_NO_INPUT=1", "PIP_CONFIG_FILE=/dev/null",
			"PIP_NO_CACHE_DIR=1", "PYTHONPATH="+site)
		run(t, dir, env, py, append([]string{"-m", "pip", "install", "--target", site}, strings.Fields(args)...)...)
		out := run(t, dir, env, py, "-c", "import importlib.metadata as m; print(m.version("+pyString(cat.Python.Package)+"))")
		if strings.TrimSpace(out) != cat.Python.Version {
			t.Errorf("installed version %q, want %s", out, cat.Python.Version)
		}
		// As sdk/python/README.md: valuator.Client(base, key).valuate(street, city, state, zip) returns the data.
		script := "import sys, valuator\n" +
			"v = valuator.Client(sys.argv[1], sys.argv[2]).valuate(\"5873 River Dr N\", \"Seattle\", \"WA\", \"98103\")\n" +
			"print(\"value %s\" % v[\"valuation\"][\"estimatedValue\"])\n"
		writeFile(t, filepath.Join(dir, "value.py"), script)
		checkValue(t, run(t, dir, env, py, "value.py", srv.base, key), "")
	})
}

// checkValue wants "value N" with N a positive number of dollars (and also, when given, in the output).
func checkValue(t *testing.T, out, also string) {
	t.Helper()
	m := regexp.MustCompile(`value (\d+(\.\d+)?)`).FindStringSubmatch(out)
	if m == nil || m[1] == "0" || (also != "" && !strings.Contains(out, also)) {
		t.Fatalf("the client did not value %s: %s", demoAddress, out)
	}
	t.Logf("%s valued at %s", demoAddress, m[1])
}

// goEnv is the environment of a customer's go command: a module cache of its own (so the module really comes from
// the server, not from an earlier download), the local toolchain, and no GOPROXY, GONOSUMDB, GOPRIVATE or GOFLAGS of
// this machine's (the install line sets what it needs).
func goEnv(dir string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GOPROXY", "GONOSUMDB", "GONOPROXY", "GOPRIVATE", "GOFLAGS", "GOMODCACHE", "GOPATH", "GOTOOLCHAIN",
			"GOINSECURE", "GOSUMDB":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GOPATH="+filepath.Join(dir, "gopath"), "GOFLAGS=-modcacherw", "GOTOOLCHAIN=local")
}

func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func pyString(s string) string { return jsString(s) }

// server is the binary on a free loopback port with a fresh database in development mode (the demo market and
// account are seeded), as sdk/go/server_test.go starts it.
type server struct {
	base, token string
}

func launch(t *testing.T, bin string) *server {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	dir := t.TempDir()
	base := "http://" + addr
	day := os.Getenv("VALUATOR_TEST_TODAY")
	if day == "" {
		day = "2026-11-28" // internal/testclock.Default
	}
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "VALUATOR_ADDR="+addr, "VALUATOR_BASE_URL="+base, "VALUATOR_DATA_DIR="+dir,
		"VALUATOR_DATABASE_URL=sqlite://"+filepath.Join(dir, "valuator.db"), "VALUATOR_ENV=development",
		"VALUATOR_LOG_LEVEL=warn", "VALUATOR_CLOCK="+day)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	// The first start generates the demo market and trains the engine.
	deadline := time.Now().Add(4 * time.Minute)
	for {
		select {
		case <-exited:
			t.Fatalf("valuator exited before it was ready:\n%s", stderr.String())
		default:
		}
		if r, err := http.Get(base + "/readyz"); err == nil {
			r.Body.Close()
			if r.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("valuator was not ready in 4 minutes:\n%s", stderr.String())
		}
		time.Sleep(250 * time.Millisecond)
	}
	if os.Getenv("VALUATOR_TEST_REQUIRE_SDK") == "1" {
		r, err := http.Get(base + "/api/sdks")
		if err == nil {
			r.Body.Close()
		}
		if err != nil || r.StatusCode != http.StatusOK {
			t.Fatalf("GET /api/sdks of %s: %v %v (build the binary with make build, which embeds the SDKs)", bin, err, r)
		}
	}
	var login struct{ Token string }
	post(t, base+"/api/auth/login", "", map[string]string{"email": "demo@valuator.dev", "password": "valuator-demo"},
		http.StatusOK, &login)
	return &server{base: base, token: login.Token}
}

// apiKey creates an API key of the demo account.
func (s *server) apiKey(t *testing.T) string {
	t.Helper()
	var key struct{ KeyValue string }
	post(t, s.base+"/api/api-keys", s.token, map[string]any{"name": "install test"}, http.StatusCreated, &key)
	return key.KeyValue
}

func get(t *testing.T, url, token string, want int, out any) {
	t.Helper()
	do(t, "GET", url, token, nil, want, out)
}

func post(t *testing.T, url, token string, body any, want int, out any) {
	t.Helper()
	do(t, "POST", url, token, body, want, out)
}

func do(t *testing.T, method, url, token string, body any, want int, out any) {
	t.Helper()
	var rd *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var raw bytes.Buffer
	_, _ = raw.ReadFrom(res.Body)
	if res.StatusCode != want {
		t.Fatalf("%s %s = %d %s", method, url, res.StatusCode, raw.String())
	}
	if err := json.Unmarshal(raw.Bytes(), out); err != nil {
		t.Fatal(fmt.Errorf("%s %s: %w", method, url, err))
	}
}
