package prom

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/prometheus/common/model"
)

// Sample is one point of a series.
type Sample struct {
	// T is the evaluation time of the point.
	T time.Time
	// V is the value, in the unit of the query (rates are per second).
	V float64
}

// Querier is what the runner needs from Prometheus.
type Querier interface {
	// Instant evaluates query at t; the result must be one series or a
	// scalar (else a *QueryError wrapping ErrNoData or ErrManySeries).
	Instant(ctx context.Context, query string, t time.Time) (float64, error)
	// Range evaluates query over [start, end] every step; the result must
	// be one series. NaN samples (0/0 ratios, stale points) are dropped.
	Range(ctx context.Context, query string, start, end time.Time, step time.Duration) ([]Sample, error)
}

// instantValue reduces the result of an instant query to one number: a
// scalar, or a vector of exactly one element. A NaN value counts as no
// data (ErrNoData and ErrNaN), as Range drops NaN samples. The error is the cause, without the
// query (the caller wraps it in a *QueryError).
func instantValue(v model.Value) (float64, error) {
	switch v := v.(type) {
	case *model.Scalar:
		if math.IsNaN(float64(v.Value)) {
			return 0, fmt.Errorf("%w: %w", ErrNoData, ErrNaN)
		}
		return float64(v.Value), nil
	case model.Vector:
		switch len(v) {
		case 0:
			return 0, errNoSeries
		case 1:
			if math.IsNaN(float64(v[0].Value)) {
				return 0, fmt.Errorf("%w: %w (%s)", ErrNoData, ErrNaN, v[0].Metric)
			}
			return float64(v[0].Value), nil
		default:
			return 0, &ManySeriesError{N: len(v)}
		}
	case model.Matrix:
		return 0, fmt.Errorf("%w: a range vector is not a number; wrap it in a function such as rate(...)", ErrBadQuery)
	case nil:
		return 0, errNoSeries
	default:
		return 0, fmt.Errorf("%w: result of type %s is not a number", ErrBadQuery, v.Type())
	}
}

// rangeSamples reduces the result of a range query to the samples of its
// one series, NaN samples dropped. A result whose samples are all NaN
// counts as no data.
func rangeSamples(v model.Value) ([]Sample, error) {
	m, ok := v.(model.Matrix)
	if !ok {
		if v == nil {
			return nil, errNoSeries
		}
		return nil, fmt.Errorf("%w: a range query returned %s, not a matrix", ErrBadQuery, v.Type())
	}
	switch len(m) {
	case 0:
		return nil, errNoSeries
	case 1:
	default:
		return nil, &ManySeriesError{N: len(m)}
	}
	out := make([]Sample, 0, len(m[0].Values))
	for _, p := range m[0].Values {
		if math.IsNaN(float64(p.Value)) {
			continue
		}
		out = append(out, Sample{T: p.Timestamp.Time(), V: float64(p.Value)})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: every sample of %s is NaN", ErrNoData, m[0].Metric)
	}
	return out, nil
}
