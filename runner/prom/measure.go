package prom

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

// Bounds of the measuring path of ScrapeInterval.
const (
	// measureWindows are the look-backs over which the raw samples of a
	// series are read, the longer one only when the shorter holds too few
	// samples (intervals over 2 min).
	measureWindow, measureWindowLong = 5 * time.Minute, 30 * time.Minute
	// minMeasureSamples is the fewest samples a measurement rests on.
	minMeasureSamples = 3
	// maxMeasuredSeries bounds the series measured per selector: one per
	// (job, instance), at most this many.
	maxMeasuredSeries = 4
)

// measureIntervals measures the scrape interval of the series of selector
// that come from the given (job, instance) pairs: for one series of each
// pair (at most maxMeasuredSeries), the median gap between the timestamps
// of its raw samples. It returns the longest, with a description of what
// was measured. An error wraps ErrNoData when there are too few samples,
// or is the error of a query.
func (r *Remote) measureIntervals(ctx context.Context, selector string, pairs []jobInstance, now time.Time) (time.Duration, string, error) {
	v, err := r.query(ctx, selector, now)
	if err != nil {
		return 0, "", err
	}
	vec, ok := v.(model.Vector)
	if !ok {
		return 0, "", fmt.Errorf("measure %s: %w: an instant query gave %s, not a vector", selector, ErrBadQuery, v.Type())
	}
	series := oneSeriesPerPair(vec, pairs)
	if len(series) == 0 {
		return 0, "", fmt.Errorf("measure %s: %w: no series of %s left at %s", selector, ErrNoData, strings.Join(pairNames(pairs), ", "), now.Format(time.RFC3339))
	}
	var longest time.Duration
	var n int
	for _, m := range series {
		d, k, err := r.measureSeries(ctx, m, now)
		if err != nil {
			return 0, "", err
		}
		longest, n = max(longest, d), n+k
	}
	return longest, fmt.Sprintf("median gap of %d samples of %d series", n, len(series)), nil
}

// measureSeries reads the raw samples of the series with exactly the
// labels of m (an instant query of a range selector returns them with
// their own timestamps) and returns the median gap between consecutive
// timestamps and the number of samples it rests on.
func (r *Remote) measureSeries(ctx context.Context, m model.Metric, now time.Time) (time.Duration, int, error) {
	sel := exactSelector(m)
	var ts []model.Time
	for _, w := range []time.Duration{measureWindow, measureWindowLong} {
		query := sel + "[" + model.Duration(w).String() + "]"
		v, err := r.query(ctx, query, now)
		if err != nil {
			return 0, 0, err
		}
		if ts = sampleTimes(v, m); len(ts) >= minMeasureSamples {
			break
		}
	}
	d, ok := medianGap(ts)
	if !ok {
		return 0, 0, fmt.Errorf("measure %s: %w: %d samples in the last %v, want at least %d", sel, ErrNoData, len(ts), measureWindowLong, minMeasureSamples)
	}
	return d, len(ts), nil
}

// oneSeriesPerPair picks from vec the first series (in label order) of
// each pair, at most maxMeasuredSeries of them.
func oneSeriesPerPair(vec model.Vector, pairs []jobInstance) []model.Metric {
	ms := make([]model.Metric, 0, len(vec))
	for _, s := range vec {
		ms = append(ms, s.Metric)
	}
	slices.SortFunc(ms, func(a, b model.Metric) int { return strings.Compare(a.String(), b.String()) })
	var out []model.Metric
	for _, p := range pairs {
		i := slices.IndexFunc(ms, func(m model.Metric) bool { return seriesPair(m) == p })
		if i >= 0 {
			out = append(out, ms[i])
		}
		if len(out) == maxMeasuredSeries {
			break
		}
	}
	return out
}

// seriesPair returns the job and instance labels of a series.
func seriesPair(m model.Metric) jobInstance {
	return jobInstance{string(m["job"]), string(m["instance"])}
}

// pairNames renders each pair.
func pairNames(pairs []jobInstance) []string {
	out := make([]string, len(pairs))
	for i, p := range pairs {
		out[i] = p.String()
	}
	return out
}

// exactSelector prints a PromQL selector matching every label of m by
// equality, the name included: {__name__="x",job="a",...}.
func exactSelector(m model.Metric) string {
	vs := &parser.VectorSelector{}
	for name, value := range m {
		vs.LabelMatchers = append(vs.LabelMatchers, labels.MustNewMatcher(labels.MatchEqual, string(name), string(value)))
	}
	return vs.String() // the printer sorts the matchers
}

// sampleTimes returns the sorted, distinct timestamps of the float and
// histogram samples of the series of v whose labels are exactly m.
func sampleTimes(v model.Value, m model.Metric) []model.Time {
	mat, ok := v.(model.Matrix)
	if !ok {
		return nil
	}
	var ts []model.Time
	for _, s := range mat {
		if !s.Metric.Equal(m) {
			continue
		}
		for _, p := range s.Values {
			ts = append(ts, p.Timestamp)
		}
		for _, h := range s.Histograms {
			ts = append(ts, h.Timestamp)
		}
	}
	slices.Sort(ts)
	return slices.Compact(ts)
}

// medianGap returns the median of the gaps between consecutive sorted
// timestamps; false with fewer than minMeasureSamples timestamps.
func medianGap(ts []model.Time) (time.Duration, bool) {
	if len(ts) < minMeasureSamples {
		return 0, false
	}
	gaps := make([]int64, len(ts)-1)
	for i := range gaps {
		gaps[i] = int64(ts[i+1] - ts[i])
	}
	slices.Sort(gaps)
	n := len(gaps)
	ms := gaps[n/2]
	if n%2 == 0 {
		ms = (gaps[n/2-1] + gaps[n/2]) / 2
	}
	return time.Duration(ms) * time.Millisecond, true
}
