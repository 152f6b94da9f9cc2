// Package teststripe gives tests a stripe-mock server (github.com/stripe/stripe-mock) to point a Stripe client
// at, without Docker and without the network once the binary is installed.
//
// The stripe-mock binary is, in order of preference:
//
//  1. the file named by VALUATOR_STRIPE_MOCK;
//  2. stripe-mock in `go env GOBIN` or in the bin directory of each `go env GOPATH` entry;
//  3. stripe-mock in Valuator's directory under os.UserCacheDir(), installed there by this package with
//     `go install github.com/stripe/stripe-mock@v0.203.0` the first time no other is found. The install runs
//     once per process, under a file lock, so that the test binaries `go test ./...` runs in parallel do not
//     install it over each other.
//
// A binary found in the first two places is used whatever its version: stripe-mock built by `go install` reports
// its version as "master", so there is nothing to check. An older one may lack endpoints or parameters of the API
// version stripe-go sends, which shows up as 400 or 404 answers in the tests.
//
// When no binary can be found or installed, or it does not start, tests that ask for stripe-mock are skipped,
// unless VALUATOR_TEST_REQUIRE_STRIPE=1 is set (as CI does), in which case they fail, so that a missing mock can
// never silently skip the Stripe tests. A VALUATOR_STRIPE_MOCK that names no executable always fails: that is a
// configuration mistake, which a skip would hide.
//
// stripe-mock is stateless: it checks each request against Stripe's OpenAPI spec and answers with fixture
// objects (reflecting some of the parameters sent). It keeps nothing between requests, declines no card, computes
// no proration and sends no webhooks; tests must not expect it to.
package teststripe

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// Environment variables that control where stripe-mock comes from.
const (
	// EnvStripeMock names a stripe-mock binary to use.
	EnvStripeMock = "VALUATOR_STRIPE_MOCK"
	// EnvRequireStripe, set to "1", turns "stripe-mock not available" from a skip into a failure.
	EnvRequireStripe = "VALUATOR_TEST_REQUIRE_STRIPE"
)

// Module and Version are what this package installs when it finds no stripe-mock. v0.203.0 bundles the OpenAPI
// spec of the 2026 "dahlia" API versions, the release train of the stripe-go version stripepay uses.
const (
	Module  = "github.com/stripe/stripe-mock"
	Version = "v0.203.0"
)

// installTimeout bounds `go install`, which downloads and compiles stripe-mock the first time.
const installTimeout = 5 * time.Minute

// errUnavailable marks the reasons that mean "there is no stripe-mock here" (which skips tests), as opposed to a
// configuration that names a binary that does not exist (which fails them).
var errUnavailable = errors.New("stripe-mock not available")

var (
	binaryOnce sync.Once
	binaryPath string
	binaryErr  error
	binaryDesc string
)

// Start starts a stripe-mock server for this test and returns its base URL, http://127.0.0.1:PORT, for a Stripe
// client's API base. The server is killed when the test's cleanups run. Each call starts its own server: since
// stripe-mock keeps no state, sharing one would save only its half-second start, and one per call ties the
// server's lifetime to the test's.
//
// When stripe-mock cannot be found, installed or started, Start skips the test, or fails it if
// VALUATOR_TEST_REQUIRE_STRIPE=1.
func Start(t testing.TB) string {
	t.Helper()
	bin, err := binary()
	if err == nil {
		var m *mock
		if m, err = startMock(bin); err == nil {
			t.Cleanup(func() {
				if err := m.stop(); err != nil {
					t.Errorf("teststripe: %v", err)
				}
			})
			return m.url
		}
		err = fmt.Errorf("%w: %v", errUnavailable, err)
	}
	if errors.Is(err, errUnavailable) && os.Getenv(EnvRequireStripe) != "1" {
		t.Skip("teststripe: " + err.Error())
	}
	if errors.Is(err, errUnavailable) {
		t.Fatalf("teststripe: %v (and %s=1 requires it)", err, EnvRequireStripe)
	}
	t.Fatalf("teststripe: %v", err)
	return ""
}

// Available reports whether a stripe-mock binary can be had. If it can, the string says which one (for logging);
// if not, it says why. The first call may install stripe-mock, since only trying tells whether that works.
func Available() (bool, string) {
	if _, err := binary(); err != nil {
		return false, err.Error()
	}
	return true, binaryDesc
}

// binary finds or installs stripe-mock once per process; every later call gets the same binary, or the same
// error.
func binary() (string, error) {
	binaryOnce.Do(func() { binaryPath, binaryDesc, binaryErr = findBinary() })
	return binaryPath, binaryErr
}

