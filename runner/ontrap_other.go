//go:build !unix

package runner

import "os/exec"

// killGroupOnCancel kills only the direct child where process groups are
// not available; cmd.WaitDelay still bounds the wait for its output.
func killGroupOnCancel(*exec.Cmd) {}
