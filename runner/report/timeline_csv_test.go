package report

import (
	"bytes"
	"fmt"
	"io"
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

// rowsReader streams a timeline.csv of n one-second rows without holding
// it: the header, then "i,observe,i\n" for i = 0 … n−1, and cut (no final
// newline on the last row) when cut.
type rowsReader struct {
	n, i int
	cut  bool
	buf  []byte
}

func (r *rowsReader) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		switch {
		case r.i < 0:
			return 0, io.EOF
		case r.i == 0 && r.buf == nil:
			r.buf = []byte("t_s,phase,sent\n")
			continue
		case r.i == r.n:
			r.i = -1
			return 0, io.EOF
		}
		r.buf = fmt.Appendf(r.buf[:0], "%d,observe,%d\n", r.i, r.i)
		if r.cut && r.i == r.n-1 {
			r.buf = r.buf[:len(r.buf)-1]
		}
		r.i++
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// A timeline with many more rows than the cap is read with at most the
// cap in memory: the rows kept are evenly spaced from the first, span the
// whole run, and every row is counted (issue 32, finding 10: a 500 MiB
// timeline.csv took `trigger report` to 8.8 GB).
func TestReadTimelineKeepsAtMostTheCap(t *testing.T) {
	for _, tc := range []struct{ n, limit int }{{100_000, 1000}, {1000, 1000}, {1001, 1000}, {12_345, 999}, {7, 2}} {
		rows, whole, err := ReadTimelineCapped(&rowsReader{n: tc.n}, tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		if whole != tc.n {
			t.Errorf("n %d: %d whole rows counted", tc.n, whole)
		}
		if len(rows) > tc.limit || len(rows) < tc.limit/2 && tc.n >= tc.limit {
			t.Errorf("n %d, cap %d: %d rows kept", tc.n, tc.limit, len(rows))
		}
		if tc.n <= tc.limit && len(rows) != tc.n {
			t.Errorf("n %d under the cap %d: %d rows kept, want all", tc.n, tc.limit, len(rows))
		}
		stride := 1.0
		if len(rows) > 1 {
			stride = rows[1].TS - rows[0].TS
		}
		for i, m := range rows {
			if m.TS != float64(i)*stride || m.Sent != m.TS || m.Phase != "observe" {
				t.Fatalf("n %d: row %d is %v (sent %v), want t = %v: evenly spaced from 0", tc.n, i, m.TS, m.Sent, float64(i)*stride)
			}
		}
		if last := rows[len(rows)-1].TS; float64(tc.n)-1-last >= stride {
			t.Errorf("n %d: the last row kept is at %v s, more than a stride (%v) before the end", tc.n, last, stride)
		}
	}
	// ReadTimeline, as report and compare call it, keeps MaxTimelineRows.
	rows, err := ReadTimeline(&rowsReader{n: 2*MaxTimelineRows + 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) > MaxTimelineRows {
		t.Errorf("ReadTimeline kept %d rows, more than MaxTimelineRows = %d", len(rows), MaxTimelineRows)
	}
}

// A thinned timeline cut by a crash: the cut row is never kept, and the
// whole rows before it are counted.
func TestReadTimelineCappedCut(t *testing.T) {
	rows, whole, err := ReadTimelineCapped(&rowsReader{n: 5000, cut: true}, 100)
	if err == nil || !strings.Contains(err.Error(), "cut") {
		t.Fatalf("err = %v, want the cut", err)
	}
	if whole != 4999 || len(rows) > 100 || rows[len(rows)-1].TS >= 4999 {
		t.Errorf("whole %d, %d rows, last at %v; want 4999 whole, ≤ 100 rows, none the cut one", whole, len(rows), rows[len(rows)-1].TS)
	}
}

// A mix's requests' columns read back into each row's Requests, in the
// mix's order; a row written without them reads back without them.
func TestTimelineRequestsRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewTimelineWriter(&buf, "browse", "checkout.v2")
	if err != nil {
		t.Fatal(err)
	}
	in := []analysis.TimelineRow{
		{TS: 0, Sent: 10, Requests: []analysis.RequestRow{{First: 7, FirstOK: 6, FirstTimeouts: 1}, {First: 3, FirstOK: 1, FirstErrors: 1, FirstClientErrors: 1, FirstConnect: 0, FirstOther: 1}}},
		{TS: 1, Sent: 10},
	}
	for _, m := range in {
		if err := w.Write(m); err != nil {
			t.Fatal(err)
		}
	}
	out, err := ReadTimeline(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || len(out[0].Requests) != 2 || out[0].Requests[0] != in[0].Requests[0] || out[0].Requests[1] != in[0].Requests[1] || out[1].Requests != nil {
		t.Errorf("read back %+v", out)
	}
}
