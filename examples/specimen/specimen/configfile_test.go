package specimen

import (
	"strings"
	"testing"
	"time"

	"github.com/trigger-test/trigger/vocab"
)

func TestLoadExampleConfig(t *testing.T) {
	c, err := LoadConfigFile("../specimen.hcl", Config{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Pods != 1 || c.PodRate != 200 || c.ServiceTime != vocab.ServiceDeterministic || c.MaxQueue != 100000 || c.Seed != 1 {
		t.Fatalf("service %+v", c)
	}
	if !c.Gateway.Enabled || c.Gateway.Retries != 2 || c.Gateway.TryTimeout != 300*time.Millisecond {
		t.Fatalf("gateway %+v", c.Gateway)
	}
	if c.Autoscaler.Enabled || c.Autoscaler.Signal != vocab.SignalIngress || c.Autoscaler.DeadTime != 5*time.Second {
		t.Fatalf("autoscaler %+v", c.Autoscaler)
	}
	if _, err := New(c); err != nil {
		t.Fatalf("example config does not validate: %v", err)
	}
}

// The grpc block sets the gRPC listener and its deadlines; flags of the
// same names win over it as over any attribute.
func TestParseConfigGRPC(t *testing.T) {
	c, err := ParseConfig([]byte("grpc {\n addr = \"127.0.0.1:9090\"\n honour_deadlines = true\n}\n"), "cfg.hcl", Config{})
	if err != nil || c.GRPCAddr != "127.0.0.1:9090" || !c.GRPCHonourDeadlines {
		t.Fatalf("grpc block: %+v, %v", c, err)
	}
	if c, err := ParseConfig([]byte("pods = 2\n"), "cfg.hcl", Config{}); err != nil || c.GRPCAddr != "" || c.GRPCHonourDeadlines {
		t.Fatalf("no grpc block: %+v, %v", c, err)
	}
}

func TestParseConfigErrors(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		// A misspelt attribute names its position.
		{"unknown attribute", "pod_rat = 3\n", "cfg.hcl:1,1-8"},
		// A bad duration names its attribute.
		{"bad duration", "defences {\n admission_bound = \"soon\"\n}\n", "defences.admission_bound"},
		// A wrong type is a diagnostic.
		{"wrong type", "pods = \"many\"\n", "cfg.hcl:1"},
		// An unknown name names its attribute and the valid names.
		{"bad discipline", "defences {\n discipline = \"random\"\n}\n", "defences.discipline: unknown discipline \"random\" (want fifo, lifo or adaptive_lifo)"},
		{"bad queue", "queue = \"pooled\"\n", "queue: unknown queue"},
	}
	for _, tc := range cases {
		_, err := ParseConfig([]byte(tc.src), "cfg.hcl", Config{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
}

func TestConfigValidation(t *testing.T) {
	cases := []struct {
		name string
		mod  func(*Config)
		ok   bool
	}{
		{"zero value is System A", func(*Config) {}, true},                                // defaults apply
		{"negative rate", func(c *Config) { c.PodRate = -1 }, false},                      // c must be positive
		{"bad discipline", func(c *Config) { c.Discipline = vocab.Discipline(7) }, false}, // unknown discipline
		{"limit status 500", func(c *Config) { c.LimitStatus = 500 }, false},              // only 429 or 503
		{"grpc addr without port", func(c *Config) { c.GRPCAddr = "127.0.0.1" }, false},   // HOST:PORT
		{"grpc addr", func(c *Config) { c.GRPCAddr = "127.0.0.1:0" }, true},
		{"bad signal", func(c *Config) { c.Autoscaler.Enabled = true; c.Autoscaler.Signal = "latency" }, false},
		{"scaler off is not checked", func(c *Config) { c.Pods = 5; c.Autoscaler.MaxReplicas = 3 }, true},     // unknown signal
		{"target above 1", func(c *Config) { c.Autoscaler.Enabled = true; c.Autoscaler.Target = 1.5 }, false}, // u* in (0, 1]
		{"min above max", func(c *Config) {
			c.Autoscaler = AutoscalerConfig{Enabled: true, MinReplicas: 5, MaxReplicas: 2}
		}, false}, // floor above ceiling
		{"pods above ceiling", func(c *Config) {
			c.Pods = 5
			c.Autoscaler = AutoscalerConfig{Enabled: true, MaxReplicas: 3}
		}, false}, // enabled scaler must start within its bounds
	}
	for _, tc := range cases {
		var c Config
		tc.mod(&c)
		s, err := New(c)
		if (err == nil) != tc.ok {
			t.Errorf("%s: err = %v", tc.name, err)
		}
		if s != nil {
			_ = s.Close()
		}
	}
}
