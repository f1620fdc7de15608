package request

// sharing is the service under the concurrency law (docs/model.md,
// "Latency laws and what sustains a trap"): no queue and no servers to
// wait for; an attempt arriving while n others are in flight takes
// L = L₀ + n/C from its arrival to its answer, and stays in flight that
// long whether or not its client still waits (n counts the arrival). In steady state at a rate
// λ < C that is n = λ·L₀/(1 − λ/C), the law's X(n) = n/L(n) = λ. The
// completion times form a binary min-heap; what has completed by the time
// of an event leaves it before the event is handled, so its length is the
// requests in flight. Its size is counted against Config.MaxPending.
type sharing struct {
	done     []float64 // min-heap of completion times, seconds
	floorS   float64   // L₀, seconds
	capacity float64   // C, requests per second
	maxFree  float64   // the latest completion time: nothing in flight from then on
}

// wait is the latency above the floor an attempt arriving at t would
// have, n/C seconds: the part of the law that spends the wait's patience
// τ_out − L₀, as a queue's wait does.
func (s *sharing) wait(t float64) float64 { return float64(s.inFlight(t)) / s.capacity }

// idleFrom is the time from which nothing is in flight.
func (s *sharing) idleFrom() float64 { return s.maxFree }

// advance removes the requests completed by t.
func (s *sharing) advance(t float64) {
	for len(s.done) > 0 && s.done[0] <= t {
		s.pop()
	}
}

// inFlight is n at t: the requests that arrived and have not completed.
func (s *sharing) inFlight(t float64) int {
	s.advance(t)
	return len(s.done)
}

// latency is L(n) = L₀ + n/(f·C) for an arrival at t, n counting the
// arrival itself, f the share of the capacity left (1 unless a fault
// holds).
func (s *sharing) latency(t, f float64) float64 {
	return s.floorS + float64(s.inFlight(t)+1)/(f*s.capacity)
}

// add puts a request completing at done in flight.
func (s *sharing) add(done float64) {
	if done > s.maxFree {
		s.maxFree = done
	}
	s.done = append(s.done, done)
	h := s.done
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if h[p] <= h[i] {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func (s *sharing) pop() {
	n := len(s.done) - 1
	s.done[0] = s.done[n]
	s.done = s.done[:n]
	siftDown(s.done)
}
