package loadgen

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"
)

// LeanTransport is a minimal HTTP/1.1 RoundTripper for http:// targets,
// built for timeout storms: an attempt costs its caller's goroutine and its
// connection, and nothing else — no per-connection reader and writer
// goroutines as in net/http's Transport, whose stacks are a third of the
// memory of a waiting attempt there. Requests are written with
// http.Request.Write and responses parsed with http.ReadResponse, so the
// wire format is the standard library's (the Driver's own attempts skip
// both where they can: leanRequest, parseLeanHead); the attempt's context deadline
// becomes the connection's deadline, and cancelling the context (the run
// ending) expires it at once. Keep-alive connections whose response body was
// read to the end are kept, up to MaxIdleConnsPerHost per host, and checked
// for a close by the server before reuse. A request on a reused connection
// that fails before any byte of a response is retried once on a new
// connection if it is replayable by net/http's rule (idempotent method or an
// idempotency key); otherwise the error is returned.
// https:// and other schemes go to Fallback. Safe for concurrent use.
type LeanTransport struct {
	// Fallback serves what the lean path does not (https); nil means a
	// NewTransport with the same options.
	Fallback http.RoundTripper

	d       *dialer
	bufSize int
	maxIdle int
	h1      bool // the lean path is used (false when the options ask for HTTP/2)

	mu   sync.Mutex
	idle map[string][]*leanConn // by host:port, most recently used last

	requests requestBuffers
}

// requestBuffers holds the buffers requests are written into before they
// are sent.
type requestBuffers struct{ pool sync.Pool }

// maxPooledRequest is the largest request buffer kept for reuse (bytes):
// a request with a large body does not pin its buffer in the pool.
const maxPooledRequest = 64 << 10

// get returns an empty buffer.
func (r *requestBuffers) get() *bytes.Buffer {
	if b, ok := r.pool.Get().(*bytes.Buffer); ok {
		b.Reset()
		return b
	}
	return new(bytes.Buffer)
}

// put takes back a buffer whose bytes are sent (or will not be).
func (r *requestBuffers) put(b *bytes.Buffer) {
	if b.Cap() <= maxPooledRequest {
		r.pool.Put(b)
	}
}

// leanConn is one keep-alive connection.
type leanConn struct {
	net.Conn
	raw  syscall.RawConn // the socket, for send and alive; nil if the Conn has none
	br   *bufio.Reader   // reads through in
	in   headBudget
	used time.Time // when it went idle
}

// maxResponseHead bounds what a response's head (informational heads
// before it included) may take from the connection, bytes: a head is a few
// hundred bytes, and a target that sends an endless header line must not
// take the driver's memory with it (net/http's Transport has its own
// bound, MaxResponseHeaderBytes).
const maxResponseHead = 1 << 20

// errHeadTooLarge is the failure of a response whose head is longer than
// maxResponseHead.
var errHeadTooLarge = errors.New("loadgen: response head longer than 1 MiB")

// headBudget is the reader under a lean connection's buffer: while a
// response's head is read (left ≥ 0) it lets at most left more bytes
// through, then fails with errHeadTooLarge; while its body is read
// (left < 0) it passes everything.
type headBudget struct {
	conn net.Conn
	left int64
}

func (h *headBudget) Read(p []byte) (int, error) {
	if h.left < 0 {
		return h.conn.Read(p)
	}
	if h.left == 0 {
		return 0, errHeadTooLarge
	}
	if int64(len(p)) > h.left {
		p = p[:h.left]
	}
	n, err := h.conn.Read(p)
	h.left -= int64(n)
	return n, err
}

// readingHead bounds the reads of a response's head (on), or lifts the
// bound for its body (off). What the buffer holds already counts against
// nothing: it is at most its size.
func (c *leanConn) readingHead(on bool) {
	if on {
		c.in.left = maxResponseHead
	} else {
		c.in.left = -1
	}
}

// expire makes the connection's pending and future reads and writes fail
// at once.
func (c *leanConn) expire() { c.SetDeadline(time.Unix(1, 0)) }

// newLeanConn wraps a dialed connection.
func newLeanConn(conn net.Conn, bufSize int) *leanConn {
	c := &leanConn{Conn: conn, in: headBudget{conn: conn, left: -1}}
	c.br = bufio.NewReaderSize(&c.in, bufSize)
	if sc, ok := conn.(syscall.Conn); ok {
		c.raw, _ = sc.SyscallConn()
	}
	return c
}

// leanBufferSize is the default read buffer of a lean connection: a
// response head of a few hundred bytes fits, a longer line is read in pieces,
// and bodies bypass it.
const leanBufferSize = 512

// leanIdleTimeout is how long an idle connection is kept.
const leanIdleTimeout = 90 * time.Second

