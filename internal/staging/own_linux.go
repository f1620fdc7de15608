package staging

import (
	"os/exec"
	"syscall"
)

// ownChild makes the kernel kill the child if this process dies first, so
// that a crashed or killed test leaves no haproxy or prometheus behind.
// (Pdeathsig fires when the creating OS thread ends; Go's runtime keeps
// its threads unless a goroutine locked to one exits, which this package's
// callers do not do around a Start.)
func ownChild(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
