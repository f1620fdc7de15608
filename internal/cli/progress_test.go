package cli

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/runner"
)

// The status line names the classes of the second's failures and, for a
// mix, each request's first-attempt success (– when none completed), at
// most maxRequestsShown of them.
func TestFormatStatus(t *testing.T) {
	st := runner.Status{Phase: analysis.PhaseObserve, Elapsed: 75 * time.Second, RatePerS: 50, Attempts: 80, Failed: 12,
		Timeouts: 10, Errors: 2, Auth: 2, SuccessRatio: 0.76, WaitS: math.NaN(),
		Requests: []runner.RequestStatus{{Name: "quote", SuccessRatio: 0.7}, {Name: "search", SuccessRatio: 1}, {Name: "order", SuccessRatio: math.NaN()}, {Name: "a", SuccessRatio: 1}, {Name: "b", SuccessRatio: 1}}}
	got := formatStatus(st)
	for _, want := range []string{"[observe] 1:15", "failed   12/s (timeout 10, auth 2)", "first ok  76.0%",
		"ok by request: quote 70% search 100% order – a 100% +1 more"} {
		if !strings.Contains(got, want) {
			t.Errorf("status line %q lacks %q", got, want)
		}
	}
	st.Requests = nil
	if got := formatStatus(st); strings.Contains(got, "by request") {
		t.Errorf("single request: %q", got)
	}
}
