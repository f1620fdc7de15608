package loadgen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"net/url"
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
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("loadgen: request url %q: want http(s)://host/...", r.URL)
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
