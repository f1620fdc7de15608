package loadgen

import (
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/trigger-test/trigger/retry"
	"github.com/trigger-test/trigger/vocab"
)

// TestClassifyGRPC: every gRPC status code maps to its outcome class.
func TestClassifyGRPC(t *testing.T) {
	want := map[codes.Code]vocab.Outcome{
		codes.OK:                 vocab.OutcomeOK,
		codes.Canceled:           vocab.Outcome4xx,
		codes.Unknown:            vocab.Outcome5xx,
		codes.InvalidArgument:    vocab.Outcome4xx,
		codes.DeadlineExceeded:   vocab.OutcomeTimeout,
		codes.NotFound:           vocab.Outcome4xx,
		codes.AlreadyExists:      vocab.Outcome4xx,
		codes.PermissionDenied:   vocab.OutcomeAuth,
		codes.ResourceExhausted:  vocab.Outcome429,
		codes.FailedPrecondition: vocab.Outcome4xx,
		codes.Aborted:            vocab.Outcome4xx,
		codes.OutOfRange:         vocab.Outcome4xx,
		codes.Unimplemented:      vocab.Outcome4xx,
		codes.Internal:           vocab.Outcome5xx,
		codes.Unavailable:        vocab.Outcome503,
		codes.DataLoss:           vocab.Outcome5xx,
		codes.Unauthenticated:    vocab.OutcomeAuth,
		codes.Code(99):           vocab.OutcomeOther, // beyond the spec
	}
	for c, o := range want {
		if got := ClassifyGRPC(c); got != o {
			t.Errorf("ClassifyGRPC(%v) = %v, want %v", c, got, o)
		}
	}
}

// TestParsePushback: grpc-retry-pushback-ms N ≥ 0 is N ms; negative,
// malformed or repeated is retry.DontRetry; absent is 0.
func TestParsePushback(t *testing.T) {
	cases := []struct {
		vals []string
		want time.Duration
	}{
		{nil, 0},
		{[]string{"0"}, 0},
		{[]string{"250"}, 250 * time.Millisecond},
		{[]string{"-1"}, retry.DontRetry},
		{[]string{"soon"}, retry.DontRetry},
		{[]string{"1.5"}, retry.DontRetry},
		{[]string{""}, retry.DontRetry},
		{[]string{"1", "2"}, retry.DontRetry},
		{[]string{"99999999999999999"}, retry.MaxRetryAfter},
	}
	for _, c := range cases {
		if got := parsePushback(c.vals); got != c.want {
			t.Errorf("parsePushback(%q) = %v, want %v", c.vals, got, c.want)
		}
	}
}
