package convert

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/internal/queryshape"
	"github.com/trigger-test/trigger/retry"
	"github.com/trigger-test/trigger/scenarios"
	"github.com/trigger-test/trigger/vocab"
)

// Query is one of the scenario's Prometheus queries: its name in the
// prometheus block (ingress, first_attempts, served, abandoned, wait,
// pods) and its PromQL text.
type Query struct{ Name, Text string }

// queriesOf lists the queries the scenario configured, in a fixed order.
func queriesOf(p *scenarios.Prometheus) []Query {
	if p == nil {
		return nil
	}
	all := []Query{
		{"ingress", p.Ingress}, {"first_attempts", p.FirstAttempts}, {"served", p.Served},
		{"abandoned", p.Abandoned}, {"wait", p.Wait}, {"pods", p.Pods},
	}
	var out []Query
	for _, q := range all {
		if q.Text != "" {
			out = append(out, q)
		}
	}
	return out
}

// Signal is one of the scenario's queries and what delays its value: a
// value read at t holds the service's state over [t − LagS(), t]
// (docs/model.md, "What a trigger test measures": signals and their
// delays).
type Signal struct {
	Name, Query string
	// RangeS and OffsetS come from the query's text: its longest range
	// window (rate(x[20s]): 20 s) and offset, seconds.
	RangeS, OffsetS float64
	// ScrapeS is the scrape interval of its series, seconds (0 until
	// known), and ScrapeFrom says how it was found.
	ScrapeS    float64
	ScrapeFrom string
	// Selectors are the query's vector selectors, to find the targets
	// behind it on a remote server.
	Selectors []string
	// Provisional says that the scrape interval was not read from the
	// query's own series (they did not exist yet when the run started):
	// the run reads it again once they appear.
	Provisional bool
}

// DriverOwn reports whether every series of the query is one of the
// driver's own trigger_* metrics, which exist only once the load runs
// (docs/scenarios.md, "The driver's metrics").
func (q Signal) DriverOwn() bool {
	if len(q.Selectors) == 0 {
		return false
	}
	for _, s := range q.Selectors {
		if !strings.HasPrefix(s, "trigger_") {
			return false
		}
	}
	return true
}

// LagS is how far back a value read now can look, seconds: its offset plus
// its range window, over which a range query (rate(x[20s])) uses only the
// samples inside; a query without a range (a gauge) reads the newest
// sample, up to one scrape interval old. A window shorter than the scrape
// interval is stretched to it (the newest sample it needs can be that old).
func (q Signal) LagS() float64 { return q.Info(0).LagS() }

// Info is the signal as the result document records it.
func (q Signal) Info(retrySettleS float64) analysis.SignalInfo {
	in := analysis.SignalInfo{Name: q.Name, Query: q.Query, RangeS: q.RangeS, OffsetS: q.OffsetS, ScrapeIntervalS: q.ScrapeS,
		ScrapeIntervalFrom: q.ScrapeFrom}
	in.DelayS = retrySettleS + in.LagS()
	return in
}

// shapeOf reads a query's range window and offset; a query pinned with @
// does not follow the run and is refused.
func shapeOf(q Query) (Signal, error) {
	shape, err := queryshape.Parse(q.Text)
	if err != nil {
		return Signal{}, fmt.Errorf("prometheus query %s: %w", q.Name, err)
	}
	if shape.Pinned {
		return Signal{}, fmt.Errorf("prometheus query %s = %q uses the @ modifier: its value does not follow the run", q.Name, q.Text)
	}
	return Signal{Name: q.Name, Query: q.Text, RangeS: shape.Range.Seconds(), OffsetS: shape.Offset.Seconds(), Selectors: shape.Selectors}, nil
}

