//go:build !unix

package loadgen

import "syscall"

// control is a no-op where SO_LINGER cannot be set through syscall.
func (d *dialer) control(network, address string, c syscall.RawConn) error { return nil }
