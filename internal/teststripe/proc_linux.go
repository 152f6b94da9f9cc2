//go:build linux

package teststripe

import (
	"os/exec"
	"syscall"
)

// setParentDeathSignal makes the kernel kill stripe-mock when the test process dies, however it dies: a panic, a
// -timeout or SIGKILL run none of our cleanups. (Strictly, the signal comes when the thread that started the
// child exits; the Go runtime only ends threads that a goroutine locked and left locked, which nothing here
// does.)
func setParentDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
