package cli

import (
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/runner"
)

// progressPrinter shows a run's status: one line rewritten in place on a
// terminal, plain lines every few seconds (and at every phase change)
// otherwise, so CI logs stay readable.
type progressPrinter struct {
	mu        sync.Mutex
	w         io.Writer
	tty       bool
	every     time.Duration
	lastPhase analysis.Phase
	lastPrint time.Duration
	drawn     bool   // a line is drawn in place and not yet ended
	prefix    string // printed before every status line (the demo's system)
}

func newProgressPrinter(w io.Writer) *progressPrinter {
	_, tty := terminal(w)
	return &progressPrinter{w: w, tty: tty, every: 5 * time.Second, lastPrint: -time.Hour}
}

// update prints the status (the runner calls it once a second).
func (p *progressPrinter) update(st runner.Status) {
	p.mu.Lock()
	defer p.mu.Unlock()
	line := p.prefix + formatStatus(st)
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
		p.drawn = true
		if st.Phase == analysis.PhaseDone {
			p.end()
		}
		return
	}
	if st.Phase != p.lastPhase || st.Elapsed-p.lastPrint >= p.every || st.Phase == analysis.PhaseDone {
		fmt.Fprintln(p.w, line)
		p.lastPhase, p.lastPrint = st.Phase, st.Elapsed
	}
}

// setPrefix sets what every status line starts with from now on (the
// trial under way).
func (p *progressPrinter) setPrefix(prefix string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.end()
	p.prefix = prefix
	p.lastPhase, p.lastPrint = "", -time.Hour
}

// note prints a message on a line of its own, not through the status line.
func (p *progressPrinter) note(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.end()
	fmt.Fprintf(p.w, "trigger: "+format+"\n", args...)
}

func (p *progressPrinter) end() {
	if p.drawn {
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}

func formatStatus(st runner.Status) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-9s %s", "["+string(st.Phase)+"]", clock(st.Elapsed))
	if st.Remaining > 0 {
		fmt.Fprintf(&b, " (≤%s left)", clock(st.Remaining))
	}
	if st.Phase != analysis.PhasePreflight {
		fmt.Fprintf(&b, "  first %4.0f/s  attempts %5.0f/s  failed %4.0f/s", st.RatePerS, st.Attempts, st.Failed)
		if st.Failed > 0 {
			var classes []string
			for _, c := range []struct {
				n    float64
				name string
			}{{st.Timeouts, "timeout"}, {st.Errors - st.Auth, "error"}, {st.Auth, "auth"}, {st.Refused, "refused"}} {
				if c.n > 0 {
					classes = append(classes, fmt.Sprintf("%s %.0f", c.name, c.n))
				}
			}
			fmt.Fprintf(&b, " (%s)", strings.Join(classes, ", "))
		}
		if !math.IsNaN(st.SuccessRatio) {
			fmt.Fprintf(&b, "  first ok %5.1f%%", 100*st.SuccessRatio)
		}
		if len(st.Requests) > 0 {
			b.WriteString("  ok by request:")
			for i, q := range st.Requests {
				if i == maxRequestsShown {
					fmt.Fprintf(&b, " +%d more", len(st.Requests)-i)
					break
				}
				if math.IsNaN(q.SuccessRatio) {
					fmt.Fprintf(&b, " %s –", q.Name)
				} else {
					fmt.Fprintf(&b, " %s %.0f%%", q.Name, 100*q.SuccessRatio)
				}
			}
		}
		if !math.IsNaN(st.WaitS) {
			fmt.Fprintf(&b, "  wait %6.2f s (%s)", st.WaitS, st.WaitSource)
		}
		if st.WaitBlind != "" {
			fmt.Fprintf(&b, "  blind: %s", st.WaitBlind)
		}
	}
	if st.Verdict != "" {
		fmt.Fprintf(&b, "  → %s", st.Verdict)
	} else if st.Note != "" && st.Phase == analysis.PhasePreflight {
		fmt.Fprintf(&b, "  %s", st.Note)
	}
	return b.String()
}

// maxRequestsShown is the most requests of a mix the status line names.
const maxRequestsShown = 4

func clock(d time.Duration) string {
	s := int(d.Round(time.Second).Seconds())
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}
