//go:build unix

package loadgen

import "syscall"

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
