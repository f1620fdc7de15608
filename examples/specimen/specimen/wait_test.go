package specimen

import (
	"testing"
	"time"
)

// waitFor polls cond every millisecond until it holds. The bound is
// generous and no timing assertion: it only stops a test that would
// otherwise wait forever, failing it with what it waited for.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %s waiting for %s", timeout, what)
		}
		time.Sleep(time.Millisecond)
	}
}

// receive waits for the value on ch, failing the test after timeout with
// what it waited for.
func receive[T any](t *testing.T, ch <-chan T, timeout time.Duration, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(timeout):
		t.Fatalf("gave up after %s waiting for %s", timeout, what)
		panic("unreachable")
	}
}
