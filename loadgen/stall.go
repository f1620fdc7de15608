package loadgen

import "time"

// The driver's own stalls. A process that does not run (stopped with
// SIGSTOP, a machine out of CPU, a VM paused) still counts time: when it
// runs again, the attempts whose deadlines passed meanwhile time out at
// once and the first attempts planned meanwhile are dropped or sent late,
// although the service may have answered them in time. Those are the
// driver's failures, not the service's (docs/safety.md: time the driver
// lost is never the service's failure).
//
// The tick goroutine beats every beatEvery; every event the recorder
// records, and every beat, first compares the time since the last beat
// with stallMin: a longer gap means nothing of the driver ran, and the
// seconds it spans get it as Second.Stalled.
const (
	// beatEvery is the period of the driver's heartbeat.
	beatEvery = 20 * time.Millisecond
	// stallMin is the shortest gap between beats taken for a stall: ten
	// beats missed.
	stallMin = 10 * beatEvery
	// maxStalls bounds the stall intervals kept for seconds not yet sealed.
	maxStalls = 16
)

// stall is an interval of the driver's clock during which it did not run.
type stall struct{ from, to time.Duration }

// noteStallLocked records a stall when the last beat is older than
// stallMin at now. The caller holds r.mu.
func (r *recorder) noteStallLocked(now time.Duration) {
	if !r.beating || now-r.lastBeat <= stallMin {
		return
	}
	if len(r.stalls) == maxStalls {
		r.stalls = append(r.stalls[:0], r.stalls[1:]...)
	}
	r.stalls = append(r.stalls, stall{r.lastBeat, now})
	r.lastBeat = now
}

// beat is the tick goroutine's heartbeat at now: it notes a stall that
// ended now and seals the seconds before it.
func (r *recorder) beat(now time.Duration) {
	r.mu.Lock()
	r.rollLocked(now)
	r.beating, r.lastBeat = true, now
	r.mu.Unlock()
}

// stalledLocked is how long, in seconds, the driver stalled within second
// s, and drops the intervals that end before it. The caller holds r.mu.
func (r *recorder) stalledLocked(s int) float64 {
	lo, hi := time.Duration(s)*time.Second, time.Duration(s+1)*time.Second
	var d time.Duration
	keep := r.stalls[:0]
	for _, st := range r.stalls {
		if st.to > lo {
			keep = append(keep, st)
		}
		if a, b := max(st.from, lo), min(st.to, hi); b > a {
			d += b - a
		}
	}
	r.stalls = keep
	return d.Seconds()
}
