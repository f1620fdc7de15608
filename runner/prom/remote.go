package prom

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"

	"github.com/prometheus/common/model"
	"github.com/trigger-test/trigger/internal/tlsfiles"
	"github.com/trigger-test/trigger/retry"
	"github.com/trigger-test/trigger/vocab"
)

// Defaults of RemoteConfig.
const (
	// DefaultTimeout bounds one attempt of a query.
	DefaultTimeout = 10 * time.Second
	// DefaultRetries is the number of retries after a transient failure.
	DefaultRetries = 3
	// DefaultRetryBackoff is the wait before the first retry; it doubles
	// per retry up to DefaultMaxBackoff.
	DefaultRetryBackoff = 200 * time.Millisecond
	// DefaultMaxBackoff caps the wait between retries, a Retry-After
	// header included.
	DefaultMaxBackoff = 5 * time.Second
)

// RemoteConfig says how to reach a Prometheus-compatible HTTP API.
type RemoteConfig struct {
	// Address is the base URL, e.g. http://prometheus:9090 (the API is
	// under Address + "/api/v1").
	Address string
	// BearerToken is sent as "Authorization: Bearer ..."; the caller
	// resolves it from the environment variable the scenario names.
	// "" = none. Exclusive with Username.
	BearerToken string
	// Username and Password are sent as HTTP basic auth; "" = none.
	// Credentials go to the origin (scheme, host, port) of Address only:
	// a redirect to the same origin is followed, one to another origin is
	// an error (ErrServer), never followed.
	Username, Password string
	// TLS configures https; nil = Go's defaults with the system roots.
	TLS *tlsfiles.Files
	// Timeout bounds one attempt of a query; 0 = DefaultTimeout. A timed
	// out attempt is not retried: more load does not help a slow server.
	Timeout time.Duration
	// Retries is the number of further attempts after a transient failure
	// (connection refused or reset, HTTP 5xx, 429); 0 = DefaultRetries,
	// negative = none.
	Retries int
	// RetryBackoff is the wait before the first retry, doubling per retry
	// with jitter up to MaxBackoff; 0 = DefaultRetryBackoff.
	RetryBackoff time.Duration
	// MaxBackoff caps the wait between retries; 0 = DefaultMaxBackoff.
	MaxBackoff time.Duration
}

// Remote is a Querier over the HTTP API of a Prometheus server, read with
// client_golang's api/prometheus/v1 client. It is safe for concurrent use.
type Remote struct {
	addr      string
	api       v1.API
	transport *http.Transport
	timeout   time.Duration
	retries   int
	// backoff is the wait before each retry: exponential from
	// RetryBackoff, capped at MaxBackoff, with equal jitter (a wait in
	// [d/2, d] for the nominal d).
	backoff retry.Backoff
}

var _ Querier = (*Remote)(nil)

