package scenarios

import (
	"fmt"
	"maps"
	"math"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// Request is one request of the target's mix (block `request "NAME"`
// inside target): each first attempt draws one by weight, and its
// retries resend it.
type Request struct {
	// Name is the block's label, unique within the target.
	Name string
	// Weight is the request's share of first attempts, relative to the
	// others' (8 and 2: 80 % and 20 %); default 1.
	Weight float64
	Method string // default "GET"
	URL    string // required; http or https, its host in allow_hosts
	// Headers are the target's common headers with the request's own over
	// them.
	Headers map[string]string
	Body    string
	// Cost is the service's capacity one such request takes, in seconds
	// of the whole service's work (a service busy with it alone finishes
	// 1/Cost per second); 0 when not given. Given for every request, the
	// mix's capacity is C = 1/Σ wᵢ·sᵢ, the weights as shares
	// (docs/model.md, "A mix of requests").
	Cost time.Duration
	// GRPC makes this request a gRPC call (its grpc block: method and
	// message; the message types from the target's grpc block); nil for
	// HTTP.
	GRPC *GRPC
}

// MaxRequests is the most request blocks a target may have.
const MaxRequests = 32

// DefaultRequestWeight is request.weight.
const DefaultRequestWeight = 1

// requestSchema is a request block's: attribute names are the snake_case
// of Request's fields.
var requestSchema = &hcl.BodySchema{Attributes: attrs("weight", "method", "url", "headers", "body", "cost"), Blocks: blocks("grpc")}

// decodeRequests decodes the target's request blocks, their headers over
// the target's common ones.
func (d *decoder) decodeRequests(b *body, common map[string]string) []Request {
	var out []Request
	for i, blk := range b.blocks("request", MaxRequests) {
		path := fmt.Sprintf("target.request[%d]", i)
		r := d.open("request", path, blk.Body, blk.DefRange, schemaOf("target.request"))
		d.src.elems[path+".name"] = blk.LabelRanges[0]
		if !d.checkName(blk, "request", "Invalid request name", "names the request in the timeline and the reports") {
			d.src.failed[path+".name"] = true
		}
		req := Request{Name: blk.Labels[0], Weight: r.num("weight", DefaultRequestWeight), Method: r.str("method", DefaultMethod),
			Cost: r.duration("cost", 0)}
		var own map[string]string
		d.withPerRequest(func() { req.URL, own, req.Body = r.str("url", ""), r.strMap("headers"), r.str("body", "") })
		req.Headers = maps.Clone(common)
		if req.Headers == nil {
			req.Headers = map[string]string{}
		}
		maps.Copy(req.Headers, own)
		req.GRPC = d.decodeGRPC(r, path, false, true)
		out = append(out, req)
		r.require("url", `the URL this request is sent to, e.g. url = "http://127.0.0.1:8080/v1/quote".`)
	}
	return out
}

// Mix is the target's requests: its request blocks, or, in the
// single-request form, the one request its url, method, headers and body
// make (named "" with weight 1).
func (t Target) Mix() []Request {
	if len(t.Requests) > 0 {
		return t.Requests
	}
	return []Request{{Weight: 1, Method: t.Method, URL: t.URL, Headers: t.Headers, Body: t.Body, GRPC: t.GRPC}}
}

// MixCapacity is the capacity C = 1/Σ wᵢ·sᵢ of a mix whose every request
// has a cost (docs/model.md, "A mix of requests"), the weights taken as
// shares, in requests per second; ok is false when any request has none.
func MixCapacity(reqs []Request) (c float64, ok bool) {
	var weights, work float64
	for _, r := range reqs {
		if r.Cost <= 0 {
			return 0, false
		}
		weights += r.Weight
		work += r.Weight * r.Cost.Seconds()
	}
	if len(reqs) == 0 || !(work > 0) {
		return 0, false
	}
	return weights / work, true
}

// requests checks the target's request blocks: names unique, weights
// positive, each URL, method and header as the single form's.
func (v *validator) requests(t *Target) {
	src := v.d.src
	if len(t.Requests) > 0 && src.has("target.url") {
		v.errorf(true, "target.url", "Both url and request blocks",
			"A target gives either one request (url, method, body) or request blocks, each with its own url; this one has both. Move url into a request block or drop the blocks.")
	}
	if len(t.Requests) > 0 {
		for _, name := range []string{"method", "body"} {
			v.errorf(src.has("target."+name), "target."+name, "Setting ignored with request blocks",
				"%s belongs in each request block when the target has them; only headers are common to all.", name)
		}
	}
	costed := -1
	for i := range t.Requests {
		if src.has(fmt.Sprintf("target.request[%d].cost", i)) {
			costed = i
			break
		}
	}
	for i, r := range t.Requests {
		p := fmt.Sprintf("target.request[%d]", i)
		if costed < 0 {
			break
		}
		v.errorf(!src.has(p+".cost") && v.present(p), p, "Request without a cost",
			"Request %q has no cost but %q has one: the mix's capacity C = 1/Σ wᵢ·sᵢ needs every request's cost, or none (then service.capacity gives C).",
			r.Name, t.Requests[costed].Name)
	}
	seen := map[string]int{}
	for i := range t.Requests {
		r := &t.Requests[i]
		p := fmt.Sprintf("target.request[%d]", i)
		if !v.present(p) {
			continue
		}
		if j, dup := seen[r.Name]; dup && src.ok(p+".name") {
			v.errorf(true, p+".name", "Duplicate request",
				"A request named %q is already declared at %s; give each request its own name.", r.Name, rangeLine(src.blocks[fmt.Sprintf("target.request[%d]", j)]))
		}
		seen[r.Name] = i
		v.errorf(!(r.Weight > 0) || math.IsInf(r.Weight, 0) || r.Weight > 1e6, p+".weight", "Value out of range",
			"weight is this request's share of first attempts relative to the others' and must be greater than zero and at most 1e6. Got %g.", r.Weight)
		v.errorf(src.has(p+".cost") && (r.Cost <= 0 || r.Cost > time.Hour), p+".cost", "Value out of range",
			"cost is the seconds of the service's capacity one such request takes, and must be greater than zero and at most 1h. Got %s.", r.Cost)
		v.errorf(!isToken(r.Method), p+".method", "Invalid HTTP method", "%q is not an HTTP method, such as \"GET\" or \"POST\".", r.Method)
		if src.has(p + ".url") {
			v.requestURL(t, p+".url", r.URL)
		}
		for _, name := range sortedKeys(r.Headers) {
			val := r.Headers[name]
			if common, ok := t.Headers[name]; ok && common == val {
				continue // the target's own, checked there
			}
			hp := fmt.Sprintf("%s.headers[%s]", p, name)
			if v.hostHeader(t, hp, name, val) {
				continue
			}
			v.errorf(!isToken(name), hp, "Invalid header name", "%q is not a valid HTTP header name.", name)
			v.errorf(strings.ContainsAny(val, "\r\n"), hp, "Invalid header value", "The value of header %q contains a line break.", name)
		}
	}
}
