package loadgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"

	"google.golang.org/grpc/metadata"

	"github.com/trigger-test/trigger/vocab"
)

// A request of the mix whose url, header values or body hold per-request
// values (vocab markers, each standing for a slot of Config.Slots:
// request.id, request.seq, random.uuid, random::int, a data column) is
// rendered once per logical request, when its first attempt is sent; its
// retries resend the rendered request, as real clients retry. A request
// without them is built once, as before. Each value is written as the
// place it stands in asks: percent-encoded in a URL's path or query, with
// control characters made spaces in a header, as it is in a body.

// rendered is one logical request's own request: its markers filled in.
type rendered struct {
	url    *url.URL
	header http.Header
	body   []byte
	lean   *leanRequest // its wire form on the lean path; nil on net/http's
	// A gRPC call's metadata and message encoded (grpcPath.render); msg
	// is nil when the message did not encode.
	md  metadata.MD
	msg []byte
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

// place is where a value stands in a request, which decides how it is
// written.
type place uint8

const (
	inBody   place = iota // as it is
	inPath                // percent-encoded as a path segment
	inQuery               // percent-encoded as a query component
	inHeader              // control characters made spaces
)

// piece is a literal run of a template's bytes or, when slot ≥ 0, the
// value of that slot where it stands.
type piece struct {
	lit  []byte
	slot int
	at   place
}

// template is a text split at its markers, found once.
type template []piece

// The markers' bytes, raw and as url.URL escapes them in a path.
var (
	rawOpen, rawClose = []byte(vocab.MarkerOpen), []byte(vocab.MarkerClose)
	escOpen, escClose = []byte(url.PathEscape(vocab.MarkerOpen)), []byte(url.PathEscape(vocab.MarkerClose))
)

// splitTemplate splits b at its markers (raw, or percent-encoded when
// escaped is set); where tells the place of the byte at an offset.
func splitTemplate(b []byte, escaped bool, where func(off int) place) template {
	var out template
	lit := 0
	for i := 0; i < len(b); {
		open, close := rawOpen, rawClose
		j := bytes.Index(b[i:], rawOpen)
		if escaped {
			if k := bytes.Index(b[i:], escOpen); k >= 0 && (j < 0 || k < j) {
				j, open, close = k, escOpen, escClose
			}
		}
		if j < 0 {
			break
		}
		i += j
		digits := b[i+len(open):]
		end := bytes.Index(digits, close)
		slot, err := strconv.Atoi(string(digits[:max(end, 0)]))
		if end < 1 || end > 6 || err != nil || slot < 0 {
			i += len(open)
			continue
		}
		if i > lit {
			out = append(out, piece{lit: b[lit:i], slot: -1})
		}
		out = append(out, piece{slot: slot, at: where(i)})
		i += len(open) + end + len(close)
		lit = i
	}
	if lit < len(b) {
		out = append(out, piece{lit: b[lit:], slot: -1})
	}
	return out
}

// slots returns the template's slots.
func (t template) slots() []int {
	var out []int
	for _, p := range t {
		if p.slot >= 0 {
			out = append(out, p.slot)
		}
	}
	return out
}

// inURL places a marker in a URL or request line: in its query after the
// first '?', else in its path.
func inURL(b []byte) func(int) place {
	q := bytes.IndexByte(b, '?')
	return func(off int) place {
		if q >= 0 && off > q {
			return inQuery
		}
		return inPath
	}
}

// inHead places a marker in a request head: in the request line's path
// or query, or in a header.
func inHead(head []byte) func(int) place {
	line := bytes.Index(head, []byte("\r\n"))
	if line < 0 {
		line = len(head)
	}
	url := inURL(head[:line])
	return func(off int) place {
		if off < line {
			return url(off)
		}
		return inHeader
	}
}

func always(p place) func(int) place { return func(int) place { return p } }

// templates are a templated request's texts split at their markers, for
// the attempt path the driver takes.
type templates struct {
	head, body template // the lean path's wire form
	url        template // net/http's
	header     map[string][]template
	netBody    template
}

// newTemplates splits r's texts, and lean's when it has a wire form.
func newTemplates(r Request, lean *leanRequest) *templates {
	t := &templates{header: map[string][]template{}}
	if lean != nil {
		t.head = splitTemplate(lean.head, true, inHead(lean.head))
		t.body = splitTemplate(lean.body, false, always(inBody))
		return t
	}
	t.url = splitTemplate([]byte(r.URL), false, inURL([]byte(r.URL)))
	for k, vs := range r.Header {
		for _, v := range vs {
			t.header[k] = append(t.header[k], splitTemplate([]byte(v), false, always(inHeader)))
		}
	}
	t.netBody = splitTemplate(r.Body, false, always(inBody))
	return t
}

// splitTemplates splits each templated request's texts for the driver's
// attempt path and checks their markers against the slot table.
func (d *Driver) splitTemplates() error {
	d.valueSlots = d.cfg.Slots
	if d.valueSlots == nil {
		d.valueSlots = vocab.FixedSlots()
	}
	d.templates = make([]*templates, len(d.mix.reqs))
	lean, _ := d.path.(leanPath)
	for i, r := range d.mix.reqs {
		if !r.templated {
			continue
		}
		var wire *leanRequest
		if lean.reqs != nil {
			wire = lean.reqs[i]
		}
		d.templates[i] = newTemplates(r.cfg, wire)
	}
	return checkSlots(d.templates, d.valueSlots, d.cfg.Data)
}

// checkSlots reports a marker of any request that stands for no slot, or
// a data column that is not in Config.Data.
func checkSlots(ts []*templates, slots []vocab.Slot, data []vocab.DataSet) error {
	for _, t := range ts {
		if t == nil {
			continue
		}
		all := append(append(append(t.head.slots(), t.body.slots()...), t.url.slots()...), t.netBody.slots()...)
		for _, hs := range t.header {
			for _, h := range hs {
				all = append(all, h.slots()...)
			}
		}
		for _, i := range all {
			if i >= len(slots) {
				return fmt.Errorf("loadgen: a request holds per-request value %d of %d", i, len(slots))
			}
			s := slots[i]
			if s.Value == vocab.PerDataColumn && (s.Data >= len(data) || s.Column >= len(data[s.Data].Columns) || len(data[s.Data].Rows) == 0) {
				return fmt.Errorf("loadgen: %s: no such data column, or no rows", s.Name)
			}
			if s.Value == vocab.PerRandomInt && s.Lo > s.Hi {
				return fmt.Errorf("loadgen: %s: low bound above high", s.Name)
			}
		}
	}
	return nil
}

// render fills in lr's per-request values of its request: on the lean
// path into a copy of the request's wire form with its Content-Length
// set, on the gRPC path into its metadata and message (then encoded),
// else into its URL, headers and body.
func (d *Driver) render(lr logical) (*rendered, error) {
	t := d.templates[lr.req]
	vals := d.values(lr)
	if p, ok := d.path.(*grpcPath); ok {
		return p.render(lr, t, vals)
	}
	if p, ok := d.path.(leanPath); ok {
		out := *p.reqs[lr.req]
		out.head = vals.fill(t.head)
		out.body = vals.fill(t.body)
		if len(out.body) != len(p.reqs[lr.req].body) {
			out.head = setContentLength(out.head, len(out.body))
		}
		return &rendered{lean: &out}, nil
	}
	u, err := url.Parse(string(vals.fill(t.url)))
	if err != nil {
		return nil, fmt.Errorf("loadgen: rendered url: %w", err)
	}
	out := &rendered{url: u, header: make(http.Header, len(t.header))}
	for k, hs := range t.header {
		for _, h := range hs {
			out.header.Add(k, string(vals.fill(h)))
		}
	}
	if d.mix.reqs[lr.req].cfg.Body != nil {
		out.body = vals.fill(t.netBody)
	}
	return out, nil
}

// perRequestValues are one logical request's values, the UUID drawn only
// when its marker is met; scratch holds a value while it is escaped.
type perRequestValues struct {
	d       *Driver
	lr      logical
	uuid    []byte
	uuidBuf [36]byte
	scratch []byte
}

func (d *Driver) values(lr logical) *perRequestValues { return &perRequestValues{d: d, lr: lr} }

// fill is t with lr's values written in.
func (v *perRequestValues) fill(t template) []byte {
	n := 0
	for _, p := range t {
		n += len(p.lit) + 16
	}
	out := make([]byte, 0, n)
	for _, p := range t {
		if p.slot < 0 {
			out = append(out, p.lit...)
			continue
		}
		s := &v.d.valueSlots[p.slot]
		v.scratch = v.appendValue(v.scratch[:0], s)
		val := v.scratch
		if s.JSON && needsJSONEscape(val) {
			val = jsonEscape(val)
		}
		out = appendPlaced(out, val, p.at)
	}
	return out
}

// appendValue appends the bytes of slot s for this logical request.
func (v *perRequestValues) appendValue(dst []byte, s *vocab.Slot) []byte {
	switch s.Value {
	case vocab.PerRequestID:
		return v.d.appendRequestID(dst, v.lr)
	case vocab.PerRequestSeq:
		return strconv.AppendUint(dst, v.lr.id, 10)
	case vocab.PerRandomUUID:
		if v.uuid == nil {
			v.uuid = v.d.appendUUID(v.uuidBuf[:0], v.lr)
		}
		return append(dst, v.uuid...)
	case vocab.PerRandomInt:
		var rng rand.PCG
		rng.Seed(v.d.cfg.Seed^0x72616e64696e74, v.lr.id*0x9e3779b97f4a7c15+uint64(s.Draw))
		span := uint64(s.Hi - s.Lo)
		x := rng.Uint64()
		if span < math.MaxUint64 {
			x %= span + 1 // the bias is below 2^-10 for spans under 2^53
		}
		return strconv.AppendInt(dst, s.Lo+int64(x), 10)
	case vocab.PerDataColumn:
		ds := &v.d.cfg.Data[s.Data]
		return append(dst, ds.Rows[v.d.row(v.lr, s.Data)][s.Column]...)
	}
	return dst
}

// row is the row of data set k that lr drew: the logical request's
// sequence number wrapped around the rows, or, for a data set in random
// order, a row drawn from the run's seed and that number.
func (d *Driver) row(lr logical, k int) int {
	ds := &d.cfg.Data[k]
	n := uint64(len(ds.Rows))
	if !ds.Random {
		return int((max(lr.id, 1) - 1) % n)
	}
	var rng rand.PCG
	rng.Seed(d.cfg.Seed^0x64617461726f77, lr.id*0x9e3779b97f4a7c15+uint64(k))
	return int(rng.Uint64() % n) // the bias is below 2^-43 for n ≤ MaxDataRows
}

// needsJSONEscape reports whether b holds a byte JSON escapes: a quote, a
// backslash, a control character, or any non-ASCII byte (so that invalid
// UTF-8 and U+2028/U+2029 take the slow path).
func needsJSONEscape(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			return true
		}
	}
	return false
}