// exeName is the binary's file name, which has a suffix on Windows.
func exeName() string {
	if runtime.GOOS == "windows" {
		return "stripe-mock.exe"
	}
	return "stripe-mock"
}

func findBinary() (path, desc string, err error) {
	if p := os.Getenv(EnvStripeMock); p != "" {
		if !isExecutable(p) {
			return "", "", fmt.Errorf("%s=%s is not an executable file", EnvStripeMock, p)
		}
		return p, fmt.Sprintf("%s from %s", p, EnvStripeMock), nil
	}

	goTool, goErr := exec.LookPath("go")
	if goErr == nil {
		dirs, err := goBinDirs(goTool)
		if err == nil {
			for _, dir := range dirs {
				if p := filepath.Join(dir, exeName()); isExecutable(p) {
					return p, p + " (installed with go install)", nil
				}
			}
		}
	}

	cache, err := cacheDir()
	if err != nil {
		return "", "", fmt.Errorf("%w: it is not installed and there is no cache directory to install it in: %v",
			errUnavailable, err)
	}
	p := filepath.Join(cache, exeName())
	if isExecutable(p) {
		return p, p + " (installed by teststripe)", nil
	}
	if goErr != nil {
		return "", "", fmt.Errorf("%w: %s is not set, stripe-mock is in no Go bin directory, and it cannot be "+
			"installed without the go command: %v", errUnavailable, EnvStripeMock, goErr)
	}
	start := time.Now()
	if err := install(goTool, cache); err != nil {
		return "", "", fmt.Errorf("%w: %s is not set, stripe-mock is in no Go bin directory, and %v",
			errUnavailable, EnvStripeMock, err)
	}
	return p, fmt.Sprintf("%s (installed by teststripe in %v)", p, time.Since(start).Round(time.Millisecond)), nil
}

// goBinDirs are the directories `go install` puts binaries in: GOBIN if set, and the bin directory of every
// GOPATH entry (where an earlier `go install` without GOBIN put it).
func goBinDirs(goTool string) ([]string, error) {
	out, err := exec.Command(goTool, "env", "GOBIN", "GOPATH").Output()
	if err != nil {
		return nil, fmt.Errorf("go env: %w", err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\r\n"), "\n")
	var dirs []string
	if len(lines) > 0 && strings.TrimSpace(lines[0]) != "" {
		dirs = append(dirs, strings.TrimSpace(lines[0]))
	}
	if len(lines) > 1 {
		for _, p := range filepath.SplitList(strings.TrimSpace(lines[1])) {
			if p != "" {
				dirs = append(dirs, filepath.Join(p, "bin"))
			}
		}
	}
	return dirs, nil
}

// cacheDir is where this package installs stripe-mock, one directory per version, so that a new Version is
// installed next to the old one rather than mistaken for it.
func cacheDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "valuator", "stripe-mock-"+Version), nil
}

// install runs `go install Module@Version` into dir. It holds a lock file in dir meanwhile and looks for the
// binary again once it has the lock, so that of several test processes one installs and the others use its
// result. The binary is installed into a temporary directory and renamed into place, because `go install`
// copies it into GOBIN in place and a process that looks without the lock must never see half a file.
func install(goTool, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %v", dir, err)
	}
	unlock, err := lockFile(filepath.Join(dir, "install.lock"))
	if err != nil {
		return fmt.Errorf("locking %s: %v", dir, err)
	}
	defer unlock()
	final := filepath.Join(dir, exeName())
	if isExecutable(final) {
		return nil
	}

	tmp, err := os.MkdirTemp(dir, "install-")
	if err != nil {
		return fmt.Errorf("creating a directory to install into: %v", err)
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, goTool, "install", Module+"@"+Version)
	// Outside any module, so that the go.mod or go.work of the directory the tests run in plays no part.
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GOBIN="+tmp)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("go install %s@%s did not finish within %v:\n%s", Module, Version, installTimeout,
				tail(out.String()))
		}
		return fmt.Errorf("go install %s@%s failed (%v):\n%s", Module, Version, err, tail(out.String()))
	}
	if err := os.Rename(filepath.Join(tmp, exeName()), final); err != nil {
		return fmt.Errorf("moving the installed stripe-mock into place: %v", err)
	}
	return nil
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	return runtime.GOOS == "windows" || fi.Mode().Perm()&0o111 != 0
}

// tail is the last lines of a command's output, enough to show why it failed.
func tail(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > 20 {
		lines = lines[len(lines)-20:]
	}
	return strings.Join(lines, "\n")
}
