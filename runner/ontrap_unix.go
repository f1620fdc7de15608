//go:build unix

package runner

import (
	"os/exec"
	"syscall"
)

// killGroupOnCancel makes cmd the leader of a new process group and, when
// its context is done, kills the whole group, not only the direct child.
func killGroupOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