// jsonEscape is b as the inside of a JSON string, without its quotes.
func jsonEscape(b []byte) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(string(b)) // a string always encodes
	out := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	return out[1 : len(out)-1]
}

// appendPlaced appends val to out as place at asks.
func appendPlaced(out, val []byte, at place) []byte {
	switch at {
	case inPath, inQuery:
		if !needsURLEscape(val) {
			return append(out, val...)
		}
		if at == inPath {
			return append(out, url.PathEscape(string(val))...)
		}
		return append(out, url.QueryEscape(string(val))...)
	case inHeader:
		for _, c := range val {
			if c < 0x20 && c != '\t' || c == 0x7f {
				c = ' '
			}
			out = append(out, c)
		}
		return out
	}
	return append(out, val...)
}

// needsURLEscape reports whether b holds a byte other than the unreserved
// ones of RFC 3986 (letters, digits, - . _ ~), which neither a path nor a
// query escapes.
func needsURLEscape(b []byte) bool {
	for _, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
			return true
		}
	}
	return false
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

// appendUUID appends lr's random.uuid: a version-4 UUID drawn from the
// run's seed and the logical request's number, so a run is reproducible.
func (d *Driver) appendUUID(dst []byte, lr logical) []byte {
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
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			dst = append(dst, '-')
		}
		dst = append(dst, hex[c>>4], hex[c&0xf])
	}
	return dst
}
