package runner

import (
	"context"
	"math"
	"slices"
	"time"

	"github.com/trigger-test/trigger/convert"
)

// readSignals finds each configured query's range window, offset and the
// scrape interval of its series: the embedded server's own, or the one a
// remote server reports for the targets behind the query (measured from
// the samples' timestamps when it reports none). A remote interval that
// cannot be found is taken as Prometheus' default of one minute, with a
// note: a longer delay than the truth only makes the run wait longer.
func (m *metrics) readSignals(ctx context.Context, static []convert.Signal, logf func(string, ...any)) error {
	sigs := slices.Clone(static)
	if m.remote != nil && m.embedded == nil {
		for i := range sigs {
			d, how, err := m.remote.ScrapeInterval(ctx, sigs[i].Selectors)
			if err != nil {
				if ctx.Err() != nil {
					return &Error{Kind: KindInterrupted, Err: ErrInterrupted}
				}
				d, how = defaultRemoteInterval, "assumed: Prometheus' default (could not read it: "+err.Error()+")"
				logf("prometheus query %s: the scrape interval of its series is unknown (%v); assuming %s", sigs[i].Name, err, d)
			}
			sigs[i].ScrapeS, sigs[i].ScrapeFrom = d.Seconds(), how
		}
	}
	m.sigs = sigs
	return nil
}

// defaultRemoteInterval is Prometheus' default global scrape_interval.
const defaultRemoteInterval = time.Minute

// signal returns the named query's signal.
func (m *metrics) signal(name string) (convert.Signal, bool) {
	if m == nil {
		return convert.Signal{}, false
	}
	for _, q := range m.sigs {
		if q.Name == name {
			return q, true
		}
	}
	return convert.Signal{}, false
}

// signals returns every query's signal.
func (m *metrics) signals() []convert.Signal {
	if m == nil {
		return nil
	}
	return m.sigs
}

// ingressLag is how far back the ingress and first-attempts queries look,
// seconds (range + offset + scrape interval; zero without them).
func (m *metrics) ingressLag() float64 {
	lag := 0.0
	for _, name := range []string{"ingress", "first_attempts"} {
		if q, ok := m.signal(name); ok {
			lag = math.Max(lag, q.LagS())
		}
	}
	return lag
}