// NewLeanTransport returns a LeanTransport with the socket options of o
// (Linger0, SourceAddrs, DialTimeout, BufferSize — 512 bytes when 0 —,
// MaxIdleConnsPerHost); its Fallback is NewTransport(o). With o.HTTP2 every
// request goes to the fallback (HTTP/2 only, h2c for http://).
func NewLeanTransport(o TransportOptions) *LeanTransport {
	if o.MaxIdleConnsPerHost <= 0 {
		o.MaxIdleConnsPerHost = 4096
	}
	if o.BufferSize <= 0 {
		o.BufferSize = leanBufferSize
	}
	t := &LeanTransport{
		Fallback: NewTransport(o),
		d:        newDialer(o),
		bufSize:  o.BufferSize,
		maxIdle:  o.MaxIdleConnsPerHost,
		h1:       !o.HTTP2,
		idle:     map[string][]*leanConn{},
	}
	return t
}

var errLeanReused = errors.New("loadgen: lean: reused connection closed before a response")

// reusedClosed is the error of a request that may not be sent again
// (replayable) whose reused connection the server had closed.
func reusedClosed(method string) error {
	return fmt.Errorf("loadgen: lean: %s on a reused connection: %w", method, io.ErrUnexpectedEOF)
}

// RoundTrip sends one request and returns its response; the body must be
// read to the end or closed.
func (t *LeanTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme != "http" || !t.h1 {
		return t.Fallback.RoundTrip(req)
	}
	resp, err := t.roundTrip(req, true)
	if errors.Is(err, errLeanReused) && !replayable(req) {
		return nil, reusedClosed(req.Method)
	}
	if errors.Is(err, errLeanReused) {
		if req.GetBody != nil {
			body, gerr := req.GetBody()
			if gerr != nil {
				return nil, gerr
			}
			r2 := *req
			r2.Body = body
			req = &r2
		}
		return t.roundTrip(req, false)
	}
	return resp, err
}

func (t *LeanTransport) roundTrip(req *http.Request, mayReuse bool) (*http.Response, error) {
	ctx := req.Context()
	key := canonicalAddr(req)
	deadline, _ := ctx.Deadline()
	c, reused, stop, err := t.open(ctx, key, deadline, mayReuse)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*http.Response, error) { return nil, c.abandon(ctx, stop, err) }

	buf := t.requests.get()
	if err := req.Write(buf); err != nil {
		t.requests.put(buf)
		return fail(err)
	}
	if err := c.sendRequest(ctx, buf, &t.requests, reused); err != nil {
		return fail(err)
	}
	var resp *http.Response
	c.readingHead(true)
	for {
		var err error
		resp, err = http.ReadResponse(c.br, req)
		if err != nil {
			return fail(err)
		}
		if resp.StatusCode >= 100 && resp.StatusCode < 200 && resp.StatusCode != http.StatusSwitchingProtocols {
			continue // informational: the real response follows
		}
		break
	}
	c.readingHead(false)
	keep := !resp.Close && !req.Close && resp.StatusCode != http.StatusSwitchingProtocols
	resp.Body = &leanBody{rc: resp.Body, t: t, c: c, key: key, stop: stop, keep: keep}
	return resp, nil
}

// open returns a connection to key for a request that must end by
// deadline (zero: none): an idle one when mayReuse and one is open
// (reused), else a new one dialed by the deadline. The connection's
// deadline is set, and ctx ending expires it at once until stop is called
// (stop reports false when it already had).
func (t *LeanTransport) open(ctx context.Context, key string, deadline time.Time, mayReuse bool) (c *leanConn, reused bool, stop func() bool, err error) {
	if mayReuse {
		c = t.getIdle(key)
		reused = c != nil
	}
	if c == nil {
		dctx := ctx
		if !deadline.IsZero() {
			var cancel context.CancelFunc
			dctx, cancel = context.WithDeadline(ctx, deadline)
			defer cancel()
		}
		conn, err := t.dial(dctx, key)
		if err != nil {
			return nil, false, nil, err
		}
		c = newLeanConn(conn, t.bufSize)
	}
	c.SetDeadline(deadline)
	return c, reused, context.AfterFunc(ctx, c.expire), nil
}

// abandon closes c after its request failed with err and returns err,
// with ctx's error beside it when ctx has ended (the caller gave up, not
// the connection). errLeanReused stays recognisable (errors.Is).
func (c *leanConn) abandon(ctx context.Context, stop func() bool, err error) error {
	stop()
	c.Close()
	if ctx.Err() != nil {
		return fmt.Errorf("loadgen: lean: %w (%w)", ctx.Err(), err)
	}
	return err
}

