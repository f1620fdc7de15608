package loadgen

import (
	"testing"

	"github.com/trigger-test/trigger/vocab"
)

func TestClassifyStatus(t *testing.T) {
	tests := []struct {
		code int
		want vocab.Outcome
	}{
		{200, vocab.OutcomeOK},    // success
		{204, vocab.OutcomeOK},    // success without a body
		{304, vocab.OutcomeOther}, // not a success by default: only 2xx is
		{302, vocab.OutcomeOther}, // a redirect, never followed
		{400, vocab.Outcome4xx},   // client error: the service answered
		{401, vocab.OutcomeAuth},  // credentials refused: their own class
		{403, vocab.OutcomeAuth},  // forbidden: the credentials too
		{404, vocab.Outcome4xx},   // client error
		{499, vocab.Outcome4xx},   // the last 4xx
		{429, vocab.Outcome429},   // rate limited, its own class
		{500, vocab.Outcome5xx},   // server error
		{503, vocab.Outcome503},   // unavailable, its own class
		{504, vocab.Outcome5xx},   // gateway timeout is a 5xx
	}
	for _, tc := range tests {
		if got := ClassifyStatus(tc.code, nil); got != tc.want {
			t.Errorf("ClassifyStatus(%d) = %v, want %v", tc.code, got, tc.want)
		}
	}
}

func TestClassifyStatusOK(t *testing.T) {
	tests := []struct {
		code int
		ok   []int
		want vocab.Outcome
	}{
		{200, []int{200}, vocab.OutcomeOK},         // listed
		{204, []int{200}, vocab.OutcomeOther},      // a 2xx the clients do not accept
		{302, []int{200, 302}, vocab.OutcomeOK},    // a redirect the clients take as an answer
		{301, []int{200, 302}, vocab.OutcomeOther}, // another redirect
		{404, []int{200, 404}, vocab.OutcomeOK},    // a probe of a missing page
		{401, []int{200, 401}, vocab.OutcomeOK},    // a listed 401 is a success like any listed status
		{400, []int{200, 404}, vocab.Outcome4xx},   // an unlisted 4xx keeps its class
		{503, []int{200}, vocab.Outcome503},        // an unlisted 5xx keeps its class
		{299, nil, vocab.OutcomeOK},                // the default: 200–299
		{199, nil, vocab.OutcomeOther},             // informational: not a success
	}
	for _, tc := range tests {
		if got := ClassifyStatus(tc.code, tc.ok); got != tc.want {
			t.Errorf("ClassifyStatus(%d, %v) = %v, want %v", tc.code, tc.ok, got, tc.want)
		}
	}
}
