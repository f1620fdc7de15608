package runner

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"syscall"
)

// processGone reports whether process pid has ended: signal 0 finds no such
// process, or (where /proc says so) it is a zombie, dead and only waiting
// for its parent, here possibly init, to collect its status.
func processGone(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return true
	}
	defer p.Release()
	err = p.Signal(syscall.Signal(0))
	if errors.Is(err, os.ErrProcessDone) || errors.Is(err, syscall.ESRCH) {
		return true
	}
	if err != nil {
		return false // it exists, but may not be signalled (EPERM)
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return errors.Is(err, os.ErrNotExist) && dirExists("/proc/self")
	}
	// "pid (comm) state ...": the state follows the last ')'.
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'Z'
}

func dirExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// killProcess kills pid, if it can.
func killProcess(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
		_ = p.Release()
	}
}
