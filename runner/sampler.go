package runner

import (
	"context"
	"time"
)

// sampler reads the service's metrics for each measured second off the run
// loop, so that a Prometheus that hangs, answers slowly or dies never holds
// the loop past its tick. Each second has a deadline (its end plus the
// query timeout); the queries of a second are cancelled at it, and a second
// whose metrics have not come by then is written without them (see
// run.flush).
//
// The loop owns the sampler: it asks (ask), takes the answers (results)
// and stops it (stop). At most samplerQueue seconds are outstanding; a
// second asked for beyond that is written without metrics at once, so
// nothing queues without bound behind a server that does not answer.
type sampler struct {
	mets        *metrics
	requests    chan sampleRequest
	results     chan sampleResult
	outstanding int // asked and not yet taken by the loop; the loop's alone
	cancel      context.CancelFunc
	done        chan struct{}
}

// samplerQueue bounds the seconds waiting for their metrics.
const samplerQueue = 8

// sampleRequest asks for the metrics of second index, evaluated at at,
// before due.
type sampleRequest struct {
	index   int
	at, due time.Time
}

// sampleResult is one second's query results; errs nil means the request
// was taken after its deadline and nothing was asked.
type sampleResult struct {
	index int
	vals  []float64
	errs  []error
}

// startSampler starts the sampler's goroutine; nil when the scenario reads
// no metrics.
func startSampler(mets *metrics) *sampler {
	if mets == nil {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	sp := &sampler{
		mets:     mets,
		requests: make(chan sampleRequest, samplerQueue),
		results:  make(chan sampleResult, samplerQueue),
		cancel:   cancel,
		done:     make(chan struct{}),
	}
	go sp.loop(ctx)
	return sp
}

func (sp *sampler) loop(ctx context.Context) {
	defer close(sp.done)
	for {
		select {
		case <-ctx.Done():
			return
		case req := <-sp.requests:
			res := sampleResult{index: req.index}
			if time.Now().Before(req.due) {
				qctx, cancel := context.WithDeadline(ctx, req.due)
				res.vals, res.errs = sp.mets.queryAll(qctx, req.at)
				cancel()
			}
			// Never blocks: the loop asks for at most cap(results)
			// seconds it has not taken.
			select {
			case sp.results <- res:
			case <-ctx.Done():
				return
			}
		}
	}
}

// ask queues a second; false when samplerQueue seconds are already
// outstanding (the second is then written without metrics).
func (sp *sampler) ask(req sampleRequest) bool {
	if sp.outstanding >= samplerQueue {
		return false
	}
	sp.requests <- req // cannot block: outstanding < cap
	sp.outstanding++
	return true
}

// take returns an answer that has come, without waiting.
func (sp *sampler) take() (sampleResult, bool) {
	select {
	case res := <-sp.results:
		sp.outstanding--
		return res, true
	default:
		return sampleResult{}, false
	}
}

// stop cancels the queries under way and waits for the goroutine, at most
// a second: its queries honour the cancellation.
func (sp *sampler) stop() {
	if sp == nil {
		return
	}
	sp.cancel()
	select {
	case <-sp.done:
	case <-time.After(time.Second):
	}
}
