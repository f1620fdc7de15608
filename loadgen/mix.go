package loadgen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"net/url"
	"strings"

	"github.com/trigger-test/trigger/vocab"
)

// MaxMix is the most requests a driver's mix may hold.
const MaxMix = 64

// mixRequest is one request of the driver's mix with what is parsed once.
type mixRequest struct {
	cfg Request
	url *url.URL // shared read-only by every attempt's request
	// templated: its url, headers or body hold per-request values, filled
	// in for each logical request (perrequest.go).
	templated bool
}

// mix is the requests first attempts draw from, by weight, from a source
// of the run's seed: the dispatcher alone draws, so it needs no lock.
type mix struct {
	reqs []*mixRequest
	cum  []float64 // cumulative weights, the last one their sum
	rng  *rand.Rand
	// grpc: every request is a gRPC call (Request.GRPC), all to one
	// host; a mix is all HTTP or all gRPC.
	grpc bool
}

// newMix parses the requests (filled defaults: GET, weight 1 for a single
// request) and seeds the draw.
func newMix(reqs []Request, seed uint64) (*mix, error) {
	if len(reqs) == 0 || len(reqs) > MaxMix {
		return nil, fmt.Errorf("loadgen: %d requests in the mix; want 1 to %d", len(reqs), MaxMix)
	}
	m := &mix{rng: rand.New(rand.NewPCG(seed, seed^0x6d69782d64726177))}
	total := 0.0
	for i, r := range reqs {
		if r.Method == "" {
			r.Method = "GET"
		}
		if len(reqs) == 1 && r.Weight == 0 {
			r.Weight = 1
		}
		if !(r.Weight > 0) || math.IsInf(r.Weight, 0) {
			return nil, fmt.Errorf("loadgen: request %d (%q): weight %v; want a positive number", i, r.Name, r.Weight)
		}
		u, err := url.Parse(r.URL)
		if err != nil {
			return nil, fmt.Errorf("loadgen: request url: %w", err)
		}
		if err := checkScheme(r, u); err != nil {
			return nil, err
		}
		if i == 0 {
			m.grpc = r.GRPC != nil
		} else if err := sameKind(reqs[0], r, m.reqs[0].url, u); err != nil {
			return nil, err
		}
		total += r.Weight
		m.reqs = append(m.reqs, &mixRequest{cfg: r, url: u, templated: templated(r)})
		m.cum = append(m.cum, total)
	}
	return m, nil
}

// draw picks the request of the next logical request, by weight.
func (m *mix) draw() uint8 {
	if len(m.reqs) == 1 {
		return 0
	}
	x := m.rng.Float64() * m.cum[len(m.cum)-1]
	for i, c := range m.cum {
		if x < c {
			return uint8(i)
		}
	}
	return uint8(len(m.cum) - 1)
}

// allHTTP reports whether every request of the mix goes to an http://
// URL (the lean path serves only those).
func (m *mix) allHTTP() bool {
	for _, r := range m.reqs {
		if r.url.Scheme != "http" {
			return false
		}
	}
	return true
}

// checkScheme checks r's URL u against its kind: http(s)://host/... for
// an HTTP request; grpc(s)://host:port, with no path or per-request
// values, for a gRPC call, whose Method is "/package.Service/Method" and
// whose Input is set.
func checkScheme(r Request, u *url.URL) error {
	if r.GRPC == nil {
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("loadgen: request url %q: want http(s)://host/...", r.URL)
		}
		return nil
	}
	if (u.Scheme != "grpc" && u.Scheme != "grpcs") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || vocab.HasMarker(r.URL) {
		return fmt.Errorf("loadgen: gRPC request url %q: want grpc://host:port or grpcs://host:port", r.URL)
	}
	if r.GRPC.Input == nil {
		return fmt.Errorf("loadgen: gRPC request %q: no input message type", r.Name)
	}
	m := r.GRPC.Method
	if len(m) < 4 || m[0] != '/' || strings.Count(m, "/") != 2 || strings.HasSuffix(m, "/") || strings.Contains(m, "//") {
		return fmt.Errorf("loadgen: gRPC request %q: method %q; want /package.Service/Method", r.Name, m)
	}
	return nil
}

// sameKind refuses a mix that mixes HTTP requests and gRPC calls, or gRPC
// calls to more than one host (the driver has one pool of connections).
func sameKind(first, r Request, fu, u *url.URL) error {
	if (first.GRPC == nil) != (r.GRPC == nil) {
		return fmt.Errorf("loadgen: request %q: a mix is all HTTP or all gRPC", r.Name)
	}
	if r.GRPC != nil && (u.Scheme != fu.Scheme || u.Host != fu.Host) {
		return fmt.Errorf("loadgen: gRPC request %q: every call of a mix goes to one target (%s://%s)", r.Name, fu.Scheme, fu.Host)
	}
	return nil
}
