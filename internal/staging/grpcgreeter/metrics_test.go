package grpcgreeter

import (
	"testing"

	"google.golang.org/grpc/metadata"
)

// The attempt label: x-attempt as trigger sends it, and grpc-go's own
// retries by grpc-previous-rpc-attempts.
func TestAttemptKind(t *testing.T) {
	for _, tc := range []struct {
		md   metadata.MD
		want string
	}{
		{metadata.Pairs(), "first"},
		{metadata.Pairs("x-attempt", "1"), "first"},
		{metadata.Pairs("x-attempt", "junk"), "first"},
		{metadata.Pairs("x-attempt", "2"), "retry"},
		{metadata.Pairs("x-attempt", "0"), "tracer"},
		{metadata.Pairs("grpc-previous-rpc-attempts", "1"), "retry"},
		{metadata.Pairs("grpc-previous-rpc-attempts", "0", "x-attempt", "1"), "first"},
		{metadata.Pairs("grpc-previous-rpc-attempts", "2", "x-attempt", "1"), "retry"},
	} {
		if got := attemptKind(tc.md); got != tc.want {
			t.Errorf("attemptKind(%v) = %q; want %q", tc.md, got, tc.want)
		}
	}
}
