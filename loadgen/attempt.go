package loadgen

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/trigger-test/trigger/retry"
	"github.com/trigger-test/trigger/vocab"
)

// maxFastBody is the longest Content-Length the lean path reads in its
// read buffer's fast way (parseLeanHead); longer bodies are read by
// readResponseSlow. Either way an attempt reads the whole body, discarding
// it, before it counts as answered: a response that stalls after its first
// bytes, or a chunked body that never ends, is a timeout at the deadline,
// not a success. Memory stays bounded: nothing of a body is kept.
const maxFastBody = 1 << 20

// logical is the state of one logical request between its attempts.
type logical struct {
	id        uint64
	req       uint8         // its request in the driver's mix
	own       *rendered     // its request with per-request values filled in; nil when its request has none
	attempt   int           // number of the attempt to send (1 = first)
	started   time.Duration // when the first attempt was sent
	cohort    int           // the second its first attempt was sent in (its Cohort's index)
	planned   time.Duration // planned time of the first attempt, or due time of a retry
	prevDelay time.Duration // the previous backoff delay
}

// run sends the attempts of one logical request while it holds an attempt
// slot: the first attempt, and retries without delay; a retry with a delay
// goes to the retry queue and the goroutine ends.
func (d *Driver) run(ctx context.Context, lr logical) {
	defer d.attempts.Done()
	for {
		now := d.now()
		if lr.attempt == 1 {
			lr.started = now
			if d.mix.reqs[lr.req].templated && lr.own == nil {
				lr.own, _ = d.render(lr) // an error leaves the unrendered request: its attempts fail as "other"
			}
			d.met.planned.Inc()
			d.met.lag.Observe(max(now-lr.planned, 0).Seconds())
		}
		k := kindRetry
		if lr.attempt == 1 {
			k = kindFirst
		}
		d.met.sent[k].Inc()
		lr.cohort = d.rec.sent(now, lr.planned, lr.attempt, lr.cohort, int(lr.req))
		o, retryAfter, _ := d.do(ctx, lr, now, d.cfg.Timeout, strconv.Itoa(lr.attempt))
		end := d.now()
		took := end - now
		seen := d.firstSeen(ctx, lr, o, took)
		d.release()
		d.met.attempts[k][o].Inc()
		d.met.duration[k].Observe(took.Seconds())

		if o == vocab.OutcomeOK {
			d.retrier.Succeeded(end)
			d.rec.done(end, lr.cohort, int(lr.req), lr.attempt, o, took, seen, true, true)
			d.met.requests[0].Inc()
			d.end()
			return
		}
		var dec retry.Decision
		if ctx.Err() == nil {
			dec = d.retrier.Failed(end, retry.Failure{Attempt: lr.attempt, Outcome: o, RetryAfter: retryAfter, Started: lr.started, PrevDelay: lr.prevDelay})
		}
		if !dec.Retry {
			d.rec.done(end, lr.cohort, int(lr.req), lr.attempt, o, took, seen, true, false)
			d.met.requests[1].Inc()
			d.end()
			return
		}
		d.rec.done(end, lr.cohort, int(lr.req), lr.attempt, o, took, seen, false, false)
		lr.attempt++
		lr.prevDelay = dec.Delay
		lr.planned = end + dec.Delay
		if dec.Delay > 0 {
			if !d.rq.push(lr) {
				d.refuseRetry(end, lr)
			}
			return
		}
		if !d.acquire() {
			d.refuseRetry(end, lr)
			return
		}
	}
}

// firstSeen is the latency a completed attempt of lr, which took took
// and ended with o, counts at in its part of the run (parts.go): a first
// attempt's took, a timeout's at most the attempt's timeout (the client's
// patience, not how late its timer fired); −1 for a retry, or an attempt
// the run's end (ctx) cut short: the harness ended it, not the service.
func (d *Driver) firstSeen(ctx context.Context, lr logical, o vocab.Outcome, took time.Duration) time.Duration {
	if lr.attempt != 1 || ctx.Err() != nil {
		return -1
	}
	if o == vocab.OutcomeTimeout {
		timeout := d.cfg.Timeout
		if dl := d.cfg.Retry.Deadline; dl > 0 {
			timeout = min(timeout, dl)
		}
		return min(took, timeout)
	}
	return took
}

// refuseRetry ends a logical request whose granted retry found no slot.
func (d *Driver) refuseRetry(now time.Duration, lr logical) {
	d.rec.failed(now, lr.cohort, true)
	d.met.refused.Inc()
	d.met.requests[1].Inc()
	d.end()
}

