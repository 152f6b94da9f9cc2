//go:build unix

package testdb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// pgLibGlob is where Debian and Ubuntu install the server binaries, one
// directory per major version, none of them on PATH.
const pgLibGlob = "/usr/lib/postgresql/*/bin"

// cluster is a throwaway PostgreSQL cluster that this process started.
type cluster struct {
	pgCtl   string // Path of pg_ctl.
	version string // Version directory or "from PATH", for messages.
	base    string // Temporary directory holding everything below.
	data    string // Data directory.
	logFile string // Server log.
	port    int
	user    string // Database superuser.

	// settings are the server settings ("name=value") that OwnCluster's
	// caller asked for, given to the server with -c on every start, after
	// the defaults, which they override.
	settings []string

	// cred is the system user that initdb and pg_ctl run as when we are
	// root (they refuse to run as root); nil otherwise.
	cred *syscall.Credential

	// watchdog is the write end of a pipe whose read end a watchdog
	// process waits on. It is closed when this process exits, however
	// that happens, and the watchdog then stops the cluster. Keeping it
	// in the struct also keeps it from being garbage collected (and so
	// closed) early.
	watchdog *os.File
}

// startCluster creates and starts a cluster in a new temporary directory,
// with settings ("name=value") added to the server's defaults.
// os.MkdirTemp rather than t.TempDir, because the cluster outlives the test
// that happened to start it.
func startCluster(settings ...string) (_ *cluster, err error) {
	initdb, pgCtl, version, err := findBinaries()
	if err != nil {
		return nil, err
	}
	cred, err := serverCredential()
	if err != nil {
		return nil, err
	}
	base, err := os.MkdirTemp("", "valuator-testdb-")
	if err != nil {
		return nil, fmt.Errorf("creating the cluster directory: %w", err)
	}
	c := &cluster{
		pgCtl:    pgCtl,
		version:  version,
		base:     base,
		data:     filepath.Join(base, "data"),
		logFile:  filepath.Join(base, "postgres.log"),
		user:     "postgres",
		cred:     cred,
		settings: settings,
	}
	defer func() {
		if err != nil {
			_ = c.stop() // Whatever got started or created goes again.
		}
	}()
	sockDir := filepath.Join(base, "sock")

	// When we are root, the server's user must own everything the server
	// writes. It owns base too, so that it can reach the rest (MkdirTemp
	// makes it 0700) and so that the watchdog, which runs as that user,
	// can remove it.
	if err := os.Mkdir(c.data, 0o700); err != nil {
		return nil, fmt.Errorf("creating the data directory: %w", err)
	}
	if err := os.Mkdir(sockDir, 0o700); err != nil {
		return nil, fmt.Errorf("creating the socket directory: %w", err)
	}
	if err := os.WriteFile(c.logFile, nil, 0o600); err != nil {
		return nil, fmt.Errorf("creating the log file: %w", err)
	}
	if cred != nil {
		for _, p := range []string{base, c.data, sockDir, c.logFile} {
			if err := os.Chown(p, int(cred.Uid), int(cred.Gid)); err != nil {
				return nil, fmt.Errorf("handing %s to uid %d: %w", p, cred.Uid, err)
			}
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// -N skips the fsyncs at the end of initdb; nothing here needs to
	// survive a crash.
	if err := c.run(ctx, initdb, "-D", c.data, "-U", c.user, "--auth=trust",
		"--encoding=UTF8", "--no-locale", "-N"); err != nil {
		return nil, err
	}

	// The watchdog starts before the server, so that no server can exist
	// without one.
	if err := c.startWatchdog(); err != nil {
		return nil, err
	}

	// The free port is only free when we look; another process can take
	// it before the server binds it, so a failed start is retried on a
	// new port.
	for attempt := 1; ; attempt++ {
		c.port, err = freePort()
		if err != nil {
			return nil, err
		}
		err = c.start(ctx)
		if err == nil {
			return c, nil
		}
		err = fmt.Errorf("%w\nlast lines of the server log:\n%s", err, c.logTail())
		if attempt == 3 {
			return nil, err
		}
	}
}

// start starts the server of the cluster's data directory on c.port.
func (c *cluster) start(ctx context.Context) error {
	// pg_ctl hands these options to the server through /bin/sh, so the
	// socket directory is quoted in case the temp dir has spaces in its
	// path.
	opts := fmt.Sprintf("-p %d -k '%s' -c listen_addresses=127.0.0.1"+
		" -c fsync=off -c synchronous_commit=off -c full_page_writes=off"+
		" -c max_connections=300", c.port, filepath.Join(c.base, "sock"))
	for _, s := range c.settings {
		opts += " -c '" + s + "'"
	}
	return c.run(ctx, c.pgCtl, "-D", c.data, "-o", opts, "-w", "-t", "60", "-l", c.logFile, "start")
}

// halt stops the server as an operator would (pg_ctl stop -m fast: the
// sessions are ended, the data kept), so that start can start it again.
func (c *cluster) halt(ctx context.Context) error {
	return c.run(ctx, c.pgCtl, "-D", c.data, "-m", "fast", "-w", "stop")
}

// stop stops the server (if it is running) and removes the directory.
func (c *cluster) stop() error {
	var errs []error
	if _, err := os.Stat(filepath.Join(c.data, "postmaster.pid")); err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		// Immediate mode: the data is thrown away anyway, so there is
		// no point in a shutdown checkpoint.
		if err := c.run(ctx, c.pgCtl, "-D", c.data, "-m", "immediate", "-w", "stop"); err != nil {
			errs = append(errs, err)
		}
	}
	if err := os.RemoveAll(c.base); err != nil {
		errs = append(errs, fmt.Errorf("removing the cluster directory: %w", err))
	}
	// The watchdog wakes up, finds the data directory gone and exits.
	if c.watchdog != nil {
		c.watchdog.Close()
		c.watchdog = nil
	}
	return errors.Join(errs...)
}

// watchdogScript waits until the pipe on fd 3 reports end of file, which
// happens when the test process has exited or closed its end (after its
// own clean stop), and then stops the cluster if it is still there. $1 is
// the data directory, $2 pg_ctl and $3 the directory to remove.
const watchdogScript = `read _ <&3
if [ -d "$1" ]; then "$2" -D "$1" -m immediate -w stop; fi
rm -rf "$3"`

// startWatchdog starts a detached shell that stops the cluster when this
// process dies. Main stops the cluster on a normal end or on SIGINT or
// SIGTERM, but a panicking test, a -timeout or SIGKILL exit without running
// any of our code; the server, being in its own session, would live on.
func (c *cluster) startWatchdog() error {
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("creating the watchdog pipe: %w", err)
	}
	defer r.Close() // The watchdog has its own copy.
	cmd := exec.Command("/bin/sh", "-c", watchdogScript, "testdb-watchdog", c.data, c.pgCtl, c.base)
	cmd.Dir = c.base
	cmd.ExtraFiles = []*os.File{r}
	// Its own session, so that a Ctrl-C sent to the terminal's process
	// group does not kill it before it could act. It leaves stdin, stdout
	// and stderr at /dev/null: holding go test's output pipe open would
	// make go test wait for it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Credential: c.cred}
	if err := cmd.Start(); err != nil {
		w.Close()
		return fmt.Errorf("starting the watchdog /bin/sh: %w", err)
	}
	c.watchdog = w
	return nil
}

