package analysis

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// A proportion of no trials encodes (p null) with plain encoding/json, as
// a trials or campaign document does, and reads back as NaN; a proportion
// of some trials reads back as it was written, rounded.
func TestProportionJSON(t *testing.T) {
	for _, tc := range []struct {
		k, n int
		want string
	}{
		{0, 0, `{"count":0,"of":0,"p":null,"lo":0,"hi":1}`},
		{1, 3, `{"count":1,"of":3,"p":0.333333,"lo":0.0614919,"hi":0.79234}`},
	} {
		p := NewProportion(tc.k, tc.n)
		b, err := json.Marshal(struct{ X Proportion }{p})
		if err != nil {
			t.Fatalf("%d of %d: %v", tc.k, tc.n, err)
		}
		if got := string(b); !strings.Contains(got, tc.want) {
			t.Errorf("%d of %d: %s, want %s", tc.k, tc.n, got, tc.want)
		}
		var back struct{ X Proportion }
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if back.X.Count != tc.k || back.X.Of != tc.n || math.IsNaN(back.X.P) != (tc.n == 0) {
			t.Errorf("%d of %d read back as %+v", tc.k, tc.n, back.X)
		}
	}
}
