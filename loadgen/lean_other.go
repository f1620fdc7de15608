//go:build !unix

package loadgen

import "syscall"

// peekAlive cannot peek here: an idle connection is assumed open, and a
// request on one the server closed fails (or is replayed if idempotent).
func peekAlive(raw syscall.RawConn) bool { return true }

// send writes a request's bytes.
func (c *leanConn) send(b []byte) error {
	_, err := c.Conn.Write(b)
	return err
}
