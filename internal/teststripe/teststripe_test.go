package teststripe

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// helperEnv makes TestHelperStart, run in a child process, call Start, report what it got and wait to be killed.
const helperEnv = "VALUATOR_TESTSTRIPE_HELPER"

// TestHelperStart is not a test: it is the child process of the tests below, and does nothing unless they started
// it.
func TestHelperStart(t *testing.T) {
	switch os.Getenv(helperEnv) {
	case "":
		return
	case "start":
		u := Start(t)
		fmt.Printf("HELPER %s\n", u)
		// A customer proves that the server really answers, whichever binary it is.
		if _, err := post(u, "/v1/customers", url.Values{"email": {"helper@example.com"}}); err != nil {
			t.Fatal(err)
		}
		fmt.Printf("HELPER binary %s\n", binaryPath)
	case "wait":
		fmt.Printf("HELPER %s %d\n", Start(t), os.Getpid())
		time.Sleep(time.Minute) // The parent kills us long before.
	}
}

func TestAvailable(t *testing.T) {
	ok, why := Available()
	t.Logf("stripe-mock available: %v (%s)", ok, why)
	if !ok && os.Getenv(EnvRequireStripe) == "1" {
		t.Fatalf("%s=1 but stripe-mock is not available: %s", EnvRequireStripe, why)
	}
}

// TestStart checks that two servers in one test are distinct, answer as Stripe's API does (checking parameters
// against the spec) and are gone once the test that started them has ended.
func TestStart(t *testing.T) {
	var urls []string
	t.Run("inner", func(t *testing.T) {
		a, b := Start(t), Start(t)
		t.Logf("servers: %s and %s", a, b)
		if a == b {
			t.Fatalf("two calls gave the same URL %s", a)
		}
		for _, u := range []string{a, b} {
			if !strings.HasPrefix(u, "http://127.0.0.1:") {
				t.Errorf("URL %s is not of the form http://127.0.0.1:PORT", u)
			}
			obj, err := post(u, "/v1/customers", url.Values{"email": {"jo@example.com"}})
			if err != nil {
				t.Fatal(err)
			}
			if got := obj["object"]; got != "customer" {
				t.Errorf("POST /v1/customers at %s answered object %v, want customer", u, got)
			}
			if id, _ := obj["id"].(string); !strings.HasPrefix(id, "cus_") {
				t.Errorf("POST /v1/customers at %s answered id %q, want cus_...", u, id)
			}
			// stripe-mock's one real check: parameters the spec does not have are refused.
			if _, err := post(u, "/v1/customers", url.Values{"no_such_param": {"1"}}); err == nil ||
				!strings.Contains(err.Error(), "400") {
				t.Errorf("POST /v1/customers with an unknown parameter: err = %v, want a 400", err)
			}
		}
		urls = []string{a, b}
	})
	if urls == nil {
		t.Skip("the inner test got no servers")
	}
	for _, u := range urls {
		host := strings.TrimPrefix(u, "http://")
		c := &http.Client{Timeout: 2 * time.Second}
		if res, err := c.Get(u + "/v1/customers/cus_1"); err == nil {
			res.Body.Close()
			t.Errorf("%s still answers (%s) after the test that started it ended", host, res.Status)
		}
	}
}

// TestParallel checks that servers started at the same time all come up, on ports of their own.
func TestParallel(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]bool{}
	t.Run("group", func(t *testing.T) {
		for i := range 6 {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				u := Start(t)
				if _, err := post(u, "/v1/customers", nil); err != nil {
					t.Fatal(err)
				}
				mu.Lock()
				defer mu.Unlock()
				if seen[u] {
					t.Errorf("URL %s handed out twice", u)
				}
				seen[u] = true
			})
		}
	})
}

