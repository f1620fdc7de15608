//go:build unix

package loadgen

import "syscall"

// control sets SO_LINGER {on, 0} on the socket before it connects, so that
// closing it sends a reset and leaves no TIME_WAIT.
func (d *dialer) control(network, address string, c syscall.RawConn) error {
	if !d.linger0 {
		return nil
	}
	var serr error
	err := c.Control(func(fd uintptr) {
		serr = syscall.SetsockoptLinger(int(fd), syscall.SOL_SOCKET, syscall.SO_LINGER, &syscall.Linger{Onoff: 1, Linger: 0})
	})
	if err != nil {
		return err
	}
	return serr
}
