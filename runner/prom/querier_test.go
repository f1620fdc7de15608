package prom

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/prometheus/common/model"
)

func TestInstantValue(t *testing.T) {
	m := model.Metric{"job": "x"}
	cases := []struct {
		name    string
		v       model.Value
		want    float64
		wantErr error
	}{
		// A scalar is its value.
		{"scalar", &model.Scalar{Value: 2.5}, 2.5, nil},
		// A vector of one element is its value.
		{"one series", model.Vector{{Metric: m, Value: 7}}, 7, nil},
		// No series at all.
		{"empty vector", model.Vector{}, 0, ErrNoData},
		// A missing value.
		{"nil", nil, 0, ErrNoData},
		// Two series: aggregate first.
		{"two series", model.Vector{{Metric: m, Value: 1}, {Metric: model.Metric{"job": "y"}, Value: 2}}, 0, ErrManySeries},
		// 0/0 is no data, as Range drops NaN.
		{"NaN", model.Vector{{Metric: m, Value: model.SampleValue(math.NaN())}}, 0, ErrNoData},
		{"NaN scalar", &model.Scalar{Value: model.SampleValue(math.NaN())}, 0, ErrNoData},
		// Infinity is a number (x/0).
		{"Inf", model.Vector{{Metric: m, Value: model.SampleValue(math.Inf(1))}}, math.Inf(1), nil},
		// A range vector is not a number.
		{"matrix", model.Matrix{{Metric: m}}, 0, ErrBadQuery},
		// Nor is a string.
		{"string", &model.String{Value: "a"}, 0, ErrBadQuery},
	}
	for _, c := range cases {
		got, err := instantValue(c.v)
		if !errors.Is(err, c.wantErr) || (c.wantErr == nil && got != c.want) {
			t.Errorf("%s: %v, %v; want %v, %v", c.name, got, err, c.want, c.wantErr)
		}
	}
}

func TestRangeSamples(t *testing.T) {
	m := model.Metric{"job": "x"}
	t0 := model.TimeFromUnixNano(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).UnixNano())
	pts := func(vs ...float64) []model.SamplePair {
		out := make([]model.SamplePair, len(vs))
		for i, v := range vs {
			out[i] = model.SamplePair{Timestamp: t0.Add(time.Duration(i) * time.Second), Value: model.SampleValue(v)}
		}
		return out
	}
	nan := math.NaN()
	cases := []struct {
		name    string
		v       model.Value
		want    []float64
		wantErr error
	}{
		// One series: its samples in order.
		{"one series", model.Matrix{{Metric: m, Values: pts(1, 2, 3)}}, []float64{1, 2, 3}, nil},
		// NaN samples are dropped.
		{"NaN dropped", model.Matrix{{Metric: m, Values: pts(1, nan, 3)}}, []float64{1, 3}, nil},
		// Only NaN: no data.
		{"all NaN", model.Matrix{{Metric: m, Values: pts(nan, nan)}}, nil, ErrNoData},
		// No series.
		{"empty", model.Matrix{}, nil, ErrNoData},
		{"nil", nil, nil, ErrNoData},
		// Two series.
		{"two series", model.Matrix{{Metric: m}, {Metric: model.Metric{"job": "y"}}}, nil, ErrManySeries},
		// Not a matrix.
		{"vector", model.Vector{}, nil, ErrBadQuery},
	}
	for _, c := range cases {
		got, err := rangeSamples(c.v)
		if !errors.Is(err, c.wantErr) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.wantErr)
			continue
		}
		if len(got) != len(c.want) {
			t.Errorf("%s: %v, want values %v", c.name, got, c.want)
			continue
		}
		for i := range got {
			if got[i].V != c.want[i] || got[i].T.Before(t0.Time()) {
				t.Errorf("%s: sample %d = %+v, want %v", c.name, i, got[i], c.want[i])
			}
		}
	}
	// Timestamps come through to the millisecond.
	got, _ := rangeSamples(model.Matrix{{Metric: m, Values: pts(1, 2)}})
	if !got[1].T.Equal(t0.Time().Add(time.Second)) {
		t.Errorf("timestamp %v, want %v", got[1].T, t0.Time().Add(time.Second))
	}
}

func TestQueryErrorMessage(t *testing.T) {
	err := error(&QueryError{Query: "sum(rate(x[5s]))", Err: errNoSeries})
	if got, want := err.Error(), `prometheus query "sum(rate(x[5s]))": no data: the query returned no series`; len(got) < len(want) || got[:len(want)] != want {
		t.Errorf("message %q, want it to start with %q", got, want)
	}
	if !errors.Is(err, ErrNoData) || errors.Is(err, ErrManySeries) {
		t.Error("QueryError does not unwrap to its cause")
	}
	err = &QueryError{Query: "x", Err: &ManySeriesError{N: 3}}
	if !errors.Is(err, ErrManySeries) || err.Error() != `prometheus query "x": 3 series; aggregate with sum(...) or select one with labels` {
		t.Errorf("many series: %v", err)
	}
}
