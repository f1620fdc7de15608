package cli

import "context"

type hurryKey struct{}

// WithHurry returns ctx carrying hurry, a channel closed on the second
// interrupt: a stopping run then stops waiting (for late metrics, the
// driver, an on_trap command) and writes what it measured at once.
func WithHurry(ctx context.Context, hurry <-chan struct{}) context.Context {
	return context.WithValue(ctx, hurryKey{}, hurry)
}

// hurryOf is the channel WithHurry put in ctx; nil (never closed) if none.
func hurryOf(ctx context.Context) <-chan struct{} {
	h, _ := ctx.Value(hurryKey{}).(<-chan struct{})
	return h
}