// startRetry sends a retry whose backoff has elapsed, if a slot is free.
func (d *Driver) startRetry(ctx context.Context, lr logical) {
	if ctx.Err() != nil {
		d.rec.failed(d.now(), lr.cohort, false)
		d.met.requests[1].Inc()
		d.end()
		return
	}
	if !d.acquire() {
		d.refuseRetry(d.now(), lr)
		return
	}
	d.attempts.Add(1)
	go d.run(ctx, lr)
}

// trace sends tracer n: one attempt, X-Attempt 0, the tracer timeout, no
// retries. Its latency is a wait sample only when the service answered it
// (answeredStatus).
func (d *Driver) trace(ctx context.Context, n uint64) {
	defer d.attempts.Done()
	defer d.releaseTracer()
	now := d.now()
	d.rec.add(now, func(s *Second) { s.TracerSent++ })
	d.met.sent[kindTracer].Inc()
	o, _, code := d.do(ctx, logical{id: n, attempt: 0}, now, d.cfg.Tracers.Timeout, "0")
	end := d.now()
	answered := answeredStatus(code)
	d.rec.tracerDone(end, o, end-now, answered)
	d.met.attempts[kindTracer][o].Inc()
	d.met.duration[kindTracer].Observe((end - now).Seconds())
	if answered {
		d.met.wait.Observe((end - now).Seconds())
	}
}

// do sends one attempt sent at now and classifies it; it returns its
// outcome, the Retry-After of a 429 or 503, and the status of a response
// read to its end (0 when none was). The attempt's timeout is timeout, or
// less when the overall deadline of the logical request is closer;
// X-Deadline-Ms carries it.
func (d *Driver) do(ctx context.Context, lr logical, now, timeout time.Duration, attemptHdr string) (vocab.Outcome, time.Duration, int) {
	if dl := d.cfg.Retry.Deadline; dl > 0 && lr.attempt > 0 {
		timeout = min(timeout, lr.started+dl-now)
	}
	if timeout <= 0 {
		return vocab.OutcomeTimeout, 0, 0
	}
	if lr.own == nil && d.mix.reqs[lr.req].templated {
		lr.own, _ = d.render(lr) // a tracer of a request with per-request values
	}
	return d.path.exchange(ctx, lr, timeout, attemptHdr)
}

// statusOutcome classifies a response's status, with the delay its
// Retry-After value asks for when it is a 429 or a 503.
func (d *Driver) statusOutcome(code int, retryAfter string) (vocab.Outcome, time.Duration) {
	o := ClassifyStatus(code, d.cfg.OKStatus)
	if o == vocab.Outcome429 || o == vocab.Outcome503 {
		return o, retry.ParseRetryAfter(retryAfter, time.Now())
	}
	return o, 0
}

// appendRequestID appends the X-Request-Id of lr's attempts to dst: the
// run's prefix and the logical request's number, "t" before it for a
// tracer.
func (d *Driver) appendRequestID(dst []byte, lr logical) []byte {
	dst = append(dst, d.idPrefix...)
	if lr.attempt == 0 {
		dst = append(dst, 't')
	}
	return strconv.AppendUint(dst, lr.id, 10)
}

// newRequest builds one attempt's request with the tracking headers.
func (d *Driver) newRequest(ctx context.Context, lr logical, timeout time.Duration, attemptHdr string) (*http.Request, error) {
	r := d.mix.reqs[lr.req]
	u, header, rawBody := r.url, r.cfg.Header, r.cfg.Body
	if lr.own != nil && lr.own.url != nil {
		u, header, rawBody = lr.own.url, lr.own.header, lr.own.body
	}
	var body io.Reader
	if rawBody != nil {
		body = bytes.NewReader(rawBody)
	}
	// The URL was parsed once by NewDriver: pass none here and share it.
	req, err := http.NewRequestWithContext(ctx, r.cfg.Method, "", body)
	if err != nil {
		return nil, err
	}
	req.URL, req.Host = u, u.Host
	h := make(http.Header, len(header)+3)
	for k, v := range header {
		if !isTrackingHeader(k) { // in any case: the attempt sets its own
			h[k] = v
		}
	}
	if host := h.Get("Host"); host != "" {
		req.Host = host
		delete(h, "Host")
	}
	h["X-Request-Id"] = []string{string(d.appendRequestID(nil, lr))}
	h["X-Attempt"] = []string{attemptHdr}
	h["X-Deadline-Ms"] = []string{strconv.FormatInt(int64(timeout/time.Millisecond), 10)}
	req.Header = h
	return req, nil
}
