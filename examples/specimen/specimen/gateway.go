package specimen

import (
	"context"
	"strconv"
	"sync/atomic"
	"time"
)

// Gateway outcomes, the values of label outcome of
// specimen_gateway_requests_total.
const (
	gwOK       = iota // an upstream try was answered
	gwTimeout         // every try timed out: 504 to the client
	gwRejected        // the pods refused the last try: its status to the client
	gwOverflow        // the gateway held MaxInFlight requests: 503 at once
	gwGone            // the client left and CancelOnClientGone stopped the retries
	gwShutdown        // the server stopped meanwhile
	numGatewayOutcomes
)

var gatewayOutcomes = [numGatewayOutcomes]string{"ok", "timeout", "rejected", "overflow", "client_gone", "shutdown"}

// gateway is the retrying layer in front of the pods, in process: each try
// is an item submitted to the service and waited for at most TryTimeout.
// A try that times out is abandoned upstream the way a client abandons an
// attempt: in System A the pods still serve it, which is the hidden
// amplification (docs/model.md, "Retry debt and amplification": layers
// multiply).
type gateway struct {
	cfg      GatewayConfig
	svc      *service
	inFlight atomic.Int64
}

// do runs one client attempt through the gateway. clientDone is closed when
// the client has gone; it is only heeded with CancelOnClientGone. With
// propagate the gateway propagates deadlines: each try carries the smaller
// of the client's deadline (zero: none) and the try's own timeout, and the
// pods drop a try whose deadline passed. It returns the result for the
// client and the outcome index.
func (g *gateway) do(ctx context.Context, clientDone <-chan struct{}, attempt string, deadline time.Time,
	propagate, cancelable bool) (result, int) {
	if g.inFlight.Add(1) > int64(g.cfg.MaxInFlight) {
		g.inFlight.Add(-1)
		return result{status: 503, reason: "gateway_overflow"}, gwOverflow
	}
	defer g.inFlight.Add(-1)
	if !g.cfg.CancelOnClientGone {
		clientDone = nil
	}
	timer := time.NewTimer(g.cfg.TryTimeout)
	defer timer.Stop()
	var last result
	for try := 1; try <= g.cfg.Retries+1; try++ {
		s := g.svc
		now := s.now()
		it := newItem(ClassifyAttempt(attempt, strconv.Itoa(try)), now, cancelable)
		// A gateway that propagates deadlines sends the smaller of its
		// client's deadline and its own try timeout.
		if propagate {
			it.deadline = now.Add(g.cfg.TryTimeout)
			if !deadline.IsZero() && deadline.Before(it.deadline) {
				it.deadline = deadline
			}
		}
		s.c.gwUpstream.Add(1)
		if res := s.submit(it); res != nil {
			last = *res
			if g.cfg.RetryOn5xx && try <= g.cfg.Retries {
				continue
			}
			return last, gwRejected
		}
		timer.Reset(g.cfg.TryTimeout)
		select {
		case res := <-it.done:
			timer.Stop()
			if res.status == 200 {
				return res, gwOK
			}
			last = res
			if g.cfg.RetryOn5xx && try <= g.cfg.Retries {
				continue
			}
			return last, gwRejected
		case <-timer.C:
			s.clientGone(it) // the gateway abandons this try upstream
			last = result{status: 504, reason: "gateway_timeout"}
		case <-clientDone:
			s.clientGone(it)
			return result{status: 504, reason: "client_gone"}, gwGone
		case <-ctx.Done():
			s.clientGone(it)
			return result{status: 503, reason: "shutdown"}, gwShutdown
		}
	}
	if last.status == 504 {
		return last, gwTimeout
	}
	return last, gwRejected
}
