package loadgen

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/metadata"
	grpcstatus "google.golang.org/grpc/status"

	"github.com/trigger-test/trigger/internal/grpcdesc"
	"github.com/trigger-test/trigger/vocab"
)

// grpcStreamsPerConn is how many calls the pool plans to multiplex on one
// connection (the usual server limit, SETTINGS_MAX_CONCURRENT_STREAMS);
// maxGRPCConns bounds the pool. A server that allows fewer streams makes
// the calls beyond them wait for a stream within their deadline, as a
// real client's would.
const (
	grpcStreamsPerConn = 100
	maxGRPCConns       = 16
)

// grpcPoolSize is the connections a driver with maxInFlight attempts
// opens: enough for maxInFlight at grpcStreamsPerConn each, 1 to
// maxGRPCConns.
func grpcPoolSize(maxInFlight int) int {
	return min(max((maxInFlight+grpcStreamsPerConn-1)/grpcStreamsPerConn, 1), maxGRPCConns)
}

// grpcPath sends each attempt as a unary gRPC call on a bounded pool of
// HTTP/2 connections (grpc.ClientConn, grpc-go's own retries disabled),
// round robin: the request's message encoded once, sent raw (rawCodec),
// the attempt's timeout as the call's deadline (grpc-go sends it as
// grpc-timeout), the tracking headers as metadata.
type grpcPath struct {
	d      *Driver
	target string // passthrough:///host:port
	opts   []grpc.DialOption
	size   int
	reqs   []grpcRequest // the mix's calls, by index

	conns []*grpc.ClientConn // opened by start, closed by stop
	next  atomic.Uint64
	// encodes counts messages encoded to protobuf (a test watches it).
	encodes atomic.Int64
}

// grpcRequest is one call of the mix, what is built once.
type grpcRequest struct {
	method string
	md     metadata.MD // its metadata (Header), read-only
	msg    []byte      // its message encoded; nil when it holds markers
}

// newGRPCPath builds the gRPC path of d's mix (all gRPC calls to one
// host, checked by newMix): TLS for grpcs:// from tc (nil: Go's
// defaults), and each call's message encoded unless it holds markers.
func newGRPCPath(d *Driver, tc *tls.Config) (*grpcPath, error) {
	// The one mapping of a gRPC URL to an address and credentials, which
	// check and reflection use too: a URL without a port gets 80 or 443.
	addr, creds, err := grpcdesc.Dial(d.mix.reqs[0].url.String(), tc)
	if err != nil {
		return nil, fmt.Errorf("loadgen: %w", err)
	}
	p := &grpcPath{
		d:      d,
		target: "passthrough:///" + addr,
		size:   grpcPoolSize(d.cfg.MaxInFlight),
		opts: []grpc.DialOption{
			grpc.WithTransportCredentials(creds),
			grpc.WithDisableRetry(),
			grpc.WithSharedWriteBuffer(true),
			grpc.WithDefaultCallOptions(grpc.ForceCodecV2(rawCodec{})),
			// A service that restarts is reached again within a second,
			// not after grpc-go's default backoff of up to two minutes.
			grpc.WithConnectParams(grpc.ConnectParams{
				Backoff:           backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: time.Second},
				MinConnectTimeout: 2 * time.Second,
			}),
		},
	}
	for i, r := range d.mix.reqs {
		gr := grpcRequest{method: r.cfg.GRPC.Method, md: grpcMetadata(r.cfg.Header)}
		if !r.templated {
			msg, err := p.encode(i, r.cfg.Body)
			if err != nil {
				return nil, fmt.Errorf("loadgen: request %d (%q): %w", i, r.cfg.Name, err)
			}
			gr.msg = msg
		}
		p.reqs = append(p.reqs, gr)
	}
	return p, nil
}

// encode encodes request i's message from body, its protojson.
func (p *grpcPath) encode(i int, body []byte) ([]byte, error) {
	p.encodes.Add(1)
	return encodeMessage(p.d.mix.reqs[i].cfg.GRPC.Input, body)
}

// start opens the pool (grpc.NewClient connects on the first call).
func (p *grpcPath) start() error {
	for range p.size {
		cc, err := grpc.NewClient(p.target, p.opts...)
		if err != nil {
			p.stop()
			return fmt.Errorf("loadgen: grpc client: %w", err)
		}
		p.conns = append(p.conns, cc)
	}
	return nil
}

// stop closes the pool; its calls have ended.
func (p *grpcPath) stop() {
	for _, cc := range p.conns {
		cc.Close()
	}
	p.conns = nil
}

// render fills lr's per-request values into its call's metadata and
// message (the templates newTemplates split from Header and Body) and
// encodes the message: once per logical request. A message that does not
// encode leaves the call unsendable: its attempts are "other".
func (p *grpcPath) render(lr logical, t *templates, vals *perRequestValues) (*rendered, error) {
	out := &rendered{md: make(metadata.MD, len(t.header)+3)}
	for k, hs := range t.header {
		if isTrackingHeader(k) || strings.EqualFold(k, "Host") {
			continue
		}
		lk := strings.ToLower(k)
		for _, h := range hs {
			out.md[lk] = append(out.md[lk], string(vals.fill(h)))
		}
	}
	var err error
	out.msg, err = p.encode(int(lr.req), vals.fill(t.netBody))
	if err != nil {
		out.msg = nil
		return out, err
	}
	return out, nil
}

func (p *grpcPath) exchange(ctx context.Context, lr logical, timeout time.Duration, attemptHdr string) (vocab.Outcome, time.Duration, int) {
	r := &p.reqs[lr.req]
	msg, md := r.msg, r.md
	if lr.own != nil {
		msg, md = lr.own.msg, lr.own.md
	}
	if msg == nil || len(p.conns) == 0 {
		return vocab.OutcomeOther, 0, 0 // a message that did not encode; or not running
	}
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var idb [64]byte
	actx = metadata.NewOutgoingContext(actx, md)
	actx = metadata.AppendToOutgoingContext(actx,
		"x-request-id", string(p.d.appendRequestID(idb[:0], lr)),
		"x-attempt", attemptHdr,
		"x-deadline-ms", strconv.FormatInt(int64(timeout/time.Millisecond), 10))
	var trailer metadata.MD
	cc := p.conns[p.next.Add(1)%uint64(len(p.conns))]
	err := cc.Invoke(actx, r.method, msg, discardReply, grpc.Trailer(&trailer))
	if err == nil {
		return vocab.OutcomeOK, 0, 200
	}
	switch {
	case ctx.Err() != nil && !errors.Is(actx.Err(), context.DeadlineExceeded):
		return vocab.OutcomeOther, 0, 0 // the run's end cut it short
	case errors.Is(actx.Err(), context.DeadlineExceeded):
		return vocab.OutcomeTimeout, 0, 0
	}
	o := ClassifyGRPC(grpcstatus.Code(err))
	ra := parsePushback(trailer.Get(pushbackKey))
	if ra > 0 && o != vocab.Outcome429 && o != vocab.Outcome503 {
		ra = 0 // honoured as Retry-After is: on 429 and 503 only
	}
	return o, ra, grpcStatusLike(o)
}
