package trials

import (
	"slices"
	"testing"

	"github.com/trigger-test/trigger/convert"
)

// Trial folders sort in trial order whatever N: trial 100 of 1000 after
// trial 11.
func TestTrialFolderSortsInOrder(t *testing.T) {
	for _, n := range []int{2, 10, 99, 100, 1000} {
		var names []string
		for i := 1; i <= n; i++ {
			names = append(names, trialFolder(i, n, uint64(i)))
		}
		if !slices.IsSorted(names) {
			t.Errorf("%d trials: folders do not sort in trial order (%s … %s)", n, names[0], names[n-1])
		}
	}
	if got := trialFolder(7, 10, 7); got != "trial-07-seed7" {
		t.Errorf("trial 7 of 10: %s", got)
	}
}

// A trial's run posts no webhook; the series' test keeps its own.
func TestTrialRunsPostNoWebhook(t *testing.T) {
	test := &convert.Test{Run: convert.Run{Notify: &convert.Notify{Webhook: "https://hooks.example/x"}}}
	if got := withoutWebhook(test); got.Run.Notify != nil {
		t.Error("the trial's run keeps the webhook")
	}
	if test.Run.Notify == nil {
		t.Error("the series' own test lost its webhook")
	}
}
