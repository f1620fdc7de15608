//go:build unix

package loadgen

import (
	"bytes"
	"net"
	"os"
	"syscall"
)

// peekAlive peeks at the socket without blocking: would-block means open
// and idle; EOF, an error or unexpected bytes mean it cannot be reused.
func peekAlive(raw syscall.RawConn) bool {
	alive := false
	err := raw.Read(func(fd uintptr) bool {
		var b [1]byte
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		alive = n < 0 && (err == syscall.EAGAIN || err == syscall.EWOULDBLOCK)
		return true // never wait
	})
	return err == nil && alive
}

// send writes a request's bytes and returns once the connection is
// readable (its response, or the server's close, has begun to arrive), on
// the connection's deadline, or on an error; it gives buf back to bufs as
// soon as it is written (an attempt waiting out a timeout holds no copy of
// its request). The write is made inside the poller's read wait, so the
// socket is not read before anything can have arrived: the usual
// write-then-read costs a read that finds nothing (EAGAIN) before the
// wait, a syscall per attempt that this one saves. The read readiness is
// reset before the write, so a response arriving at any moment after it is
// seen; readiness from before it is lost, which is why idle connections
// are peeked at (alive) before they are reused. A short write (a full send
// buffer) finishes through the connection's own Write, and the read then
// waits as usual.
func (c *leanConn) send(buf *bytes.Buffer, bufs *requestBuffers) error {
	defer func() {
		if buf != nil { // not yet given back: an error, or a short write
			bufs.put(buf)
		}
	}()
	if c.raw == nil {
		_, err := c.Conn.Write(buf.Bytes())
		return err
	}
	b := buf.Bytes()
	var werr error
	wrote := false
	rerr := c.raw.Read(func(fd uintptr) bool {
		if wrote {
			return true // readable
		}
		wrote = true
		for len(b) > 0 {
			n, err := syscall.Write(int(fd), b)
			switch {
			case err == syscall.EINTR:
				continue
			case err == syscall.EAGAIN || err == syscall.EWOULDBLOCK:
				return true // the rest through Write, below
			case err != nil:
				werr = &net.OpError{Op: "write", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: os.NewSyscallError("write", err)}
				return true
			}
			b = b[n:]
		}
		bufs.put(buf)
		buf = nil
		return false // wait until readable
	})
	switch {
	case werr != nil:
		return werr
	case len(b) > 0 && rerr == nil:
		_, err := c.Conn.Write(b)
		return err
	}
	return rerr
}
