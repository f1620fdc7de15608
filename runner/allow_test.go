package runner

import (
	"errors"
	"testing"

	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/scenarios"
)

// The runner refuses, before sending anything, a target, a Host header or
// a scrape URL outside allow_hosts, with the spellings the reader accepts
// compared in one normal form.
func TestCheckTargetRefusesOtherHosts(t *testing.T) {
	for _, tc := range []struct {
		name    string
		target  scenarios.Target
		scrape  []string
		allowed bool
	}{
		{"allowed", scenarios.Target{URL: "http://127.0.0.1:8080/w", AllowHosts: []string{"127.0.0.1"}}, nil, true},
		{"ipv6 in brackets", scenarios.Target{URL: "http://[::1]:8080/w", AllowHosts: []string{"[::1]"}}, nil, true},
		{"case and trailing dot", scenarios.Target{URL: "http://LOCALHOST.:8080/w", AllowHosts: []string{"localhost"}}, nil, true},
		{"other host", scenarios.Target{URL: "http://prod.example.com/w", AllowHosts: []string{"127.0.0.1"}}, nil, false},
		{"grpc allowed", scenarios.Target{URL: "grpc://127.0.0.1:9090", AllowHosts: []string{"127.0.0.1"}}, nil, true},
		{"grpcs other host", scenarios.Target{URL: "grpcs://prod.example.com:443", AllowHosts: []string{"127.0.0.1"}}, nil, false},
		{"host header elsewhere", scenarios.Target{URL: "http://127.0.0.1:8080/w", AllowHosts: []string{"127.0.0.1"},
			Headers: map[string]string{"Host": "prod.example.com"}}, nil, false},
		{"authority header elsewhere", scenarios.Target{URL: "http://127.0.0.1:8080/w", AllowHosts: []string{"127.0.0.1"},
			Headers: map[string]string{":authority": "prod.example.com:443"}}, nil, false},
		{"host header allowed", scenarios.Target{URL: "http://127.0.0.1:8080/w", AllowHosts: []string{"127.0.0.1", "staging.local"},
			Headers: map[string]string{"host": "staging.local:8080"}}, nil, true},
		{"scrape elsewhere", scenarios.Target{URL: "http://127.0.0.1:8080/w", AllowHosts: []string{"127.0.0.1"}},
			[]string{"http://10.1.2.3:9100/metrics"}, false},
		{"scrape allowed", scenarios.Target{URL: "http://127.0.0.1:8080/w", AllowHosts: []string{"127.0.0.1"}},
			[]string{"http://127.0.0.1:9100/metrics"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &scenarios.Scenario{Target: tc.target}
			if tc.scrape != nil {
				s.Prometheus = &scenarios.Prometheus{Scrape: tc.scrape}
			}
			err := checkTarget(convert.RunOf(s))
			if (err == nil) != tc.allowed || (err != nil && !errors.Is(err, ErrNotAllowed)) {
				t.Errorf("checkTarget = %v, want allowed %v", err, tc.allowed)
			}
		})
	}
}