// TestUnavailable checks, in child processes that have a fresh binary lookup, that no binary skips the test or
// fails it when VALUATOR_TEST_REQUIRE_STRIPE=1, and that a VALUATOR_STRIPE_MOCK naming no binary always fails it.
func TestUnavailable(t *testing.T) {
	tmp := t.TempDir()
	for _, tt := range []struct {
		name, mockEnv, require string
		wantExit               int
		want, reason           string
	}{
		{"none", "", "", 0, "--- SKIP: TestHelperStart", "cannot be installed without the go command"},
		{"none required", "", "1", 1, "--- FAIL: TestHelperStart", "cannot be installed without the go command"},
		{"bad env", filepath.Join(tmp, "nothing"), "", 1, "--- FAIL: TestHelperStart", "is not an executable file"},
		{"not executable", writeFile(t, tmp, "plain.txt", 0o644), "", 1, "--- FAIL: TestHelperStart",
			"is not an executable file"},
		{"does not start", writeFile(t, tmp, "fails.sh", 0o755), "", 0, "--- SKIP: TestHelperStart",
			"exited before listening"},
		{"does not start required", writeFile(t, tmp, "fails.sh", 0o755), "1", 1, "--- FAIL: TestHelperStart",
			"exited before listening"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			env := childEnv(EnvStripeMock, EnvRequireStripe, "PATH", "HOME", "XDG_CACHE_HOME", "GOBIN", "GOPATH")
			// No go on PATH and an empty cache directory hide every other place stripe-mock could be.
			env = append(env, helperEnv+"=start", "PATH="+filepath.Join(home, "nobin"), "HOME="+home,
				"XDG_CACHE_HOME="+filepath.Join(home, "cache"), EnvRequireStripe+"="+tt.require)
			if tt.mockEnv != "" {
				env = append(env, EnvStripeMock+"="+tt.mockEnv)
			}
			out, code := runChild(t, env)
			if code != tt.wantExit || !strings.Contains(out, tt.want) || !strings.Contains(out, tt.reason) {
				t.Errorf("exit %d, want %d, and output with %q and %q:\n%s", code, tt.wantExit, tt.want, tt.reason,
					out)
			}
		})
	}
}

// TestInstall checks that, with no stripe-mock anywhere, two test processes starting at once install it into
// the cache directory once and both use it. It runs `go install`, which needs the module in the module cache or
// the Go module proxy, so it is skipped in -short mode, when the go command is missing, and when the install
// cannot be done here: VALUATOR_TEST_REQUIRE_STRIPE asks for a working stripe-mock, which a machine may have
// without being able to install one.
func TestInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go install")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command: ", err)
	}
	// The real module and build caches keep this from downloading or compiling more than it must.
	caches, err := exec.Command(goTool, "env", "GOMODCACHE", "GOCACHE").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	modCache, buildCache, _ := strings.Cut(strings.TrimSpace(string(caches)), "\n")
	home := t.TempDir()
	env := childEnv(EnvStripeMock, EnvRequireStripe, "HOME", "XDG_CACHE_HOME", "GOBIN", "GOPATH", "GOMODCACHE",
		"GOCACHE")
	env = append(env, helperEnv+"=start", "HOME="+home, "XDG_CACHE_HOME="+filepath.Join(home, "cache"),
		"GOPATH="+filepath.Join(home, "gopath"), "GOMODCACHE="+modCache, "GOCACHE="+strings.TrimSpace(buildCache))

	outs := make([]string, 2)
	codes := make([]int, 2)
	var wg sync.WaitGroup
	for i := range outs {
		wg.Go(func() { outs[i], codes[i] = runChild(t, env) })
	}
	wg.Wait()
	want := filepath.Join(home, "cache", "valuator", "stripe-mock-"+Version, exeName())
	for i, out := range outs {
		if strings.Contains(out, "--- SKIP") {
			t.Skipf("child %d could not install stripe-mock:\n%s", i, out)
		}
		if codes[i] != 0 || !strings.Contains(out, "HELPER binary "+want) {
			t.Errorf("child %d: exit %d, want 0 and a server from %s:\n%s", i, codes[i], want, out)
		}
	}
	entries, err := os.ReadDir(filepath.Dir(want))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	// The temporary install directories are gone; the lock file stays, harmlessly.
	if got, want := strings.Join(names, " "), "install.lock "+exeName(); got != want {
		t.Errorf("cache directory holds %q, want %q", got, want)
	}
}

// post sends a form to a stripe-mock server and decodes the object it answers; a status other than 200 is an
// error.
func post(base, path string, form url.Values) (map[string]any, error) {
	req, err := http.NewRequest(http.MethodPost, base+path, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer sk_test_teststripe")
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("POST %s: %s: %s", path, res.Status, body)
	}
	var obj map[string]any
	if err := json.Unmarshal(body, &obj); err != nil {
		return nil, fmt.Errorf("POST %s: %v", path, err)
	}
	return obj, nil
}

// childEnv is this process's environment without the named variables.
func childEnv(drop ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		keep := true
		for _, d := range drop {
			if name == d {
				keep = false
			}
		}
		if keep {
			env = append(env, kv)
		}
	}
	return env
}

// runChild runs TestHelperStart in a child test process with env and returns its output and exit code.
func runChild(t *testing.T, env []string) (string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperStart$", "-test.count=1", "-test.v")
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return string(out), exit.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

// writeFile writes a file in dir with mode and returns its path; an executable one is a script that exits at
// once with an error, as a broken stripe-mock would.
func writeFile(t *testing.T, dir, name string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\necho broken >&2\nexit 3\n"), mode); err != nil {
		t.Fatal(err)
	}
	return p
}
