//go:build unix

package loadgen

import (
	"fmt"
	"syscall"
)

// RaiseFDLimit raises this process's soft limit on open file descriptors
// (RLIMIT_NOFILE) to its hard limit and returns both as they are
// afterwards, in descriptors. Every attempt or tracer in flight holds one
// descriptor (its connection), so the soft limit bounds MaxInFlight (see
// Bounds). Go raises the limit the same way at startup on most Unix
// systems; calling it again is harmless. When the raise is refused (macOS
// refuses an unlimited hard limit) the limits are those left unchanged and
// err says why; when they cannot be read, both are 0.
func RaiseFDLimit() (soft, hard uint64, err error) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, 0, fmt.Errorf("loadgen: reading the open-file limit: %w", err)
	}
	if r.Cur < r.Max {
		want := r
		want.Cur = r.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want); err != nil {
			return uint64(r.Cur), uint64(r.Max), fmt.Errorf("loadgen: raising the open-file limit from %d to %d: %w", uint64(r.Cur), uint64(r.Max), err)
		}
		r = want
	}
	return uint64(r.Cur), uint64(r.Max), nil
}