// NewRemote checks cfg and returns a Remote; it sends nothing (see Ping).
func NewRemote(cfg RemoteConfig) (*Remote, error) {
	u, err := url.Parse(cfg.Address)
	if err != nil {
		return nil, fmt.Errorf("prom: address %q: %w", cfg.Address, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("prom: address %q: want a base URL such as http://prometheus:9090", cfg.Address)
	}
	if cfg.BearerToken != "" && (cfg.Username != "" || cfg.Password != "") {
		return nil, errors.New("prom: bearer token and basic auth are exclusive: set one")
	}
	var tc *tls.Config
	if cfg.TLS != nil {
		if tc, err = cfg.TLS.Load(); err != nil {
			return nil, fmt.Errorf("prom: %w", err)
		}
	}
	tr := newTransport(tc)
	home := originOf(u)
	var rt http.RoundTripper = boundedAnswers{tr}
	switch {
	case cfg.BearerToken != "":
		rt = bearer(home, cfg.BearerToken, rt)
	case cfg.Username != "" || cfg.Password != "":
		rt = basicAuth(home, cfg.Username, cfg.Password, rt)
	}
	client := &http.Client{Transport: rt, CheckRedirect: sameOriginRedirects(home)}
	c, err := api.NewClient(api.Config{Address: cfg.Address, Client: client})
	if err != nil {
		return nil, fmt.Errorf("prom: address %q: %w", cfg.Address, err)
	}
	r := &Remote{
		addr:      cfg.Address,
		api:       v1.NewAPI(recordingClient{c}),
		transport: tr,
		timeout:   cfg.Timeout,
		retries:   cfg.Retries,
		backoff:   retry.Backoff{Kind: vocab.BackoffExponential, Base: cfg.RetryBackoff, Max: cfg.MaxBackoff, Jitter: vocab.JitterEqual},
	}
	if r.timeout <= 0 {
		r.timeout = DefaultTimeout
	}
	switch {
	case r.retries == 0:
		r.retries = DefaultRetries
	case r.retries < 0:
		r.retries = 0
	}
	if r.backoff.Base <= 0 {
		r.backoff.Base = DefaultRetryBackoff
	}
	if r.backoff.Max <= 0 {
		r.backoff.Max = DefaultMaxBackoff
	}
	return r, nil
}

// Address returns the base URL the Remote reads.
func (r *Remote) Address() string { return r.addr }

// Close closes the Remote's idle connections. The Remote stays usable.
func (r *Remote) Close() { r.transport.CloseIdleConnections() }

// Ping checks that Prometheus answers, with the query "1", retrying
// transient failures like any query. Its error names the address and wraps
// ErrUnreachable, ErrTimeout or ErrServer.
func (r *Remote) Ping(ctx context.Context) error {
	v, err := r.do(ctx, func(ctx context.Context) (model.Value, error) {
		v, _, _, err := r.api.Query(ctx, "1", time.Now())
		return v, err
	})
	if err != nil {
		return err
	}
	if _, ok := v.(*model.Scalar); !ok {
		return fmt.Errorf("prometheus at %s: %w: the query \"1\" gave %v, not a scalar; is this Prometheus?", r.addr, ErrServer, v)
	}
	return nil
}

// Instant evaluates query at t (Querier).
func (r *Remote) Instant(ctx context.Context, query string, t time.Time) (float64, error) {
	v, err := r.query(ctx, query, t)
	if err != nil {
		return 0, err
	}
	x, err := instantValue(v)
	if err != nil {
		return 0, &QueryError{Query: query, Err: err}
	}
	return x, nil
}

// query evaluates query at t and returns the result as the server gave
// it (a scalar, vector or matrix); its error is a *QueryError.
func (r *Remote) query(ctx context.Context, query string, t time.Time) (model.Value, error) {
	v, err := r.do(ctx, func(ctx context.Context) (model.Value, error) {
		v, _, _, err := r.api.Query(ctx, query, t)
		return v, err
	})
	if err != nil {
		return nil, &QueryError{Query: query, Err: err}
	}
	return v, nil
}

// Range evaluates query over [start, end] every step (Querier).
func (r *Remote) Range(ctx context.Context, query string, start, end time.Time, step time.Duration) ([]Sample, error) {
	if step <= 0 || end.Before(start) {
		return nil, &QueryError{Query: query, Err: fmt.Errorf("%w: range [%s, %s] step %v: want start <= end and step > 0", ErrBadQuery, start.Format(time.RFC3339), end.Format(time.RFC3339), step)}
	}
	v, err := r.do(ctx, func(ctx context.Context) (model.Value, error) {
		v, _, _, err := r.api.QueryRange(ctx, query, v1.Range{Start: start, End: end, Step: step})
		return v, err
	})
	if err != nil {
		return nil, &QueryError{Query: query, Err: err}
	}
	s, err := rangeSamples(v)
	if err != nil {
		return nil, &QueryError{Query: query, Err: err}
	}
	return s, nil
}

// do runs call with a timeout per attempt, retrying transient failures
// with exponential backoff (or the server's Retry-After, whichever is
// longer, capped at MaxBackoff).
func (r *Remote) do(ctx context.Context, call func(context.Context) (model.Value, error)) (model.Value, error) {
	for n := 0; ; n++ {
		actx, cancel := context.WithTimeout(ctx, r.timeout)
		actx, a := withAttempt(actx)
		v, err := call(actx)
		cancel()
		if err == nil {
			return v, nil
		}
		c := classify(ctx, err, a, r.addr, r.timeout)
		if !c.transient || n >= r.retries {
			if c.transient && n > 0 {
				return nil, fmt.Errorf("%w (after %d attempts)", c.err, n+1)
			}
			return nil, c.err
		}
		jitter := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
		wait := max(r.backoff.Delay(n+1, 0, jitter), min(a.retryAfter, r.backoff.Max))
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("prometheus at %s: %w while waiting to retry after: %w", r.addr, ctx.Err(), c.err)
		case <-t.C:
		}
	}
}
