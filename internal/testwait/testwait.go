// Package testwait bounds the waits of tests: a test that waits for a
// condition or a value gives up after a generous timeout, saying what it
// waited for, instead of hanging. The bound is no timing assertion; it
// only stops a test that would otherwise wait forever.
package testwait

import (
	"testing"
	"time"
)

// For polls cond every poll until it holds, failing t after timeout with
// what it waited for.
func For(t testing.TB, timeout, poll time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %s waiting for %s", timeout, what)
		}
		time.Sleep(poll)
	}
}

// Receive waits for the value on ch, failing t after timeout with what it
// waited for.
func Receive[T any](t testing.TB, ch <-chan T, timeout time.Duration, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(timeout):
		t.Fatalf("gave up after %s waiting for %s", timeout, what)
		panic("unreachable")
	}
}