// dial connects in a goroutine of its own: the dial path is deep, and a
// stack grown by it would stay with the attempt's goroutine while it waits
// for the response (the timeout-storm benchmark measures the memory per
// attempt in flight; bench/loadgen/README.md, "Timeout storms").
func (t *LeanTransport) dial(ctx context.Context, key string) (net.Conn, error) {
	type result struct {
		c   net.Conn
		err error
	}
	ch := make(chan result, 1)
	go func() {
		c, err := t.d.dialContext(ctx, "tcp", key)
		ch <- result{c, err}
	}()
	r := <-ch
	return r.c, r.err
}

// sendRequest sends buf on c (send: buf goes back to bufs once written)
// and, on a reused connection, waits for the response's first byte. A
// reused connection the server closed meanwhile fails there, before any
// byte of a response: only then may the request be sent again (once a
// byte arrived, the server saw it), and sendRequest says so with
// errLeanReused. Other errors are returned as they are.
func (c *leanConn) sendRequest(ctx context.Context, buf *bytes.Buffer, bufs *requestBuffers, reused bool) error {
	err := c.send(buf, bufs)
	if err == nil && reused {
		_, err = c.br.Peek(1)
	}
	if err != nil && reused && ctx.Err() == nil && closedByPeer(err) {
		return errLeanReused
	}
	return err
}

// replayable reports whether a request may be sent again after a reused
// connection failed under it, by net/http's rule: idempotent methods, or an
// idempotency key, and a body that can be produced again.
func replayable(req *http.Request) bool {
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		return false
	}
	switch req.Method {
	case "", http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return true
	}
	_, key := req.Header["Idempotency-Key"]
	_, xkey := req.Header["X-Idempotency-Key"]
	return key || xkey
}

// alive reports whether an idle connection is still open: nothing to read
// and no EOF (net/http's Transport learns of a close from its per-connection
// reader, which the lean transport does not have).
func (c *leanConn) alive() bool {
	if c.br.Buffered() > 0 {
		return false
	}
	return c.raw == nil || peekAlive(c.raw)
}

// closedByPeer reports an error of a connection the server had closed or
// reset (not a timeout): the request never reached it.
func closedByPeer(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return false
	}
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// canonicalAddr returns host:port of the request's URL (port 80 by default).
func canonicalAddr(req *http.Request) string {
	host, port := req.URL.Hostname(), req.URL.Port()
	if port == "" {
		port = "80"
	}
	return net.JoinHostPort(host, port)
}

// getIdle returns a fresh, still open idle connection to key, or nil.
// Every one is peeked at first (alive): send writes without reading, so a
// close that arrived before it would otherwise be seen only at the
// attempt's deadline, and counted as a timeout of the service.
func (t *LeanTransport) getIdle(key string) *leanConn {
	for {
		t.mu.Lock()
		cs := t.idle[key]
		if len(cs) == 0 {
			t.mu.Unlock()
			return nil
		}
		c := cs[len(cs)-1]
		t.idle[key] = cs[:len(cs)-1]
		t.mu.Unlock()
		if time.Since(c.used) < leanIdleTimeout && c.alive() {
			return c
		}
		c.Close()
	}
}

// putIdle keeps c for reuse, or closes it when the pool is full.
func (t *LeanTransport) putIdle(key string, c *leanConn) {
	c.SetDeadline(time.Time{})
	c.used = time.Now()
	t.mu.Lock()
	if len(t.idle[key]) < t.maxIdle {
		t.idle[key] = append(t.idle[key], c)
		c = nil
	}
	t.mu.Unlock()
	if c != nil {
		c.Close()
	}
}

// CloseIdleConnections closes the idle connections of both paths.
func (t *LeanTransport) CloseIdleConnections() {
	t.mu.Lock()
	idle := t.idle
	t.idle = map[string][]*leanConn{}
	t.mu.Unlock()
	for _, cs := range idle {
		for _, c := range cs {
			c.Close()
		}
	}
	if ci, ok := t.Fallback.(interface{ CloseIdleConnections() }); ok {
		ci.CloseIdleConnections()
	}
}

// leanBody returns its connection to the pool once read to the end.
type leanBody struct {
	rc   io.ReadCloser
	t    *LeanTransport
	c    *leanConn
	key  string
	stop func() bool
	keep bool
	eof  bool
	done bool
}

// Read reads the response body and notes its end.
func (b *leanBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if err == io.EOF {
		b.eof = true
	}
	return n, err
}

// Close keeps the connection for reuse if the body was read to the end, the
// response allows keep-alive and the context did not fire; else closes it.
func (b *leanBody) Close() error {
	if b.done {
		return nil
	}
	b.done = true
	stopped := b.stop() // false: the context fired, the deadline was expired
	if b.keep && b.eof && stopped && b.c.br.Buffered() == 0 {
		err := b.rc.Close()
		b.t.putIdle(b.key, b.c)
		return err
	}
	// Not reusable: close the connection first, so that closing the body
	// does not read the rest of it from the wire (net/http's body drains
	// a keep-alive response on Close; the attempt is over).
	b.c.Close()
	b.rc.Close()
	return nil
}