// retrySettleS is how long, in seconds after a change in the service (the
// spike's end), the clients' retry streams take to reach their new rates:
// each of R retries comes one failed attempt (at most τ_out) and one mean
// backoff after the last; a budget counts first attempts over its window,
// so until the spike's have left it the retries allowed are the spike's.
func retrySettleS(s *scenarios.Scenario, p retry.Policy) float64 {
	settle := float64(p.MaxRetries) * s.Client.Timeout.Seconds()
	for _, b := range meanBackoffs(p) {
		settle += b
	}
	if p.Budget != nil {
		w := p.BudgetWindow
		if w <= 0 {
			w = vocab.DefaultBudgetWindow
		}
		settle += w.Seconds()
	}
	return settle
}

// staticSignals are the scenario's query signals as far as they are known
// without asking Prometheus: the embedded server's scrape interval, or
// none for a remote server (read at run time). The error names a query
// that does not parse.
func staticSignals(p *scenarios.Prometheus) ([]Signal, error) {
	var out []Signal
	for _, q := range queriesOf(p) {
		sig, err := shapeOf(q)
		if err != nil {
			return nil, err
		}
		switch {
		case embedded(p):
			sig.ScrapeS, sig.ScrapeFrom = embeddedInterval(p).Seconds(), "the embedded server's scrape_interval"
		case p.ScrapeIntervalGiven:
			// The plan and the run assume it until the run reads the
			// remote server's own.
			sig.ScrapeS, sig.ScrapeFrom = p.ScrapeInterval.Seconds(), RemoteIntervalAssumed
		}
		out = append(out, sig)
	}
	return out, nil
}

// RemoteIntervalAssumed is the ScrapeFrom of a remote server's signal
// whose interval is the scenario's scrape_interval, until the run reads
// the server's own.
const RemoteIntervalAssumed = "the scenario's scrape_interval, assumed until the run reads the server's own"

// embedded reports whether the scenario reads the embedded Prometheus.
func embedded(p *scenarios.Prometheus) bool { return p.Address == "embedded" || p.Address == "" }

// embeddedInterval is the embedded server's scrape interval (the
// scenario's default when a hand-built block leaves it zero).
func embeddedInterval(p *scenarios.Prometheus) time.Duration {
	if p.ScrapeInterval > 0 {
		return p.ScrapeInterval
	}
	return vocab.DefaultScrapeInterval
}

// WaitDelays is analysis.WaitDelays for the scenario's signals.
func WaitDelays(settleS float64, sigs []Signal, tracers bool) map[analysis.WaitSource]float64 {
	return analysis.WaitDelays(settleS, infos(sigs, settleS), tracers)
}

// Resolutions is analysis.Resolutions for the scenario's signals.
func Resolutions(sigs []Signal) map[analysis.WaitSource]float64 {
	return analysis.Resolutions(infos(sigs, 0))
}

// infos are the signals as the result document records them.
func infos(sigs []Signal, settleS float64) []analysis.SignalInfo {
	out := make([]analysis.SignalInfo, len(sigs))
	for i, q := range sigs {
		out[i] = q.Info(settleS)
	}
	return out
}

// SoonestJudgement is how long after the spike's end a trap can be judged
// at the soonest, seconds, on the best wait source offered: its delay plus
// enough independent samples for a trend (analysis.MeasuredJudgePolicy);
// NaN when there is none. The note says what it is made of.
func SoonestJudgement(delays, resolution map[analysis.WaitSource]float64, settleS float64) (float64, string) {
	minPoints := analysis.MeasuredJudgePolicy.MinPoints
	for _, src := range analysis.WaitSources {
		d, ok := delays[src]
		if !ok {
			continue
		}
		res := math.Max(1, resolution[src])
		need := d + float64(minPoints)*res
		note := fmt.Sprintf("the %s wait: %s for the clients' retries to settle, %s for its queries' windows, then %d samples %s apart",
			src, analysis.FormatSeconds(settleS), analysis.FormatSeconds(d-settleS), minPoints, analysis.FormatSeconds(res))
		return need, note
	}
	return math.NaN(), ""
}
