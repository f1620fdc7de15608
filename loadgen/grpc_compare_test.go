package loadgen

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/trigger-test/trigger/retry"
	"github.com/trigger-test/trigger/vocab"
)

// TestGRPCRetriesMatchGRPCGo: the same calls, made through grpc-go's own
// retry policy (a service config's retryPolicy, maxAttempts 3) and
// through the driver with the equivalent retry.Policy (MaxRetries 2 on
// the same classes), against a server that fails the first k attempts of
// each call (k = the message's n, counted by x-request-id), take as many
// attempts per call: under UNAVAILABLE; under DEADLINE_EXCEEDED reported
// by the server (a per-attempt timeout in front of it); and under the
// call's own deadline passing, which grpc-go never retries (its deadline
// covers the whole call: the driver's Retry.Deadline equal to its
// timeout); and under UNAVAILABLE with a negative grpc-retry-pushback-ms
// (never retried).
func TestGRPCRetriesMatchGRPCGo(t *testing.T) {
	const maxK = 4
	cases := []struct {
		name      string
		fail      grpcAnswer // the first k attempts' answer
		retryable string     // grpc-go's retryableStatusCodes
		on        retry.OutcomeSet
		timeout   time.Duration // the call's deadline
		deadline  time.Duration // the driver's Retry.Deadline
		want      func(k int) int
	}{
		{"unavailable", grpcAnswer{code: codes.Unavailable}, `"UNAVAILABLE"`, retry.NewOutcomeSet(vocab.Outcome503),
			5 * time.Second, 0, func(k int) int { return min(k+1, 3) }},
		{"deadline exceeded reported", grpcAnswer{code: codes.DeadlineExceeded}, `"DEADLINE_EXCEEDED"`, retry.NewOutcomeSet(vocab.OutcomeTimeout),
			5 * time.Second, 0, func(k int) int { return min(k+1, 3) }},
		{"negative pushback", grpcAnswer{code: codes.Unavailable, trailer: metadata.Pairs(pushbackKey, "-1")}, `"UNAVAILABLE"`, retry.NewOutcomeSet(vocab.Outcome503),
			5 * time.Second, 0, func(k int) int { return 1 }},
		{"call deadline passed", grpcAnswer{wait: time.Minute}, `"UNAVAILABLE","DEADLINE_EXCEEDED"`, retry.NewOutcomeSet(vocab.Outcome503, vocab.OutcomeTimeout),
			100 * time.Millisecond, 100 * time.Millisecond, func(k int) int { return 1 }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := startGRPCServer(t, func(c grpcCall) grpcAnswer {
				if int64(c.attempt) <= c.msg.Get(c.msg.Descriptor().Fields().ByName("n")).Int() {
					return tc.fail
				}
				return grpcAnswer{}
			})
			desc := testReqDesc(t)

			// grpc-go's own retries.
			sc := fmt.Sprintf(`{"methodConfig":[{"name":[{"service":"tt.Svc"}],"retryPolicy":{"maxAttempts":3,
				"initialBackoff":"0.01s","maxBackoff":"0.05s","backoffMultiplier":2,"retryableStatusCodes":[%s]}}]}`, tc.retryable)
			cc, err := grpc.NewClient("passthrough:///"+s.addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
				grpc.WithDefaultServiceConfig(sc))
			if err != nil {
				t.Fatal(err)
			}
			defer cc.Close()
			grpcGo := map[int][]int{} // attempts per call, by k
			for k := 0; k <= maxK; k++ {
				for i := range 3 {
					id := fmt.Sprintf("g-%d-%d", k, i)
					msg := dynamicpb.NewMessage(desc)
					msg.Set(desc.Fields().ByName("n"), protoInt(int64(k)))
					ctx, cancel := context.WithTimeout(metadata.AppendToOutgoingContext(context.Background(), "x-request-id", id), tc.timeout)
					_ = cc.Invoke(ctx, testMethod, msg, dynamicpb.NewMessage(desc))
					cancel()
					grpcGo[k] = append(grpcGo[k], len(s.calls()[id]))
				}
			}

			// The driver, a mix of the same messages.
			var mix []Request
			for k := 0; k <= maxK; k++ {
				r := grpcReq(t, s, fmt.Sprintf(`{"n":%d}`, k))
				r.Name, r.Weight = fmt.Sprint("k", k), 1
				mix = append(mix, r)
			}
			d := runDriver(t, Config{
				Mix: mix, Stages: []Stage{Constant(300*time.Millisecond, 100)}, Arrivals: vocab.Uniform, Seed: 5,
				Timeout: tc.timeout,
				Retry: retry.Policy{MaxRetries: 2, On: tc.on, Deadline: tc.deadline,
					Backoff: retry.Backoff{Kind: vocab.BackoffExponential, Base: 10 * time.Millisecond, Max: 50 * time.Millisecond, Jitter: vocab.JitterFull}},
			})
			checkAccounting(t, d)
			driver := map[int][]int{}
			for id, cs := range s.calls() {
				if id[0] == 'g' {
					continue
				}
				k := int(cs[0].msg.Get(cs[0].msg.Descriptor().Fields().ByName("n")).Int())
				driver[k] = append(driver[k], len(cs))
			}
			for k := 0; k <= maxK; k++ {
				g, dr := slices.Compact(slices.Sorted(slices.Values(grpcGo[k]))), slices.Compact(slices.Sorted(slices.Values(driver[k])))
				if len(dr) == 0 {
					t.Errorf("k=%d: the driver sent no such call", k)
					continue
				}
				if !slices.Equal(g, dr) || len(g) != 1 || g[0] != tc.want(k) {
					t.Errorf("k=%d: attempts per call: grpc-go %v, driver %v; want %d", k, g, dr, tc.want(k))
				}
			}
		})
	}
}

func protoInt(n int64) protoreflect.Value { return protoreflect.ValueOfInt64(n) }
