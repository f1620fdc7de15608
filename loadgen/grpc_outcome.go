package loadgen

import (
	"strconv"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/trigger-test/trigger/retry"
	"github.com/trigger-test/trigger/vocab"
)

// ClassifyGRPC returns the outcome class of a gRPC status code, by the
// one table the scenario's retry.on aliases use too
// (vocab.GRPCCodeOutcome): OK is ok; DEADLINE_EXCEEDED a timeout;
// UNAVAILABLE 503 (grpc-go also reports a connection it could not make
// so, and a gRPC client retries both alike); RESOURCE_EXHAUSTED 429;
// UNAUTHENTICATED and PERMISSION_DENIED auth; INTERNAL, UNKNOWN and
// DATA_LOSS 5xx; every other code of the spec 4xx (the service refused the
// call as it was made); a code beyond the spec other.
func ClassifyGRPC(c codes.Code) vocab.Outcome { return vocab.GRPCCodeOutcome(uint32(c)) }

// grpcStatusLike is the HTTP status standing for a gRPC outcome where the
// driver wants one (answeredStatus: was it the service answering?): 200,
// 400, 401, 429, 503 or 500; 0 for a call with no answer (a timeout).
func grpcStatusLike(o vocab.Outcome) int {
	switch o {
	case vocab.OutcomeOK:
		return 200
	case vocab.Outcome4xx:
		return 400
	case vocab.OutcomeAuth:
		return 401
	case vocab.Outcome429:
		return 429
	case vocab.Outcome503:
		return 503
	case vocab.Outcome5xx:
		return 500
	}
	return 0
}

// pushbackKey is the trailer by which a gRPC server asks its clients to
// retry after a delay, or not at all.
const pushbackKey = "grpc-retry-pushback-ms"

// parsePushback reads the values of a grpc-retry-pushback-ms trailer: none
// is 0 (no word from the server); a whole number N ≥ 0 of milliseconds is
// that delay (as a Retry-After, honoured on RESOURCE_EXHAUSTED and
// UNAVAILABLE by the policy's retry_after; 0 is as Retry-After: 0); a
// negative or malformed value, or several values, is retry.DontRetry.
func parsePushback(vals []string) time.Duration {
	if len(vals) == 0 {
		return 0
	}
	if len(vals) > 1 {
		return retry.DontRetry
	}
	n, err := strconv.ParseInt(vals[0], 10, 64)
	if err != nil || n < 0 {
		return retry.DontRetry
	}
	if n >= int64(retry.MaxRetryAfter/time.Millisecond) {
		return retry.MaxRetryAfter
	}
	return time.Duration(n) * time.Millisecond
}
