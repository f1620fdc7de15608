package runner

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/loadgen"
	"github.com/trigger-test/trigger/runner/prom"
	"github.com/trigger-test/trigger/scenarios"
)

// querySignal is one of the scenario's queries and what delays its value:
// a value read at t holds the service's state over [t − lag, t].
type querySignal struct {
	name, query string
	// RangeS and OffsetS come from the query's text: its longest range
	// window (rate(x[20s]): 20 s) and offset.
	rangeS, offsetS float64
	// scrapeS is the scrape interval of its series, seconds, and scrapeFrom
	// says how it was found.
	scrapeS    float64
	scrapeFrom string
}

// lagS is how far back a value read now can look, seconds: its offset plus
// its range window, over which a range query (rate(x[20s])) uses only the
// samples inside; a query without a range (a gauge) reads the newest
// sample, up to one scrape interval old. A window shorter than the scrape
// interval is stretched to it (the newest sample it needs can be that old).
func (q querySignal) lagS() float64 { return q.offsetS + math.Max(q.rangeS, q.scrapeS) }

// info is the signal as the result document records it.
func (q querySignal) info(retrySettleS float64) analysis.SignalInfo {
	return analysis.SignalInfo{Name: q.name, Query: q.query, RangeS: q.rangeS, OffsetS: q.offsetS, ScrapeIntervalS: q.scrapeS,
		ScrapeIntervalFrom: q.scrapeFrom, DelayS: retrySettleS + q.lagS()}
}

// shapeOf reads a query's range window and offset; a query pinned with @
// does not follow the run and is refused.
func shapeOf(name, query string) (querySignal, error) {
	shape, err := prom.ParseQueryShape(query)
	if err != nil {
		return querySignal{}, fmt.Errorf("prometheus query %s: %w", name, err)
	}
	if shape.Pinned {
		return querySignal{}, fmt.Errorf("prometheus query %s = %q uses the @ modifier: its value does not follow the run", name, query)
	}
	return querySignal{name: name, query: query, rangeS: shape.Range.Seconds(), offsetS: shape.Offset.Seconds()}, nil
}

// retrySettleS is how long, in seconds after a change in the service (the
// spike's end), the clients' retry streams take to reach their new rates:
// each of R retries comes one failed attempt (at most τ_out) and one mean
// backoff after the last; a budget counts first attempts over its window,
// so until the spike's have left it the retries allowed are the spike's.
func retrySettleS(s *scenarios.Scenario, p loadgen.RetryPolicy) float64 {
	settle := float64(p.MaxRetries) * s.Client.Timeout.Seconds()
	for _, b := range meanBackoffs(p) {
		settle += b
	}
	if p.Budget != nil {
		w := p.BudgetWindow
		if w <= 0 {
			w = loadgen.DefaultBudgetWindow
		}
		settle += w.Seconds()
	}
	return settle
}

// staticSignals are the scenario's query signals as `plan` can know them
// without asking Prometheus: the embedded server's scrape interval, or
// none for a remote server (read at run time). The error names a query
// that does not parse.
func staticSignals(p *scenarios.Prometheus) ([]querySignal, error) {
	if p == nil {
		return nil, nil
	}
	var out []querySignal
	for _, q := range scenarioQueries(p) {
		sig, err := shapeOf(q.name, q.text)
		if err != nil {
			return nil, err
		}
		if embedded(p) {
			sig.scrapeS, sig.scrapeFrom = embeddedInterval(p).Seconds(), "the embedded server's scrape_interval"
		}
		out = append(out, sig)
	}
	return out, nil
}

// embedded reports whether the scenario reads the embedded Prometheus.
func embedded(p *scenarios.Prometheus) bool { return p.Address == "embedded" || p.Address == "" }

// embeddedInterval is the embedded server's scrape interval.
func embeddedInterval(p *scenarios.Prometheus) time.Duration {
	if p.ScrapeInterval > 0 {
		return p.ScrapeInterval
	}
	return prom.DefaultScrapeInterval
}

// waitDelays is, for each wait source the scenario can give, its delay
// after the spike's end in seconds: the retry streams settling plus the
// lag of the queries it reads (tracers are the driver's own: no lag).
func waitDelays(settleS float64, sigs []querySignal, tracers bool) map[string]float64 {
	lag := map[string]float64{}
	for _, q := range sigs {
		lag[q.name] = q.lagS()
	}
	out := map[string]float64{}
	if l, ok := lag["wait"]; ok {
		out[waitService] = settleS + l
	}
	if tracers {
		out[waitTracers] = settleS
	}
	li, oki := lag["ingress"]
	ls, oks := lag["served"]
	if oki && oks {
		out[waitBacklog] = settleS + math.Max(li, ls)
	}
	return out
}

// soonestJudgement is how long after the spike's end a trap can be judged
// at the soonest, seconds, on the best wait source the scenario offers:
// its delay plus enough independent samples for a trend; NaN when there
// is none. The note says what it is made of.
func soonestJudgement(delays, resolution map[string]float64, settleS float64) (float64, string) {
	for _, src := range []string{waitService, waitTracers, waitBacklog} {
		d, ok := delays[src]
		if !ok {
			continue
		}
		res := math.Max(1, resolution[src])
		need := d + float64(judgePolicy.MinPoints)*res
		note := fmt.Sprintf("the %s wait: %s for the clients' retries to settle, %s for its queries' windows, then %d samples %s apart",
			src, analysis.FormatSeconds(settleS), analysis.FormatSeconds(d-settleS), judgePolicy.MinPoints, analysis.FormatSeconds(res))
		return need, note
	}
	return math.NaN(), ""
}

// readSignals finds each configured query's range window, offset and the
// scrape interval of its series: the embedded server's own, or the one a
// remote server reports for the targets behind the query (measured from
// the samples' timestamps when it reports none). A remote interval that
// cannot be found is taken as Prometheus' default of one minute, with a
// note: a longer delay than the truth only makes the run wait longer.
func (m *metrics) readSignals(ctx context.Context, p *scenarios.Prometheus, logf func(string, ...any)) error {
	sigs, err := staticSignals(p)
	if err != nil {
		return &Error{Kind: KindUsage, Err: err}
	}
	if m.remote != nil && m.embedded == nil {
		for i := range sigs {
			shape, _ := prom.ParseQueryShape(sigs[i].query)
			d, how, err := m.remote.ScrapeInterval(ctx, shape.Selectors)
			if err != nil {
				if ctx.Err() != nil {
					return &Error{Kind: KindInterrupted, Err: ErrInterrupted}
				}
				d, how = defaultRemoteInterval, "assumed: Prometheus' default (could not read it: "+err.Error()+")"
				logf("prometheus query %s: the scrape interval of its series is unknown (%v); assuming %s", sigs[i].name, err, d)
			}
			sigs[i].scrapeS, sigs[i].scrapeFrom = d.Seconds(), how
		}
	}
	m.sigs = sigs
	return nil
}

// defaultRemoteInterval is Prometheus' default global scrape_interval.
const defaultRemoteInterval = time.Minute

// signal returns the named query's signal.
func (m *metrics) signal(name string) (querySignal, bool) {
	if m == nil {
		return querySignal{}, false
	}
	for _, q := range m.sigs {
		if q.name == name {
			return q, true
		}
	}
	return querySignal{}, false
}

// signals returns every query's signal.
func (m *metrics) signals() []querySignal {
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
			lag = math.Max(lag, q.lagS())
		}
	}
	return lag
}
