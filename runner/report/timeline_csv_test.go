package report

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/trigger-test/trigger/analysis"
)

// A timeline written row by row reads back the same, NaN included, and
// every row is on disk (flushed) as soon as Write returns.
func TestTimelineRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewTimelineWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	in := []analysis.TimelineRow{
		{TS: 0, Phase: "warmup", Sent: 50, FirstOK: 50, FirstDone: 50, WaitS: math.NaN(), IngressPerS: 49.5},
		{TS: 1, Phase: "spike", Sent: 250, Timeouts: 12, WaitS: 3.25, IngressPerS: math.NaN()},
	}
	for i, m := range in {
		if err := w.Write(m); err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(buf.String(), "\n"); got != i+2 {
			t.Fatalf("after row %d the buffer holds %d lines; rows must be flushed", i, got)
		}
	}
	out, err := ReadTimeline(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || out[0].Phase != "warmup" || out[1].Timeouts != 12 || !math.IsNaN(out[0].WaitS) || out[0].IngressPerS != 49.5 || !math.IsNaN(out[1].IngressPerS) {
		t.Errorf("read back %+v", out)
	}
}

// Unknown columns are ignored and missing ones read as NaN.
func TestTimelineReadsOtherVersions(t *testing.T) {
	out, err := ReadTimeline(strings.NewReader("t_s,phase,future_column,sent\n3,observe,x,40\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || out[0].TS != 3 || out[0].Sent != 40 || !math.IsNaN(out[0].Timeouts) {
		t.Errorf("%+v", out)
	}
	if _, err := ReadTimeline(strings.NewReader("t_s\nnot-a-number\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("bad number: %v", err)
	}
}
