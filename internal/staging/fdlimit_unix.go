//go:build unix

package staging

import "syscall"

// hardFDLimit returns the hard RLIMIT_NOFILE of this process (inherited by
// its children), and whether it could be read.
func hardFDLimit() (uint64, bool) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, false
	}
	return uint64(r.Max), true
}
