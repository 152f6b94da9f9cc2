//go:build unix

package testredis

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// helperEnv makes TestHelperServer, run in a child process, start a local server, report it and wait to be
// killed.
const helperEnv = "VALUATOR_TESTREDIS_HELPER"

// TestHelperServer is not a test: it is the child process of the lifecycle tests below, and does nothing unless
// they started it.
func TestHelperServer(t *testing.T) {
	switch os.Getenv(helperEnv) {
	case "server":
	case "nobinary":
		// The parent has emptied PATH; this hides the other places.
		binaryFallbacks = nil
		URL(t)
		fmt.Println("HELPER got a database without a redis-server")
		return
	default:
		return
	}
	u := URL(t)
	runningMu.Lock()
	dir := running.dir
	runningMu.Unlock()
	c := client(t, u)
	info, err := c.Info(t.Context(), "server").Result()
	if err != nil {
		t.Fatal(err)
	}
	pid := ""
	for line := range strings.SplitSeq(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "process_id:"); ok {
			pid = v
		}
	}
	fmt.Printf("HELPER %s %s %s\n", u, dir, pid)
	time.Sleep(time.Minute) // The parent kills us long before.
}

// helperServer is what the child process reported.
type helperServer struct {
	url, dir string
	pid      int
	cmd      *exec.Cmd
	stderr   *bytes.Buffer
}

// startHelper runs TestHelperServer in a child test process that starts its own local server.
func startHelper(t *testing.T) *helperServer {
	t.Helper()
	if _, err := findBinary(); err != nil {
		t.Skipf("this test is about the local server: %v", err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperServer$", "-test.count=1")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, EnvRedisURL+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, helperEnv+"=server")
	h := &helperServer{cmd: cmd, stderr: &bytes.Buffer{}}
	cmd.Stderr = h.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the helper: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})

	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("the helper ended without reporting a server; its stderr:\n%s", h.stderr)
			}
			rest, found := strings.CutPrefix(line, "HELPER ")
			if !found {
				continue
			}
			f := strings.Fields(rest)
			if len(f) != 3 {
				t.Fatalf("helper reported %q", line)
			}
			h.url, h.dir = f[0], f[1]
			if h.pid, err = strconv.Atoi(f[2]); err != nil {
				t.Fatalf("helper reported %q: %v", line, err)
			}
			// Keep draining, so that the helper never blocks on a full pipe.
			go func() {
				for range lines {
				}
			}()
			return h
		case <-timeout:
			t.Fatalf("the helper reported no server within 30s; its stderr:\n%s", h.stderr)
		}
	}
}

// gone reports whether nothing is left of the helper's server: no process, no directory, nothing listening.
func (h *helperServer) gone() (bool, string) {
	if err := syscall.Kill(h.pid, 0); !errors.Is(err, syscall.ESRCH) {
		return false, fmt.Sprintf("redis-server process %d still exists (kill -0: %v)", h.pid, err)
	}
	if _, err := os.Stat(h.dir); !errors.Is(err, os.ErrNotExist) {
		return false, fmt.Sprintf("directory %s still exists (stat: %v)", h.dir, err)
	}
	opts, _ := redis.ParseURL(h.url)
	if c, err := net.DialTimeout("tcp", opts.Addr, time.Second); err == nil {
		c.Close()
		return false, fmt.Sprintf("something still listens on %s", opts.Addr)
	}
	return true, ""
}

func (h *helperServer) ping(t *testing.T) {
	t.Helper()
	opts, _ := redis.ParseURL(h.url)
	c := redis.NewClient(opts)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatalf("the helper's server at %s does not answer: %v", h.url, err)
	}
}

// TestKilledProcessLeavesNoServer checks that a test process killed with SIGKILL, which runs none of its code,
// leaves no redis-server and no directory behind: the watchdog stops the server.
func TestKilledProcessLeavesNoServer(t *testing.T) {
	h := startHelper(t)
	h.ping(t)
	if err := h.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = h.cmd.Wait()
	deadline := time.Now().Add(15 * time.Second)
	for {
		ok, why := h.gone()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("15s after the test process was killed: %s", why)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSignalStopsServer checks that SIGTERM makes Main stop the server before the process exits, with the
// shell's exit code for it.
func TestSignalStopsServer(t *testing.T) {
	h := startHelper(t)
	h.ping(t)
	if err := h.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := h.cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 128+int(syscall.SIGTERM) {
		t.Errorf("helper ended with %v, want exit status %d", err, 128+int(syscall.SIGTERM))
	}
	// Main waits for the server to stop, so it is gone already.
	if ok, why := h.gone(); !ok {
		t.Errorf("right after the test process exited: %s", why)
	}
	if !strings.Contains(h.stderr.String(), "stopping redis-server") {
		t.Errorf("stderr does not say that the server was stopped:\n%s", h.stderr)
	}
}

// TestNoBinarySkipsOrFails checks that without a redis-server (and with no server configured) URL skips the
// test, or fails it when VALUATOR_TEST_REQUIRE_REDIS=1.
func TestNoBinarySkipsOrFails(t *testing.T) {
	for _, tt := range []struct {
		require  string
		wantExit int
		want     string
	}{
		{"", 0, "--- SKIP: TestHelperServer"},
		{"1", 1, "--- FAIL: TestHelperServer"},
	} {
		t.Run("require="+tt.require, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperServer$", "-test.count=1", "-test.v")
			for _, kv := range os.Environ() {
				name, _, _ := strings.Cut(kv, "=")
				if name != EnvRedisURL && name != EnvRequireRedis && name != "PATH" {
					cmd.Env = append(cmd.Env, kv)
				}
			}
			cmd.Env = append(cmd.Env, helperEnv+"=nobinary", "PATH=/nonexistent", EnvRequireRedis+"="+tt.require)
			out, err := cmd.CombinedOutput()
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.wantExit || !strings.Contains(string(out), tt.want) ||
				!strings.Contains(string(out), "redis-server not found") {
				t.Errorf("exit %d, want %d, and output with %q and the reason:\n%s", code, tt.wantExit, tt.want, out)
			}
		})
	}
}
