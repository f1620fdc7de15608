package runner

import (
	"testing"
	"time"

	"github.com/trigger-test/trigger/internal/staging"
)

func startFakeProm(t *testing.T) *staging.FakePrometheus {
	t.Helper()
	f := staging.StartFakePrometheus()
	t.Cleanup(f.Stop)
	return f
}

func startTarget(t *testing.T) *staging.RecordingTarget {
	t.Helper()
	tg := staging.StartRecordingTarget()
	t.Cleanup(tg.Stop)
	return tg
}

// after calls f once tg has seen its first request and d has passed.
func after(tg *staging.RecordingTarget, d time.Duration, f func()) {
	go func() {
		<-tg.Started
		time.Sleep(d)
		f()
	}()
}

// brakeScenario is a small run against tg with its metrics read from fp
// (staging.SmallScenario).
func brakeScenario(tg *staging.RecordingTarget, fp *staging.FakePrometheus, extra string) string {
	return staging.SmallScenario(tg.URL, fp.URL, extra)
}
