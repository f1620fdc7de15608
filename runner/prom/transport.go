package prom

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/api"
)

// newTransport returns the HTTP transport of one Remote: its own, so that
// closing the Remote closes its idle connections.
func newTransport(tc *tls.Config) *http.Transport {
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:       tc,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          8,
		MaxIdleConnsPerHost:   8,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
}

// attempt records what the HTTP layer saw during one attempt of a query,
// for the retry decision: client_golang's v1 API folds the status code
// into its error text.
type attempt struct {
	status     int           // last HTTP status seen; 0 = no response
	retryAfter time.Duration // Retry-After of a 429 or 503, 0 = none
}

type attemptKey struct{}

// withAttempt returns ctx carrying a fresh *attempt.
func withAttempt(ctx context.Context) (context.Context, *attempt) {
	a := &attempt{}
	return context.WithValue(ctx, attemptKey{}, a), a
}

// maxAnswer bounds a Prometheus answer, bytes: a query the runner asks
// returns one number, the targets list a few hundred bytes a target; a
// server (or a proxy in front of it) that answers more is cut off, so
// that no answer can take the run's memory or stall its driver with the
// garbage collector.
const maxAnswer = 16 << 20

// errAnswerTooLarge is the failure of an answer longer than maxAnswer.
var errAnswerTooLarge = errors.New("the answer is larger than 16 MiB")

// boundedAnswers is a RoundTripper whose responses' bodies fail with
// errAnswerTooLarge once they pass maxAnswer bytes.
type boundedAnswers struct{ rt http.RoundTripper }

func (b boundedAnswers) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := b.rt.RoundTrip(req)
	if err == nil {
		resp.Body = &boundedBody{ReadCloser: resp.Body, left: maxAnswer}
	}
	return resp, err
}

// boundedBody lets at most left more bytes through.
type boundedBody struct {
	io.ReadCloser
	left int64
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more than allowed means the answer is too large.
		var one [1]byte
		n, err := b.ReadCloser.Read(one[:])
		switch {
		case n > 0:
			return 0, errAnswerTooLarge
		case err == nil:
			return 0, io.ErrNoProgress
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

// recordingClient is an api.Client that notes each response's status in
// the *attempt carried by the request's context.
type recordingClient struct {
	api.Client
}

// Do implements api.Client.
func (c recordingClient) Do(ctx context.Context, req *http.Request) (*http.Response, []byte, error) {
	a, _ := ctx.Value(attemptKey{}).(*attempt)
	if a != nil {
		*a = attempt{} // a GET fallback after a POST starts afresh
	}
	resp, body, err := c.Client.Do(ctx, req)
	if a != nil && resp != nil {
		a.status = resp.StatusCode
		a.retryAfter = parseRetryAfter(resp.Header.Get("Retry-After"))
	}
	if k, _ := ctx.Value(keptKey{}).(*kept); k != nil && resp != nil {
		k.status, k.body = resp.StatusCode, body
	}
	return resp, body, err
}

// kept is the raw answer of a request, for the fields client_golang's
// v1 types do not decode (the scrapeInterval of /api/v1/targets).
type kept struct {
	status int    // HTTP status; 0 = no response
	body   []byte // the body as read
}

type keptKey struct{}

// withKept returns ctx asking recordingClient to keep the raw answer of
// each request made with it in k (the last one wins).
func withKept(ctx context.Context, k *kept) context.Context {
	return context.WithValue(ctx, keptKey{}, k)
}

// parseRetryAfter reads a Retry-After header given in seconds; the HTTP
// date form and anything else give 0.
func parseRetryAfter(h string) time.Duration {
	if h == "" {
		return 0
	}
	s, err := strconv.Atoi(strings.TrimSpace(h))
	if err != nil || s < 0 {
		return 0
	}
	// A day is more than any backoff (MaxBackoff caps the wait); a larger
	// value would overflow a time.Duration.
	return time.Duration(min(s, 86400)) * time.Second
}
