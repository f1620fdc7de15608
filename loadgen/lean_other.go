//go:build !unix

package loadgen

import "syscall"

// peekAlive cannot peek here: an idle connection is assumed open, and a
// request on one the server closed fails (or is replayed if idempotent).
func peekAlive(raw syscall.RawConn) bool { return true }
