package loadgen

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/trigger-test/trigger/vocab"
)

// An attemptPath sends one attempt of the driver's request and reads its
// response to the end: net/http's RoundTripper (roundTripPath) or the
// lean HTTP/1.1 path (leanPath), or a gRPC call (grpcPath). NewDriver
// picks one (chooseAttemptPath; newGRPCPath for a mix of gRPC calls).
type attemptPath interface {
	// exchange sends lr's attempt with its tracking headers, within
	// timeout, and returns its outcome, the Retry-After of a 429 or 503,
	// and the status of a response read to its end (0 when none was).
	exchange(ctx context.Context, lr logical, timeout time.Duration, attemptHdr string) (vocab.Outcome, time.Duration, int)
}

var (
	_ attemptPath = roundTripPath{}
	_ attemptPath = leanPath{}
	_ attemptPath = (*grpcPath)(nil)
)

// chooseAttemptPath picks the lean path when the transport is a
// LeanTransport that serves every request's scheme on it (HTTP/1.1 over
// http://), else the RoundTripper's. reqs are the mix's requests, built.
func chooseAttemptPath(d *Driver, reqs []*http.Request) (attemptPath, error) {
	if lt, ok := d.rt.(*LeanTransport); ok && lt.h1 && d.mix.allHTTP() {
		p := leanPath{d: d, t: lt}
		for _, req := range reqs {
			lr, err := newLeanRequest(req)
			if err != nil {
				return nil, err
			}
			p.reqs = append(p.reqs, lr)
		}
		return p, nil
	}
	return roundTripPath{d}, nil
}

// roundTripPath sends each attempt as an http.Request through the
// driver's RoundTripper.
type roundTripPath struct{ d *Driver }

func (p roundTripPath) exchange(ctx context.Context, lr logical, timeout time.Duration, attemptHdr string) (vocab.Outcome, time.Duration, int) {
	d := p.d
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := d.newRequest(actx, lr, timeout, attemptHdr)
	if err != nil {
		return vocab.OutcomeOther, 0, 0
	}
	resp, err := d.rt.RoundTrip(req)
	if err != nil {
		return ClassifyError(actx, err), 0, 0
	}
	o, ra := d.statusOutcome(resp.StatusCode, resp.Header.Get("Retry-After"))
	_, err = io.Copy(io.Discard, resp.Body) // to its end, within actx's deadline
	resp.Body.Close()
	code := resp.StatusCode
	if err != nil {
		o, code = ClassifyError(actx, err), 0
	}
	return o, ra, code
}

// leanPath sends each attempt on the driver's LeanTransport: the
// request's bytes built once (leanRequest) and this attempt's tracking
// headers, no http.Request, header map or context of its own.
type leanPath struct {
	d    *Driver
	t    *LeanTransport
	reqs []*leanRequest // the mix's requests in wire form, by index
}

func (p leanPath) exchange(ctx context.Context, lr logical, timeout time.Duration, attemptHdr string) (vocab.Outcome, time.Duration, int) {
	d := p.d
	deadline := time.Now().Add(timeout)
	var tb [160]byte
	track := append(tb[:0], "X-Request-Id: "...)
	track = d.appendRequestID(track, lr)
	track = append(track, "\r\nX-Attempt: "...)
	track = append(track, attemptHdr...)
	track = append(track, "\r\nX-Deadline-Ms: "...)
	track = strconv.AppendInt(track, int64(timeout/time.Millisecond), 10)
	track = append(track, "\r\n"...)
	req := p.reqs[lr.req]
	if lr.own != nil && lr.own.lean != nil {
		req = lr.own.lean
	}
	code, retryAfter, err := p.t.attempt(ctx, req, track, deadline)
	if err != nil {
		if !time.Now().Before(deadline) {
			return vocab.OutcomeTimeout, 0, 0
		}
		return ClassifyError(ctx, err), 0, 0
	}
	o, ra := d.statusOutcome(code, retryAfter)
	return o, ra, code
}
