package specimen_test

import (
	"context"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/trigger-test/trigger/examples/specimen/specimen"
	"github.com/trigger-test/trigger/loadgen"
	"github.com/trigger-test/trigger/retry"
	"github.com/trigger-test/trigger/vocab"
)

// The end-to-end tests drive the specimen on loopback with loadgen: open
// model, client timeout 1 s, immediate retries on timeout, 5xx and connect
// errors. Each is bounded by its stages (tens of seconds, ≤ ~1,000
// attempts/s) and by a context deadline.
//
// They drive load in real time, and two load-heavy ones at once on 2 cores
// distort each other's timing (beside another, a heavy test's dispatch lag
// doubled at the 99th percentile): the heavy ones run one at a time, and
// make test runs them without the race detector (-short skips them under
// it). Only the long
// recovery test runs beside them: its load is light (at most 62.5 first
// attempts/s, about 1,500 in its 83 s), the 99th percentile of either's lag
// stays within 2 ms of what it is alone (against a 1 s client timeout), and
// run after them it would make the package 80 s longer.

// heavy lets one load-heavy end-to-end test run at a time.
var heavy = make(chan struct{}, 1)

const clientTimeout = time.Second

// e2e skips in -short mode. A heavy test waits for the others to end; a
// light one (isHeavy false) runs beside them.
func e2e(t *testing.T, isHeavy bool) {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end load test: skipped in -short mode")
	}
	t.Parallel()
	if isHeavy {
		heavy <- struct{}{}
		t.Cleanup(func() { <-heavy })
	}
}

// runResult is what one driven run recorded: the client's timeline and a
// Stats sample of the specimen taken at the end of every second of the
// driver's clock (samples[i] at i+1 s).
type runResult struct {
	timeline []loadgen.Second
	samples  []specimen.Stats
}

// abandonedIn returns the abandoned work served during second i.
func (r *runResult) abandonedIn(i int) uint64 {
	if i == 0 {
		return r.samples[0].Abandoned
	}
	return r.samples[i].Abandoned - r.samples[i-1].Abandoned
}

// delta returns the difference of two samples' counters via f.
func (r *runResult) delta(from, to int, f func(specimen.Stats) uint64) uint64 {
	return f(r.samples[to]) - f(r.samples[from])
}

// timeouts returns the attempts of second i of the timeline that timed out.
func timeouts(s loadgen.Second) int64 {
	return s.FirstOutcomes[vocab.OutcomeTimeout] + s.RetryOutcomes[vocab.OutcomeTimeout]
}

// stopFunc may end a run early: it sees the samples so far.
type stopFunc func(samples []specimen.Stats) bool

// drive serves cfg on loopback, runs the stages against it with R retries
// and Poisson arrivals, samples Stats every second, and returns what it saw.
// stop, when not nil, ends the run as soon as it returns true.
func drive(t *testing.T, cfg specimen.Config, stages []loadgen.Stage, retries int, stop stopFunc) *runResult {
	t.Helper()
	return driveWith(t, cfg, stages, retries, stop, vocab.Poisson)
}

// driveWith is drive with a choice of arrivals.
func driveWith(t *testing.T, cfg specimen.Config, stages []loadgen.Stage, retries int, stop stopFunc, arrivals vocab.Arrivals) *runResult {
	t.Helper()
	srv, err := specimen.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var total time.Duration
	for _, s := range stages {
		total += s.Duration
	}
	ctx, cancel := context.WithTimeout(t.Context(), total+time.Duration(retries+3)*clientTimeout+10*time.Second)
	defer cancel()
	srvCtx, stopSrv := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(srvCtx, ln) }()
	defer func() {
		stopSrv()
		select {
		case err := <-served:
			if err != nil {
				t.Errorf("serve: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("gave up after 30s waiting for Serve to return after its context ended")
		}
	}()

	tr := loadgen.NewTransport(loadgen.DefaultTransportOptions())
	defer tr.CloseIdleConnections()
	d, err := loadgen.NewDriver(loadgen.Config{
		Request:  loadgen.Request{Method: "GET", URL: "http://" + ln.Addr().String() + "/work"},
		Stages:   stages,
		Arrivals: arrivals,
		Seed:     1,
		Timeout:  clientTimeout,
		Retry: retry.Policy{MaxRetries: retries,
			On: retry.NewOutcomeSet(vocab.OutcomeTimeout, vocab.Outcome5xx, vocab.Outcome503, vocab.OutcomeConnect)},
		MaxInFlight: 20000,
		Transport:   tr,
	})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stopRun := context.WithCancel(ctx)
	defer stopRun()
	res := &runResult{}
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Add(1)
	go func() { // the sampler: one Stats per second of the driver's clock
		defer wg.Done()
		for i := 1; ; i++ {
			wait := time.Duration(i)*time.Second - d.Elapsed()
			select {
			case <-done:
				return
			case <-time.After(wait):
			}
			res.samples = append(res.samples, srv.Stats())
			if stop != nil && stop(res.samples) {
				stopRun()
			}
		}
	}()
	err = d.Run(runCtx)
	close(done)
	wg.Wait()
	if err != nil && ctx.Err() != nil {
		t.Fatalf("run did not end in time: %v", err)
	}
	res.timeline = d.Timeline()
	logRun(t, res)
	return res
}

// logRun logs one line per second: client attempts, timeouts, and the
// specimen's ingress, abandoned work and queue depth.
func logRun(t *testing.T, r *runResult) {
	t.Helper()
	for i, s := range r.samples {
		line := ""
		if i < len(r.timeline) {
			tl := r.timeline[i]
			line = fmt.Sprintf(" | client sent %d retries %d timeouts %d ok %d", tl.Sent, tl.Retries, timeouts(tl),
				tl.FirstOutcomes[vocab.OutcomeOK]+tl.RetryOutcomes[vocab.OutcomeOK])
		}
		var in uint64
		if i > 0 {
			in = s.Ingress() - r.samples[i-1].Ingress()
		} else {
			in = s.Ingress()
		}
		t.Logf("s %3d: ingress %4d abandoned %4d queue %6d ready %2d desired %2d%s",
			i, in, r.abandonedIn(i), s.QueueDepth, s.PodsReady, s.PodsDesired, line)
	}
}
