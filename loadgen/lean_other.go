//go:build !unix

package loadgen

import "syscall"

// peekAlive cannot peek here: an idle connection is assumed open, and a
// request on one the server closed fails (or is replayed if idempotent).
func peekAlive(raw syscall.RawConn) bool { return true }

// send writes a request's bytes (sent is for the caller's bookkeeping; the
// caller releases b after send returns).
func (c *leanConn) send(b []byte, sent func()) error {
	_, err := c.Conn.Write(b)
	return err
}
