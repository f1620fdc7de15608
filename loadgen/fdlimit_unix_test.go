//go:build unix

package loadgen

import (
	"syscall"
	"testing"
)

// RaiseFDLimit lifts a lowered soft limit back to the hard limit.
func TestRaiseFDLimit(t *testing.T) {
	var orig syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &orig); err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { syscall.Setrlimit(syscall.RLIMIT_NOFILE, &orig) })
	low := orig
	low.Cur = min(orig.Max, 256)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Skip(err)
	}
	soft, hard, err := RaiseFDLimit()
	if err != nil {
		t.Skip(err) // macOS refuses an unlimited hard limit
	}
	var now syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &now); err != nil {
		t.Fatal(err)
	}
	if soft != hard || hard != uint64(orig.Max) || uint64(now.Cur) != soft {
		t.Errorf("RaiseFDLimit = %d, %d; the limit is now %d of %d, want the hard limit %d", soft, hard, uint64(now.Cur), uint64(now.Max), uint64(orig.Max))
	}
}
