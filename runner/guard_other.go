//go:build !unix

package runner

import "os/exec"

// detach does nothing where sessions are not available.
func detach(*exec.Cmd) {}

// killGroup does nothing where process groups are not available.
func killGroup(int) {}
