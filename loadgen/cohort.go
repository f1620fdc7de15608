package loadgen

import "time"

// Cohort is what became of the logical requests whose first attempt was
// sent in one second of the run. A retry counts in the cohort of its
// request's first attempt, whenever it is sent, so Attempts / First is the
// clients' amplification A_client of that second's requests; it is final
// once Open is 0.
type Cohort struct {
	Index     int   // the second [Index, Index+1) s since Run started in which their first attempts were sent
	First     int64 // logical requests (first attempts sent); equals Second.Sent of the same second
	Attempts  int64 // attempts they sent in all, first attempts included (retries refused at max_in_flight are not sent and not counted)
	Succeeded int64 // of First, requests that ended with a success
	Open      int64 // of First, requests not yet ended (an attempt in flight or a retry waiting for its backoff)
}

// Cohorts returns a copy of the cohorts of seconds from index n on (up to
// the current second, whose cohort is still growing; once Run has returned,
// up to the last second of the timeline). Seconds without first attempts
// have a zero cohort; nil before Run starts or when n is past the current second.
func (d *Driver) Cohorts(n int) []Cohort {
	if !d.started.Load() {
		return nil
	}
	return d.rec.cohortsSince(n, d.now())
}

// cohortLocked returns the cohort of second c, adding the seconds up to it
// (one Cohort a second, amortized O(1)). The caller holds mu.
func (r *recorder) cohortLocked(c int) *Cohort {
	for len(r.cohorts) <= c {
		r.cohorts = append(r.cohorts, Cohort{Index: len(r.cohorts)})
	}
	return &r.cohorts[c]
}

// endLocked records the end of a logical request of cohort c, with a
// success when ok. The caller holds mu.
func (r *recorder) endLocked(c int, ok bool) {
	ch := r.cohortLocked(c)
	ch.Open--
	if ok {
		ch.Succeeded++
	}
}

// cohortsSince returns a copy of the cohorts from index n to the current
// second at now (to the last sealed second once the timeline is frozen).
func (r *recorder) cohortsSince(n int, now time.Duration) []Cohort {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rollLocked(now)
	last := r.cur.Index
	if r.frozen {
		last-- // flush sealed the last second and moved past it
	}
	n = max(n, 0)
	if n > last {
		return nil
	}
	r.cohortLocked(last)
	return append([]Cohort(nil), r.cohorts[n:last+1]...)
}
