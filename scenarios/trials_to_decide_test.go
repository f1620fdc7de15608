package scenarios

import (
	"testing"

	"github.com/trigger-test/trigger/analysis"
)

// The closed form is the sequential rule's own count: equal to
// analysis.MinTrialsToDecide, which settles it on SequentialSide, at
// every level from 0.001 to 0.999 and a few off it.
func TestTrialsToDecideIsTheSequentialRules(t *testing.T) {
	levels := []float64{0, 1, 1e-6, 0.05, 0.5, 0.95, 1 - 1e-6, 0.25, 1.0 / 3}
	for i := 1; i < 1000; i++ {
		levels = append(levels, float64(i)/1000)
	}
	for _, level := range levels {
		b, a := TrialsToDecide(level)
		wb, wa := analysis.MinTrialsToDecide(level)
		if b != wb || a != wa {
			t.Errorf("level %g: %d below, %d above; the sequential rule's %d, %d", level, b, a, wb, wa)
		}
	}
	if b, a := TrialsToDecide(0.05); b != 42 || a != 2 {
		t.Errorf("0.05: %d below, %d above; want 42, 2", b, a)
	}
}
