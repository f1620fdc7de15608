//go:build !unix

package loadgen

import (
	"bytes"
	"syscall"
)

// peekAlive cannot peek here: an idle connection is assumed open, and a
// request on one the server closed fails (or is replayed if idempotent).
func peekAlive(raw syscall.RawConn) bool { return true }

// send writes a request's bytes and gives buf back to bufs.
func (c *leanConn) send(buf *bytes.Buffer, bufs *requestBuffers) error {
	defer bufs.put(buf)
	_, err := c.Conn.Write(buf.Bytes())
	return err
}
