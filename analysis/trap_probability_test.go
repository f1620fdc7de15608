package analysis

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// The trap_probability section in a result document: the model's odds as
// a proportion rounded like every figure, null with the reason when the
// model could not give them, and no key at all when they were not
// computed.
func TestTrapProbabilitySectionEncodes(t *testing.T) {
	p := NewProportion(7, 30)
	for _, tc := range []struct {
		name string
		sec  *TrapProbability
		want []string // substrings of the encoded section
		not  []string
	}{
		{"computed", &TrapProbability{Model: "request", Trapped: &p, Runs: 30, FirstSeed: 1, RunsWanted: 200, AttemptsSimulated: 4_999_123, AttemptBudget: 5_000_000},
			[]string{`"trap_probability":{"model":"request","trapped":{"count":7,"of":30,"p":0.233333,"lo":0.117924,"hi":0.409283}`,
				`"runs":30,"first_seed":1,"runs_wanted":200,"attempts_simulated":4999123,"attempt_budget":5000000`},
			[]string{"model_unavailable"}},
		{"unavailable", &TrapProbability{Model: "request", FirstSeed: 1, RunsWanted: 200, AttemptBudget: 5_000_000, ModelUnavailable: "the request model cannot run this scenario"},
			[]string{`"trapped":null`, `"model_unavailable":"the request model cannot run this scenario"`}, nil},
		// 0 of 0 (never written by the model, but a document must encode).
		{"nothing known", &TrapProbability{Model: "request", Trapped: &Proportion{P: math.NaN(), Hi: 1}},
			[]string{`"trapped":{"count":0,"of":0,"p":null,"lo":0,"hi":1}`}, nil},
		{"not computed", nil, nil, []string{"trap_probability"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(Document{Kind: "plan", TrapProbability: tc.sec})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(b), w) {
					t.Errorf("document %s\nlacks %s", b, w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(string(b), n) {
					t.Errorf("document %s\nhas %s", b, n)
				}
			}
			if tc.name == "nothing known" {
				return // NaN is null, read back as 0: the model never writes 0 of 0
			}
			var back Document
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if again, _ := json.Marshal(back); string(again) != string(b) {
				t.Errorf("read back and written again:\n%s\nwant\n%s", again, b)
			}
		})
	}
}

// The model's odds and a run's one draw in words.
func TestTrapProbabilityText(t *testing.T) {
	p := NewProportion(44, 200)
	zero, few := NewProportion(0, 200), NewProportion(0, 17)
	for _, tc := range []struct {
		sec  *TrapProbability
		want string
	}{
		{&TrapProbability{Model: "request", Trapped: &p, Runs: 200}, "22 % (95 %: 17–28 %), 44 of 200 seeded runs of the request model trapped"},
		{&TrapProbability{Model: "request", Trapped: &zero, Runs: 200}, "0 % (95 %: 0–1.9 %), 0 of 200 seeded runs of the request model trapped"},
		{&TrapProbability{Model: "request", Trapped: &few, Runs: 17, Note: "the work budget allowed 17 of the 200 runs"},
			"0 % (95 %: 0–18 %), 0 of 17 seeded runs of the request model trapped (the work budget allowed 17 of the 200 runs)"},
		{&TrapProbability{Model: "request", ModelUnavailable: "too costly"}, "not available: too costly"},
		{nil, "not computed"},
	} {
		if got := tc.sec.ModelText(); got != tc.want {
			t.Errorf("ModelText %q, want %q", got, tc.want)
		}
	}
	if got := OneDrawText("run", VerdictTrapped); got != "this run: trapped — one draw; repeated trials measure the odds" {
		t.Errorf("one draw %q", got)
	}
	if got := OneDrawText("run", VerdictInconclusive); got != "this run could not tell: no draw" {
		t.Errorf("an inconclusive run's draw %q", got)
	}
	if got := OneDrawText("plan", ""); got != "" {
		t.Errorf("a plan's one draw %q, want none", got)
	}
	if got := Percent(0.981); got != "98.1 %" {
		t.Errorf("Percent(0.981) = %q", got)
	}
}
