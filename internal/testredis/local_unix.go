//go:build unix

package testredis

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// localDatabases is the number of logical databases of the local server: database 0 holds the claims, the rest
// are handed out, so this many tests (less one) can hold one at the same time. An empty database costs Redis a
// few hundred bytes.
const localDatabases = 256

// binaryFallbacks are looked at when redis-server is not on PATH: some distributions install it in sbin, and a
// source build goes to /usr/local/bin.
var binaryFallbacks = []string{"/usr/sbin/redis-server", "/usr/local/bin/redis-server", "/usr/bin/redis-server"}

// localServer is a redis-server that this process started, under a watchdog shell.
type localServer struct {
	binary  string
	dir     string // Temporary working directory, holding the log.
	logFile string
	port    int

	cmd    *exec.Cmd     // The watchdog shell, the server's parent.
	exited chan struct{} // Closed when the watchdog shell has exited.

	// watchdog is the write end of a pipe whose read end the watchdog waits on. It is closed when this process
	// exits, however that happens, and the watchdog then stops the server. Keeping it in the struct also keeps
	// it from being garbage collected (and so closed) early.
	watchdog *os.File
}

// watchdogScript runs redis-server ("$@") as its child and stops it with SIGTERM as soon as the pipe on fd 3
// reports end of file, which happens when the test process has exited, however it exited, or has closed its
// end to stop the server. When the server has exited, for that reason or any other, it removes the directory $1
// and exits with the server's status. Being the server's parent, it holds the server's process id until it has
// waited for it, so the kill can never hit an unrelated process that reused the id.
const watchdogScript = `dir=$1
shift
"$@" 3<&- &
server=$!
(read _ <&3; kill -TERM "$server" 2>/dev/null) &
guard=$!
exec 3<&-
wait "$server"
status=$?
kill "$guard" 2>/dev/null
rm -rf "$dir"
exit "$status"`

// startLocal starts redis-server on a free loopback port in a new temporary directory. os.MkdirTemp rather than
// t.TempDir, because the server outlives the test that happened to start it.
func startLocal() (*localServer, error) {
	binary, err := findBinary()
	if err != nil {
		return nil, err
	}
	// The free port is only free when we look; another process can take it before the server binds it, so a
	// failed start is retried on a new port.
	for attempt := 1; ; attempt++ {
		ls, err := startOnce(binary)
		if err == nil {
			return ls, nil
		}
		if attempt == 3 {
			return nil, err
		}
	}
}

func startOnce(binary string) (_ *localServer, err error) {
	dir, err := os.MkdirTemp("", "valuator-testredis-")
	if err != nil {
		return nil, fmt.Errorf("creating the server directory: %w", err)
	}
	ls := &localServer{binary: binary, dir: dir, logFile: filepath.Join(dir, "redis.log")}
	defer func() {
		if err != nil {
			_ = ls.stop()
		}
	}()
	if ls.port, err = freePort(); err != nil {
		return nil, err
	}
	if err := ls.startWatchdog(); err != nil {
		return nil, err
	}
	if err := ls.waitListening(10 * time.Second); err != nil {
		return nil, fmt.Errorf("%s on port %d: %w\nlast lines of the server log:\n%s",
			binary, ls.port, err, ls.logTail())
	}
	return ls, nil
}

// startWatchdog starts the watchdog shell, which starts the server. Main stops the server on a normal end or on
// SIGINT or SIGTERM, but a panicking test, a -timeout or SIGKILL exit without running any of our code.
func (ls *localServer) startWatchdog() error {
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("creating the watchdog pipe: %w", err)
	}
	defer r.Close() // The watchdog has its own copy.
	args := []string{"-c", watchdogScript, "testredis-watchdog", ls.dir,
		ls.binary,
		"--port", strconv.Itoa(ls.port),
		"--bind", "127.0.0.1",
		"--save", "",
		"--appendonly", "no",
		"--dir", ls.dir,
		"--logfile", ls.logFile,
		"--daemonize", "no",
		"--databases", strconv.Itoa(localDatabases),
	}
	cmd := exec.Command("/bin/sh", args...)
	cmd.Dir = ls.dir
	cmd.ExtraFiles = []*os.File{r}
	// Its own session, so that a Ctrl-C sent to the terminal's process group does not kill the watchdog
	// before it could act, and so that stop can kill the whole group if all else fails. Stdin, stdout and
	// stderr stay at /dev/null: holding go test's output pipe open would make go test wait for it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return fmt.Errorf("starting the watchdog /bin/sh: %w", err)
	}
	ls.cmd, ls.watchdog, ls.exited = cmd, w, make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(ls.exited)
	}()
	return nil
}

// waitListening waits until the server says in its log that it accepts connections, or has exited, or timeout
// passes. The log rather than a test connection, because a connection could reach another program that took
// the port first (our server then exits with "Address already in use").
func (ls *localServer) waitListening(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		select {
		case <-ls.exited:
			return fmt.Errorf("exited at start (%v)", ls.cmd.ProcessState)
		default:
		}
		if b, err := os.ReadFile(ls.logFile); err == nil && bytes.Contains(b, []byte("Ready to accept connections")) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready after %v", timeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stop stops the server and removes its directory, waiting until both are done.
func (ls *localServer) stop() error {
	if ls.watchdog != nil {
		// The watchdog wakes up, stops the server, removes the directory and exits.
		ls.watchdog.Close()
		ls.watchdog = nil
	}
	var errs []error
	if ls.cmd != nil {
		select {
		case <-ls.exited:
		case <-time.After(15 * time.Second):
			// The server would not stop: kill its whole session (the watchdog's process group).
			errs = append(errs, fmt.Errorf("redis-server on port %d did not stop within 15s; killed it", ls.port))
			_ = syscall.Kill(-ls.cmd.Process.Pid, syscall.SIGKILL)
			<-ls.exited
		}
	}
	// Normally already gone; this covers a watchdog that never started or was killed.
	if err := os.RemoveAll(ls.dir); err != nil {
		errs = append(errs, fmt.Errorf("removing the server directory: %w", err))
	}
	return errors.Join(errs...)
}

// logTail returns the last lines of the server log, which say why a server did not start.
func (ls *localServer) logTail() string {
	b, err := os.ReadFile(ls.logFile)
	if err != nil {
		return fmt.Sprintf("(no server log: %v)", err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 20 {
		lines = lines[len(lines)-20:]
	}
	return strings.Join(lines, "\n")
}

// findBinary looks for redis-server on PATH, then in the usual places off it.
func findBinary() (string, error) {
	if p, err := exec.LookPath("redis-server"); err == nil {
		return p, nil
	}
	for _, p := range binaryFallbacks {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: redis-server not found on PATH or in %s, and %s is not set",
		errUnavailable, strings.Join(binaryFallbacks, ", "), EnvRedisURL)
}

// freePort asks the kernel for a free loopback TCP port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
