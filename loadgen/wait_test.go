package loadgen

import (
	"testing"
	"time"

	"github.com/trigger-test/trigger/internal/testwait"
)

// waitFor polls cond every 10*time.Millisecond until it holds, or fails the test after
// timeout saying what it waited for (testwait.For).
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	testwait.For(t, timeout, 10*time.Millisecond, what, cond)
}

// receive waits for the value on ch, or fails the test after timeout
// (testwait.Receive).
func receive[T any](t *testing.T, ch <-chan T, timeout time.Duration, what string) T {
	t.Helper()
	return testwait.Receive(t, ch, timeout, what)
}
