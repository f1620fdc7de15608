package loadgen

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"

	"github.com/trigger-test/trigger/vocab"
)

// A request of the mix whose url, header values or body hold per-request
// values (vocab.PerRequest markers: request.id, request.seq, random.uuid)
// is rendered once per logical request, when its first attempt is sent;
// its retries resend the rendered request, as real clients retry. A
// request without them is built once, as before.

// rendered is one logical request's own request: its markers filled in.
type rendered struct {
	url    *url.URL
	header http.Header
	body   []byte
	lean   *leanRequest // its wire form on the lean path; nil on net/http's
}

// templated reports whether the request holds per-request values.
func templated(r Request) bool {
	if vocab.HasMarker(r.URL) || vocab.HasMarker(string(r.Body)) {
		return true
	}
	for _, vs := range r.Header {
		for _, v := range vs {
			if vocab.HasMarker(v) {
				return true
			}
		}
	}
	return false
}

// render fills in lr's per-request values of its request: on the lean
// path straight into a copy of the request's wire form (renderLean), else
// into its URL, headers and body.
func (d *Driver) render(lr logical) (*rendered, error) {
	if p, ok := d.path.(leanPath); ok {
		return &rendered{lean: d.renderLean(p.reqs[lr.req], lr)}, nil
	}
	r := d.mix.reqs[lr.req]
	vals := d.values(lr)
	u, err := url.Parse(string(vals.fill([]byte(r.cfg.URL), false)))
	if err != nil {
		return nil, fmt.Errorf("loadgen: rendered url: %w", err)
	}
	out := &rendered{url: u, header: make(http.Header, len(r.cfg.Header))}
	for k, vs := range r.cfg.Header {
		for _, v := range vs {
			out.header.Add(k, string(vals.fill([]byte(v), false)))
		}
	}
	if r.cfg.Body != nil {
		out.body = vals.fill(r.cfg.Body, false)
	}
	return out, nil
}

// renderLean is tmpl, a templated request's wire form, with lr's values:
// the markers in its head (raw in header values, percent-encoded in the
// request line) and body replaced, and its Content-Length set to the
// rendered body's.
func (d *Driver) renderLean(tmpl *leanRequest, lr logical) *leanRequest {
	vals := d.values(lr)
	out := *tmpl
	out.head = vals.fill(tmpl.head, true)
	out.body = vals.fill(tmpl.body, false)
	if len(out.body) != len(tmpl.body) {
		out.head = setContentLength(out.head, len(out.body))
	}
	return &out
}

// perRequestValues are one logical request's values, the UUID drawn only
// when its marker is met.
type perRequestValues struct {
	d    *Driver
	lr   logical
	uuid []byte
}

func (d *Driver) values(lr logical) *perRequestValues { return &perRequestValues{d: d, lr: lr} }

// value is the bytes of p for this logical request.
func (v *perRequestValues) value(p vocab.PerRequest) []byte {
	switch p {
	case vocab.PerRequestID:
		return v.d.appendRequestID(nil, v.lr)
	case vocab.PerRequestSeq:
		return strconv.AppendUint(nil, v.lr.id, 10)
	}
	if v.uuid == nil {
		v.uuid = []byte(v.d.uuid(v.lr))
	}
	return v.uuid
}

// markerForms are each per-request value's marker as bytes: raw (in
// header values, a body and a URL's query) and percent-encoded (in the
// path of a request line), computed once.
var markerForms = func() (out [vocab.PerRandomUUID + 1][2][]byte) {
	for p := range out {
		m := vocab.PerRequest(p).Marker()
		out[p] = [2][]byte{[]byte(m), []byte(url.PathEscape(m))}
	}
	return out
}()

// fill replaces every marker in b (and, with encoded, its percent-encoded
// form) by its value; b is not changed.
func (v *perRequestValues) fill(b []byte, encoded bool) []byte {
	out := b
	for p, forms := range markerForms {
		for i, f := range forms {
			if (i == 0 || encoded) && bytes.Contains(out, f) {
				out = bytes.ReplaceAll(out, f, v.value(vocab.PerRequest(p)))
			}
		}
	}
	return out
}

// setContentLength rewrites the Content-Length line of a request head.
func setContentLength(head []byte, n int) []byte {
	const name = "\r\nContent-Length: "
	i := bytes.Index(head, []byte(name))
	if i < 0 {
		return head
	}
	start := i + len(name)
	end := bytes.Index(head[start:], []byte("\r\n"))
	if end < 0 {
		return head
	}
	out := make([]byte, 0, len(head)+8)
	out = append(out, head[:start]...)
	out = strconv.AppendInt(out, int64(n), 10)
	return append(out, head[start+end:]...)
}

// uuid is lr's random.uuid: a version-4 UUID drawn from the run's seed and
// the logical request's number, so a run is reproducible.
func (d *Driver) uuid(lr logical) string {
	var rng rand.PCG
	rng.Seed(d.cfg.Seed^0x75756964, lr.id)
	var b [16]byte
	hi, lo := rng.Uint64(), rng.Uint64()
	for i := 0; i < 8; i++ {
		b[i], b[8+i] = byte(hi>>(56-8*i)), byte(lo>>(56-8*i))
	}
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 9562 variant
	const hex = "0123456789abcdef"
	out := make([]byte, 0, 36)
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out = append(out, '-')
		}
		out = append(out, hex[c>>4], hex[c&0xf])
	}
	return string(out)
}
