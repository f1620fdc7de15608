package report

import (
	"math"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/trigger-test/trigger/analysis"
)

// setFloats sets every floating-point number reachable from v, whatever
// holds it (a float64 field, a *float64, a []float64 element, in nested
// structs, pointers and slices, which it allocates), to num(); it returns
// how many it set.
func setFloats(v reflect.Value, num func() float64) int {
	n := 0
	switch v.Kind() {
	case reflect.Float64:
		v.SetFloat(num())
		return 1
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		n += setFloats(v.Elem(), num)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		n += setFloats(v.Index(0), num)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				n += setFloats(v.Field(i), num)
			}
		}
	}
	return n
}

// A document whose every number is NaN, +Inf or −Inf is still written
// (as nulls): a run always leaves its result.json.
func TestWriteResultNonFinite(t *testing.T) {
	for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		doc := analysis.Document{Kind: "run", Verdict: analysis.VerdictTrapped}
		if n := setFloats(reflect.ValueOf(&doc).Elem(), func() float64 { return x }); n < 100 {
			t.Fatalf("%d numbers set: the walk misses fields", n)
		}
		path := filepath.Join(t.TempDir(), ResultFile)
		if err := WriteResult(path, doc); err != nil {
			t.Fatalf("%v everywhere: %v", x, err)
		}
		back, err := ReadResult(path)
		if err != nil {
			t.Fatalf("%v everywhere: reading back: %v", x, err)
		}
		if back.Kind != "run" || back.Verdict != analysis.VerdictTrapped || back.RecoveryS != nil ||
			back.Observation == nil || back.Observation.PeakWaitS != nil || back.Prediction.PeakWaitS != 0 {
			t.Errorf("%v everywhere: read back %+v", x, back)
		}
	}
}
