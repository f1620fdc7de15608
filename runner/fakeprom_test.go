package runner

import (
	"fmt"
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

// brakeScenario is a small run against tg with its metrics read from fp:
// 20 first attempts/s, a 2 s spike at twice that, then a long observe.
func brakeScenario(tg *staging.RecordingTarget, fp *staging.FakePrometheus, extra string) string {
	return fmt.Sprintf(`
scenario "brakes" {}
target {
  url         = "%[1]s/work"
  allow_hosts = ["127.0.0.1"]
}
client {
  timeout = "500ms"
  retry { max_retries = 1 }
}
service { capacity = 100 }
load {
  baseline = 20
  warmup   = "3s"
  spike {
    multiplier = 2
    duration   = "2s"
  }
  observe = "60s"
}
prometheus {
  address = %[2]q
  timeout = "5s"
  ingress = "sum(rate(svc_ingress_total[3s]))"
  served  = "sum(rate(svc_served_total[3s]))"
}
recovery { hold = "2s" }
%[3]s
`, tg.URL, fp.URL, extra)
}