// run runs a PostgreSQL program as the server's user and returns an error
// naming the command and holding its output if it fails.
func (c *cluster) run(ctx context.Context, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	// The postgres user may not be able to enter the test's working
	// directory, and initdb and pg_ctl complain about that.
	cmd.Dir = c.base
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
	return nil
}

// logTail returns the last lines of the server log, which say why a
// server did not start.
func (c *cluster) logTail() string {
	b, err := os.ReadFile(c.logFile)
	if err != nil {
		return fmt.Sprintf("(no server log: %v)", err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 20 {
		lines = lines[len(lines)-20:]
	}
	return strings.Join(lines, "\n")
}

// findBinaries looks for initdb and pg_ctl, first on PATH, then in the
// newest of the versioned directories under /usr/lib/postgresql. Both come
// from the same directory where possible, since they must match the
// server's version.
func findBinaries() (initdb, pgCtl, version string, err error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		if c := filepath.Join(filepath.Dir(p), "pg_ctl"); isExecutable(c) {
			return p, c, versionOf(p), nil
		}
		if c, err := exec.LookPath("pg_ctl"); err == nil {
			return p, c, versionOf(p), nil
		}
	}
	dirs, _ := filepath.Glob(pgLibGlob)
	slices.SortFunc(dirs, func(a, b string) int { // Newest first.
		return compareVersions(filepath.Base(filepath.Dir(b)), filepath.Base(filepath.Dir(a)))
	})
	for _, d := range dirs {
		i, c := filepath.Join(d, "initdb"), filepath.Join(d, "pg_ctl")
		if isExecutable(i) && isExecutable(c) {
			return i, c, versionOf(i), nil
		}
	}
	return "", "", "", fmt.Errorf("%w: initdb and pg_ctl not found on PATH or in %s, and %s is not set",
		errUnavailable, pgLibGlob, EnvPostgresURL)
}

// versionOf names the PostgreSQL version of a binary by its directory,
// e.g. "PostgreSQL 15" for /usr/lib/postgresql/15/bin/initdb.
func versionOf(binary string) string {
	dir := filepath.Dir(binary)
	if filepath.Base(dir) == "bin" {
		if v := filepath.Base(filepath.Dir(dir)); v != "" && v[0] >= '0' && v[0] <= '9' {
			return "PostgreSQL " + v
		}
	}
	return "PostgreSQL from " + dir
}

// compareVersions compares dotted version numbers such as "9.6" and "15"
// numerically, so that 15 is newer than 9.6.
func compareVersions(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) || i < len(bs); i++ {
		var x, y int
		if i < len(as) {
			x, _ = strconv.Atoi(as[i])
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if x != y {
			return x - y
		}
	}
	return 0
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// serverCredential returns the user to run initdb and pg_ctl as: nil (this
// process's user) unless we are root, which both refuse to run as. Then it
// is the postgres user if there is one, else nobody.
func serverCredential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
		gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
		if err1 != nil || err2 != nil {
			continue
		}
		// With no Groups listed, root's supplementary groups are
		// dropped too.
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
	}
	return nil, errors.New("running as root, which initdb refuses, and there is no postgres or nobody user to run it as")
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

// crash stops the server with pg_ctl stop -m immediate: no shutdown
// checkpoint, so that it must recover from its WAL, as after a power cut.
func (c *cluster) crash(ctx context.Context) error {
	return c.run(ctx, c.pgCtl, "-D", c.data, "-m", "immediate", "-w", "stop")
}

// own hands path, and everything below it, to the server's user.
func (c *cluster) own(path string) error {
	if c.cred == nil {
		return nil
	}
	return filepath.WalkDir(path, func(p string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, int(c.cred.Uid), int(c.cred.Gid))
	})
}

func (c *cluster) binDir() string { return filepath.Dir(c.pgCtl) }

func (c *cluster) dataDir() string { return c.data }
