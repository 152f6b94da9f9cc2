package valuator_test

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
	"strings"
	"sync"
	"testing"
	"time"
)

// testServer is the real binary (VALUATOR_BIN, else ../../bin/valuator built by `make build`) on a free loopback
// port with a fresh SQLite database in development mode, so the demo market, the demo account and its
// residents are seeded.
type testServer struct {
	baseURL string
	token   string
}

var (
	serverOnce sync.Once
	server     *testServer
	serverErr  error
	stopServer func()
)

func TestMain(m *testing.M) {
	code := m.Run()
	if stopServer != nil {
		stopServer()
	}
	os.Exit(code)
}

// startServer starts the binary once for every test of the package. Without a binary the tests are skipped,
// except in CI (CI or VALUATOR_TEST_REQUIRE_SDK=1 set), where they fail.
func startServer(t *testing.T) *testServer {
	t.Helper()
	bin := os.Getenv("VALUATOR_BIN")
	if bin == "" {
		bin = filepath.Join("..", "..", "bin", "valuator")
	}
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") != "" || os.Getenv("VALUATOR_TEST_REQUIRE_SDK") == "1" {
			t.Fatalf("%s is missing (run make build, or set VALUATOR_BIN): %v", bin, err)
		}
		t.Skipf("%s is missing: run make build (or set VALUATOR_BIN) to run the SDK against the real server", bin)
	}
	serverOnce.Do(func() { server, serverErr = launch(bin) })
	if serverErr != nil {
		t.Fatal(serverErr)
	}
	return server
}

func launch(bin string) (*testServer, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	dir, err := os.MkdirTemp("", "valuator-sdk-go-")
	if err != nil {
		return nil, err
	}
	base := "http://" + addr
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(),
		"VALUATOR_ADDR="+addr,
		"VALUATOR_BASE_URL="+base,
		"VALUATOR_DATA_DIR="+dir,
		"VALUATOR_DATABASE_URL=sqlite://"+filepath.Join(dir, "valuator.db"),
		"VALUATOR_ENV=development",
		"VALUATOR_LOG_LEVEL=warn",
		// The server runs on the tests' day, not the calendar's (the Makefile exports VALUATOR_TEST_TODAY).
		"VALUATOR_CLOCK="+testDay(),
	)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	stopServer = func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		os.RemoveAll(dir)
	}

	// The first start generates the demo market and trains the engine: allow a few minutes on a busy machine.
	deadline := time.Now().Add(3 * time.Minute)
	for {
		select {
		case <-exited:
			return nil, fmt.Errorf("valuator exited before it was ready:\n%s", stderr.String())
		default:
		}
		if r, err := http.Get(base + "/readyz"); err == nil {
			r.Body.Close()
			if r.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("valuator was not ready in 3 minutes:\n%s", stderr.String())
		}
		time.Sleep(250 * time.Millisecond)
	}

	var login struct {
		Token string `json:"token"`
	}
	if err := call("POST", base+"/api/auth/login", "", map[string]string{"email": "demo@valuator.dev",
		"password": "valuator-demo"}, http.StatusOK, &login); err != nil {
		return nil, err
	}
	return &testServer{baseURL: base, token: login.Token}, nil
}

// createKey creates an API key of the demo account; rateLimit 0 leaves the plan's default.
func (s *testServer) createKey(t *testing.T, name string, rateLimit int) string {
	t.Helper()
	body := map[string]any{"name": name}
	if rateLimit > 0 {
		body["rateLimit"] = rateLimit
	}
	var key struct {
		KeyValue string `json:"keyValue"`
	}
	if err := call("POST", s.baseURL+"/api/api-keys", s.token, body, http.StatusCreated, &key); err != nil {
		t.Fatal(err)
	}
	return key.KeyValue
}

// newAccountKey signs up a new (Free) account and creates its API key.
func (s *testServer) newAccountKey(t *testing.T, name string) string {
	t.Helper()
	var auth struct {
		Token string `json:"token"`
	}
	email := fmt.Sprintf("%s-%d@example.com", name, time.Now().UnixNano())
	if err := call("POST", s.baseURL+"/api/auth/register", "", map[string]string{"email": email,
		"password": "sdk-test-passphrase", "fullName": "SDK Test"}, http.StatusCreated, &auth); err != nil {
		t.Fatal(err)
	}
	var key struct {
		KeyValue string `json:"keyValue"`
	}
	if err := call("POST", s.baseURL+"/api/api-keys", auth.Token, map[string]any{"name": name}, http.StatusCreated, &key); err != nil {
		t.Fatal(err)
	}
	return key.KeyValue
}

func call(method, url, token string, body any, want int, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	var raw bytes.Buffer
	_, _ = raw.ReadFrom(res.Body)
	if res.StatusCode != want {
		return fmt.Errorf("%s %s: %d %s", method, url, res.StatusCode, strings.TrimSpace(raw.String()))
	}
	return json.Unmarshal(raw.Bytes(), out)
}

// testDay is the day the tests run on: VALUATOR_TEST_TODAY, or the day the repository's tests use by default
// (internal/testclock.Default; the SDK is a module of its own and cannot import it).
func testDay() string {
	if d := os.Getenv("VALUATOR_TEST_TODAY"); d != "" {
		return d
	}
	return "2026-11-28"
}
