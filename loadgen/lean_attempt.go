package loadgen

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"
)

// leanRequest is a driver's request in wire form, built once by
// newLeanRequest: an attempt writes head, its own tracking headers, the
// empty line and body. The driver's attempts take this path on its
// LeanTransport instead of building an http.Request, a header map and a
// context each (bench/loadgen/README.md, "CPU per attempt").
type leanRequest struct {
	head       []byte // request line and header lines, each ending in CRLF
	body       []byte
	method     string
	key        string // host:port to connect to
	replayable bool   // may be sent again after a reused connection failed under it
	// forRead is what http.ReadResponse is given when it reads a response
	// parseLeanHead leaves to it (it looks at the method only).
	forRead *http.Request
}

// trackingHeaders are the headers each attempt sets itself (Driver.newRequest).
var trackingHeaders = []string{"X-Request-Id", "X-Attempt", "X-Deadline-Ms"}

// isTrackingHeader reports whether a header name is one of
// trackingHeaders in any case (a configured "x-attempt" would otherwise be
// sent beside the attempt's own, and read first by some servers).
func isTrackingHeader(name string) bool {
	for _, k := range trackingHeaders {
		if strings.EqualFold(name, k) {
			return true
		}
	}
	return false
}

// newLeanRequest writes req (an http:// request with a body it can read
// again) the way http.Request.Write does, without the tracking headers,
// and keeps its bytes.
func newLeanRequest(req *http.Request) (*leanRequest, error) {
	r := *req
	r.Header = req.Header.Clone()
	for k := range r.Header {
		if isTrackingHeader(k) {
			delete(r.Header, k)
		}
	}
	var buf bytes.Buffer
	if err := r.Write(&buf); err != nil {
		return nil, err
	}
	wire := buf.Bytes()
	end := bytes.Index(wire, []byte("\r\n\r\n"))
	if end < 0 {
		return nil, errors.New("loadgen: lean: request has no header end")
	}
	return &leanRequest{
		head:       wire[:end+2],
		body:       wire[end+4:],
		method:     r.Method,
		key:        canonicalAddr(&r),
		replayable: replayable(req),
		forRead:    &http.Request{Method: r.Method},
	}, nil
}

// attempt sends one attempt of r with the tracking header lines track
// (each ending in CRLF) and reads its response by deadline; cancelling ctx
// (the run ending) expires the connection at once. It returns the status
// and the first Retry-After value of a response read to its end (with
// its whole body read and discarded), or an error. Like RoundTrip, it sends a
// replayable request again once on a new connection if a reused one
// turned out closed before any byte of a response.
func (t *LeanTransport) attempt(ctx context.Context, r *leanRequest, track []byte, deadline time.Time) (int, string, error) {
	status, ra, err := t.attemptOn(ctx, r, track, deadline, true)
	if errors.Is(err, errLeanReused) {
		if !r.replayable {
			return 0, "", reusedClosed(r.method)
		}
		return t.attemptOn(ctx, r, track, deadline, false)
	}
	return status, ra, err
}

// attemptOn is attempt on one connection: an idle one if mayReuse and one
// is open, else a new one.
func (t *LeanTransport) attemptOn(ctx context.Context, r *leanRequest, track []byte, deadline time.Time, mayReuse bool) (int, string, error) {
	c, reused, stop, err := t.open(ctx, r.key, deadline, mayReuse)
	if err != nil {
		return 0, "", err
	}
	buf := t.requests.get()
	buf.Write(r.head)
	buf.Write(track)
	buf.WriteString("\r\n")
	buf.Write(r.body)
	if err := c.sendRequest(ctx, buf, &t.requests, reused); err != nil {
		return 0, "", c.abandon(ctx, stop, err)
	}
	status, ra, keep, err := c.readResponse(r)
	if err != nil {
		return 0, "", c.abandon(ctx, stop, err)
	}
	if stop() && keep && c.br.Buffered() == 0 { // stop false: ctx fired, the deadline was expired
		t.putIdle(r.key, c)
	} else {
		c.Close()
	}
	return status, ra, nil
}

// readResponse reads a response to r and its whole body (discarded):
// its status, first Retry-After value and whether the connection can carry
// another request (the body was read to its end and the server keeps the
// connection open). A head in the common form is parsed in the read buffer
// (parseLeanHead); any other goes to http.ReadResponse.
func (c *leanConn) readResponse(r *leanRequest) (status int, retryAfter string, keep bool, err error) {
	c.readingHead(true)
	defer c.readingHead(false)
	for {
		b, _ := c.br.Peek(c.br.Buffered())
		h, n, res := parseLeanHead(b, r.method)
		switch res {
		case headComplete:
			c.br.Discard(n)
			c.readingHead(false)
			if h.length > 0 {
				if _, err := io.CopyN(io.Discard, c.br, h.length); err != nil {
					return 0, "", false, err
				}
			}
			return h.status, h.retryAfter, !h.close, nil
		case headIncomplete:
			if c.br.Buffered() < c.br.Size() {
				if _, err := c.br.Peek(c.br.Buffered() + 1); err != nil {
					// What parseLeanHead calls incomplete net/http
					// cannot read either (the fuzz test checks it): the
					// read's own error, not a second read's.
					return 0, "", false, err
				}
				continue
			}
		}
		return c.readResponseSlow(r)
	}
}

// readResponseSlow reads a response with http.ReadResponse, skipping
// informational ones, and reads its whole body, discarding it.
func (c *leanConn) readResponseSlow(r *leanRequest) (status int, retryAfter string, keep bool, err error) {
	var resp *http.Response
	for {
		resp, err = http.ReadResponse(c.br, r.forRead)
		if err != nil {
			return 0, "", false, err
		}
		if resp.StatusCode >= 100 && resp.StatusCode < 200 && resp.StatusCode != http.StatusSwitchingProtocols {
			continue // informational: the real response follows
		}
		break
	}
	c.readingHead(false)
	body := &leanBody{rc: resp.Body}
	if _, err := io.Copy(io.Discard, body); err != nil {
		return 0, "", false, err
	}
	resp.Body.Close()
	keep = body.eof && !resp.Close && resp.StatusCode != http.StatusSwitchingProtocols
	return resp.StatusCode, resp.Header.Get("Retry-After"), keep, nil
}
