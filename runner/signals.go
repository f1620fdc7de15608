package runner

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/runner/prom"
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
			declared := time.Duration(static[i].ScrapeS * float64(time.Second)) // the scenario's scrape_interval, or 0
			d, how, err := m.remote.ScrapeInterval(ctx, sigs[i].Selectors)
			switch {
			case err != nil && ctx.Err() != nil:
				return &Error{Kind: KindInterrupted, Err: ErrInterrupted}
			case err != nil && declared > 0:
				d, how = declared, convert.RemoteIntervalAssumed+" (could not read it: "+err.Error()+"); read again once its series appear"
				logf("prometheus query %s: the scrape interval of its series is unknown (%v); assuming the scenario's scrape_interval %s until its series appear", sigs[i].Name, err, d)
			case err != nil:
				d, how = defaultRemoteInterval, "assumed: Prometheus' default (could not read it: "+err.Error()+"); read again once its series appear"
				logf("prometheus query %s: the scrape interval of its series is unknown (%v); assuming %s until its series appear", sigs[i].Name, err, d)
			case declared > 0 && !strings.Contains(how, prom.NoSeriesYet) && intervalsDiffer(d, declared):
				logf("prometheus query %s: the server scrapes its series every %s (%s), not every %s as the scenario's scrape_interval says; the run uses %s",
					sigs[i].Name, d, how, declared, d)
			}
			sigs[i].ScrapeS, sigs[i].ScrapeFrom = d.Seconds(), how
			sigs[i].Provisional = err != nil || strings.Contains(how, prom.NoSeriesYet)
		}
	}
	m.sigs = sigs
	return nil
}

// intervalsDiffer reports whether a measured scrape interval is more than
// a tenth away from the declared one.
func intervalsDiffer(measured, declared time.Duration) bool {
	d := measured - declared
	return d > declared/10 || -d > declared/10
}

// defaultRemoteInterval is Prometheus' default global scrape_interval.
const defaultRemoteInterval = time.Minute

// rereadEvery is how often the run asks again for the scrape interval of a
// signal whose series did not exist at the preflight.
const rereadEvery = 5 * time.Second

// signalUpdate is a signal whose scrape interval was read again.
type signalUpdate struct {
	index int
	sig   convert.Signal
}

// rereader reads again, off the run loop, the scrape interval of the
// signals whose series did not exist when the run started (Provisional),
// every rereadEvery until their series are there. The loop takes its
// updates (take) and stops it (stop).
type rereader struct {
	updates chan signalUpdate
	cancel  context.CancelFunc
	done    chan struct{}
}

// startReread starts the rereader; nil when no signal is provisional.
func (m *metrics) startReread() *rereader {
	if m == nil || m.remote == nil {
		return nil
	}
	var todo []int
	for i, q := range m.sigs {
		if q.Provisional {
			todo = append(todo, i)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	rr := &rereader{updates: make(chan signalUpdate, len(todo)), cancel: cancel, done: make(chan struct{})}
	sigs := slices.Clone(m.sigs)
	go func() {
		defer close(rr.done)
		tick := time.NewTicker(rereadEvery)
		defer tick.Stop()
		for len(todo) > 0 {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			left := todo[:0]
			for _, i := range todo {
				qctx, qcancel := context.WithTimeout(ctx, m.timeout)
				d, how, err := m.remote.ScrapeInterval(qctx, sigs[i].Selectors)
				qcancel()
				if err != nil || strings.Contains(how, prom.NoSeriesYet) {
					left = append(left, i)
					continue
				}
				q := sigs[i]
				q.ScrapeS, q.ScrapeFrom, q.Provisional = d.Seconds(), how+"; read once its series appeared", false
				rr.updates <- signalUpdate{i, q} // buffered for every signal
			}
			todo = left
		}
	}()
	return rr
}

// take returns an update that has come, without waiting.
func (rr *rereader) take() (signalUpdate, bool) {
	if rr == nil {
		return signalUpdate{}, false
	}
	select {
	case u := <-rr.updates:
		return u, true
	default:
		return signalUpdate{}, false
	}
}

// stop cancels the rereader and waits for it, at most a second.
func (rr *rereader) stop() {
	if rr == nil {
		return
	}
	rr.cancel()
	select {
	case <-rr.done:
	case <-time.After(time.Second):
	}
}

// signals returns every query's signal.
func (m *metrics) signals() []convert.Signal {
	if m == nil {
		return nil
	}
	return m.sigs
}
