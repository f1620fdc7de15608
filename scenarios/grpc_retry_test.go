package scenarios

import (
	"os"
	"strings"
	"testing"

	"github.com/trigger-test/trigger/retry"
	"github.com/trigger-test/trigger/vocab"
)

// TestRetryOnGRPCAliases: client.retry.on and layer.on take gRPC status
// names, in any case, each standing for its code's whole outcome class.
func TestRetryOnGRPCAliases(t *testing.T) {
	src, err := os.ReadFile("testdata/good/mix.hcl")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(src), `client { timeout = "1s" }`, `client {
  timeout = "1s"
  retry {
    max_retries = 2
    on          = ["UNAVAILABLE", "deadline_exceeded", "Resource_Exhausted", "internal", "unauthenticated", "not_found"]
  }
}
layer "mesh" {
  max_retries = 1
  on          = ["data_loss", "cancelled"]
}`, 1)
	s, err := Parse("mix.hcl", []byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := retry.NewOutcomeSet(vocab.Outcome503, vocab.OutcomeTimeout, vocab.Outcome429, vocab.Outcome5xx, vocab.OutcomeAuth, vocab.Outcome4xx)
	if s.Client.Retry.On != want {
		t.Errorf("client.retry.on = %v, want %v", s.Client.Retry.On, want)
	}
	if got := s.Layers[0].On; got != retry.NewOutcomeSet(vocab.Outcome5xx, vocab.Outcome4xx) {
		t.Errorf("layer.on = %v", got)
	}
	// "ok" is no alias: it is no failure.
	bad := strings.Replace(text, `"not_found"]`, `"ok"]`, 1)
	if _, err := Parse("mix.hcl", []byte(bad), nil); err == nil || !strings.Contains(err.Error(), "Unknown outcome class") {
		t.Errorf("on = [\"ok\"]: %v", err)
	}
}
