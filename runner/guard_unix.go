//go:build unix

package runner

import (
	"os/exec"
	"syscall"
)

// detach puts cmd in a session of its own: no terminal's signals (Ctrl-C,
// a hang-up) reach it, and the death of its parent's group leaves it.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

// killGroup kills the process group pgid (a command killGroupOnCancel
// started leads its own).
func killGroup(pgid int) {
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}
