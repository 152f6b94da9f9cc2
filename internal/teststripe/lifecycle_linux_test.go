package teststripe

import (
	"bufio"
	"errors"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestKilledProcessLeavesNoServer checks that a test process killed with SIGKILL, which runs none of its
// cleanups, leaves no stripe-mock behind: the parent-death signal kills it.
func TestKilledProcessLeavesNoServer(t *testing.T) {
	if ok, why := Available(); !ok {
		t.Skipf("this test is about the server's lifetime: %s", why)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperStart$", "-test.count=1")
	cmd.Env = append(childEnv(), helperEnv+"=wait")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	// The mock's pid is not the helper's; find it as the helper's child.
	sc := bufio.NewScanner(out)
	var addr string
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "HELPER "); ok {
			addr = strings.TrimPrefix(strings.Fields(rest)[0], "http://")
			break
		}
	}
	if addr == "" {
		t.Fatal("the helper reported no server")
	}
	mockPID := childPID(t, cmd.Process.Pid)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	deadline := time.Now().Add(15 * time.Second)
	for {
		err := syscall.Kill(mockPID, 0)
		c, dialErr := net.DialTimeout("tcp", addr, time.Second)
		if dialErr == nil {
			c.Close()
		}
		if errors.Is(err, syscall.ESRCH) && dialErr != nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("15s after the test process was killed, stripe-mock %d (kill -0: %v) or %s (dial: %v) is "+
				"still there", mockPID, err, addr, dialErr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// childPID is the process id of the one child of parent, found in /proc. (/proc/PID/task/TID/children lists only
// the children a thread started, and the Go runtime starts them from any of its threads.)
func childPID(t *testing.T, parent int) int {
	t.Helper()
	var found []int
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // It exited meanwhile.
		}
		// The second field after the parenthesized command name is the parent's pid.
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 {
			if f := strings.Fields(string(stat)[i+1:]); len(f) > 1 && f[1] == strconv.Itoa(parent) {
				found = append(found, pid)
			}
		}
	}
	if len(found) != 1 {
		t.Fatalf("process %d has children %v, want one", parent, found)
	}
	return found[0]
}
