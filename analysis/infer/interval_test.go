package infer

import (
	"math"
	"testing"
)

func TestMeanInterval(t *testing.T) {
	iv := meanInterval([]float64{9, 9.2, 8.8, 9.1, 8.9}, 1)
	// mean 9, sd 0.158, se 0.0707, t(4) = 2.776 → ±0.196
	if !near(iv.Value, 9, 1e-12) || !near(iv.Hi-iv.Value, 0.1963, 1e-3) || iv.N != 5 {
		t.Errorf("%+v", iv)
	}
	if wide := meanInterval([]float64{9, 9.2, 8.8, 9.1, 8.9}, 4); !near(wide.Hi-wide.Value, 4*(iv.Hi-iv.Value), 1e-9) {
		t.Errorf("inflated: %+v", wide)
	}
	if one := meanInterval([]float64{3, math.NaN()}, 1); one.Value != 3 || one.Bounded() {
		t.Errorf("one sample: %+v", one)
	}
	if none := meanInterval(nil, 1); none.Known() {
		t.Errorf("none: %+v", none)
	}
}
