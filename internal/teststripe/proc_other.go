//go:build !linux

package teststripe

import "os/exec"

// setParentDeathSignal does nothing off Linux, which has no parent-death signal: there a test process killed
// without running its cleanups leaves its stripe-mock running until it is killed by hand. It holds no data and
// listens on loopback only.
func setParentDeathSignal(cmd *exec.Cmd) {}
