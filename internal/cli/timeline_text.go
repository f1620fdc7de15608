package cli

import (
	"io"
	"math"
	"strings"

	"github.com/trigger-test/trigger/analysis"
)

// maxTimelineRows bounds the text timeline: longer runs are shown every
// few seconds, each row the average of the samples it covers.
const maxTimelineRows = 30

// printTimeline writes a compact table of the model's timeline and a
// sparkline of the wait, so a terminal shows the shape of the run.
func printTimeline(w io.Writer, tl []analysis.TimelineRow) error {
	if len(tl) == 0 {
		return nil
	}
	per := roundStride((len(tl) + maxTimelineRows - 1) / maxTimelineRows)
	sample := 1.0
	if len(tl) > 1 {
		sample = tl[1].TS - tl[0].TS
	}
	t := &textWriter{w: w}
	t.raw("\nTimeline (every %s)\n", analysis.FormatSeconds(float64(per)*sample))
	t.raw("%9s %9s %9s %9s %9s %9s %9s %9s\n", "t_s", "wait_s", "first/s", "retry/s", "refused/s", "served/s", "abandon/s", "goodput/s")
	for i := 0; i < len(tl); i += per {
		rows := tl[i:min(i+per, len(tl))]
		var first, retry, refused, served, abandoned, goodput float64
		for _, s := range rows {
			first += s.Sent
			retry += s.Retries
			refused += s.Rejected
			served += s.ServedPerS
			abandoned += s.AbandonedPerS
			goodput += s.FirstOK
		}
		n := float64(len(rows))
		t.raw("%9.0f %9.2f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f\n", rows[0].TS, rows[len(rows)-1].WaitS,
			first/n, retry/n, refused/n, served/n, abandoned/n, goodput/n)
	}
	t.raw("\nwait %s peak %s\n", sparkline(tl, 60), analysis.FormatSeconds(peakWait(tl)))
	return t.err
}

// roundStride rounds a number of samples per row up to 1, 2, 5 or 10, 15,
// 30 times a power of ten, so rows fall on round times.
func roundStride(n int) int {
	for scale := 1; ; scale *= 10 {
		for _, m := range []int{1, 2, 5, 10, 15, 30} {
			if m*scale >= n {
				return m * scale
			}
		}
	}
}

func peakWait(tl []analysis.TimelineRow) float64 {
	peak := 0.0
	for _, s := range tl {
		peak = math.Max(peak, s.MaxWaitS)
	}
	return peak
}

// sparkline draws the largest wait of each of width stretches of the run.
func sparkline(tl []analysis.TimelineRow, width int) string {
	const bars = "▁▂▃▄▅▆▇█"
	levels := []rune(bars)
	peak := peakWait(tl)
	width = min(width, len(tl))
	var b strings.Builder
	for i := range width {
		lo, hi := i*len(tl)/width, (i+1)*len(tl)/width
		m := 0.0
		for _, s := range tl[lo:hi] {
			m = math.Max(m, s.MaxWaitS)
		}
		idx := 0
		if peak > 0 {
			idx = int(math.Round(m / peak * float64(len(levels)-1)))
		}
		b.WriteRune(levels[idx])
	}
	return b.String()
}
