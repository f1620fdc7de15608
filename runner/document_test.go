package runner

import (
	"testing"
	"time"

	"github.com/trigger-test/trigger/internal/version"
)

// A run's document names what a report needs to place it: the wall-clock
// time its clock started (RFC 3339, UTC), its target (the plan's), and the
// trigger that ran it.
func TestDocumentNamesWhenWhereAndWhichTrigger(t *testing.T) {
	r := unitRun(time.Second)
	r.plan.Scenario.Target = "http://127.0.0.1:8080"
	r.start = time.Date(2026, 12, 5, 4, 30, 1, 500_000_000, time.FixedZone("CET", 3600))
	doc := r.document()
	if got, want := doc.Observation.StartedAt, "2026-12-05T03:30:01.5Z"; got != want {
		t.Errorf("started_at %q, want %q", got, want)
	}
	if doc.Scenario.Target != "http://127.0.0.1:8080" {
		t.Errorf("target %q", doc.Scenario.Target)
	}
	if doc.TriggerVersion == "" || doc.TriggerVersion != version.String() {
		t.Errorf("trigger_version %q, want %q", doc.TriggerVersion, version.String())
	}
}
