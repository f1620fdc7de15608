package scenarios

import (
	"os"
	"strings"
	"testing"
	"time"
)

// --set changes what the scenario says and nothing else: an attribute of
// a nested block that does not exist yet, one that does, a labelled
// block's, the scenario block whatever its name; bad paths are errors.
func TestOverride(t *testing.T) {
	src, err := os.ReadFile("../scenarios/trapped.hcl")
	if err != nil {
		t.Fatal(err)
	}
	src = append(src, []byte("\nlayer \"gateway\" {\n  max_retries = 1\n}\n")...)
	out, err := Override("trapped.hcl", src, []string{
		"client.retry.budget=0.1", "service.admission_bound=500ms", "load.baseline=60",
		"layer.gateway.max_retries=0", "scenario.max_duration=\"10m\"", "client.retry.on=[\"timeout\", \"5xx\"]",
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse("trapped.hcl", out, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if b := s.Client.Retry.Budget; b == nil || *b != 0.1 {
		t.Errorf("budget %v", b)
	}
	if s.Service.AdmissionBound != 500*time.Millisecond || s.Load.Baseline != 60 || s.MaxDuration != 10*time.Minute {
		t.Errorf("admission bound %s, baseline %g, max_duration %s", s.Service.AdmissionBound, s.Load.Baseline, s.MaxDuration)
	}
	if len(s.Layers) != 1 || s.Layers[0].MaxRetries != 0 {
		t.Errorf("layers %+v", s.Layers)
	}
	if s.Client.Retry.MaxRetries != 2 || s.Load.Spike.Multiplier != 5 {
		t.Errorf("what was not set changed: %+v %+v", s.Client.Retry, s.Load.Spike)
	}
	for _, bad := range []string{"capacity=3", "service", "=3", "layer.max_retries=1", "client..timeout=1s", "client.=2", "service.capacity x=1"} {
		if _, err := Override("trapped.hcl", src, []string{bad}); err == nil {
			t.Errorf("--set %q: no error", bad)
		}
	}
	if _, err := Override("x.hcl", []byte("service {"), []string{"service.capacity=1"}); err == nil || !strings.Contains(err.Error(), "x.hcl") {
		t.Errorf("a broken source: %v", err)
	}
}

// A one-line block takes another attribute.
func TestOverrideOneLineBlock(t *testing.T) {
	src := []byte(`scenario "x" {}
target {
  url         = "http://127.0.0.1:8080/work"
  allow_hosts = ["127.0.0.1"]
}
client { timeout = "1s" }
service { capacity = 200 }
recovery {}
load {
  baseline = 40
  spike {
    multiplier = 5
    duration   = "10s"
  }
}
`)
	out, err := Override("x.hcl", src, []string{"service.admission_bound=250ms", "client.timeout=2s", "recovery.hold=3s"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse("x.hcl", out, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if s.Service.Capacity != 200 || s.Service.AdmissionBound != 250*time.Millisecond || s.Client.Timeout != 2*time.Second || s.Recovery.Hold != 3*time.Second {
		t.Errorf("capacity %g, admission bound %s, timeout %s\n%s", s.Service.Capacity, s.Service.AdmissionBound, s.Client.Timeout, out)
	}
}

// The values a run records (Scenario.Variables, HCL literals) read back
// as --var text give the same values: a string without its quotes.
func TestVariableTextRoundTrip(t *testing.T) {
	for lit, want := range map[string]string{`"500ms"`: "500ms", `"a \"b\""`: `a "b"`, "8080": "8080", "true": "true", `["a", "b"]`: `["a", "b"]`, "(sensitive)": "(sensitive)"} {
		if got := VariableText(lit); got != want {
			t.Errorf("VariableText(%s) = %q; want %q", lit, got, want)
		}
	}
	src := []byte(`variable "bound" { default = "0s" }
variable "port" { default = 8080 }
scenario "x" {}
target {
  url         = "http://127.0.0.1:${var.port}/work"
  allow_hosts = ["127.0.0.1"]
}
client { timeout = "1s" }
service {
  capacity        = 200
  admission_bound = var.bound
}
load {
  baseline = 40
  spike {
    multiplier = 5
    duration   = "10s"
  }
}
`)
	s, err := Parse("x.hcl", src, map[string]string{"bound": "500ms", "port": "9090"})
	if err != nil {
		t.Fatal(err)
	}
	again := map[string]string{}
	for n, v := range s.Variables {
		again[n] = VariableText(v)
	}
	s2, err := Parse("x.hcl", src, again)
	if err != nil {
		t.Fatalf("the recorded values %v do not read back: %v", s.Variables, err)
	}
	if s2.Service.AdmissionBound != 500*time.Millisecond || s2.Target.URL != s.Target.URL {
		t.Errorf("read back: bound %s, url %s", s2.Service.AdmissionBound, s2.Target.URL)
	}
}
