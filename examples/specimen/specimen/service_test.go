package specimen

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/trigger-test/trigger/internal/testwait"
	"github.com/trigger-test/trigger/vocab"
)

// newTestServer starts a specimen inside the current synctest bubble and
// closes it when the test ends.
func newTestServer(t *testing.T, cfg Config) *Server {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// submitN offers n first attempts at once and returns the queued items.
func submitN(t *testing.T, s *Server, n int, cancelable bool) []*item {
	t.Helper()
	var out []*item
	for range n {
		it := newItem(KindFirst, time.Now(), cancelable)
		if res := s.svc.submit(it); res != nil {
			t.Fatalf("refused: %+v", *res)
		}
		out = append(out, it)
	}
	return out
}

// served is the count of requests a pod finished.
func served(st Stats) uint64 { return st.Answered + st.Abandoned }

func TestCapacityIsExact(t *testing.T) {
	cases := []struct {
		name string
		cfg  Config
		rate float64 // C, requests/s
	}{
		// One pod at 100/s: one request every 10 ms exactly.
		{"one pod", Config{PodRate: 100}, 100},
		// Four pods behind one shared queue: M/D/4 drains at 4·c.
		{"shared", Config{Pods: 4, PodRate: 50, QueueMode: vocab.QueueShared}, 200},
		// Four pods round robin: each queue drains at c.
		{"round robin", Config{Pods: 4, PodRate: 50}, 200},
		// Least loaded balances the same backlog evenly.
		{"least loaded", Config{Pods: 4, PodRate: 50, Balancer: LeastLoaded}, 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newTestServer(t, tc.cfg)
				n := int(tc.rate) * 3 // three seconds of work
				submitN(t, s, n, false)
				// After 1.5 s of virtual time exactly half the work is done
				// (±1 request per pod at the boundary).
				time.Sleep(1500*time.Millisecond + time.Microsecond)
				synctest.Wait()
				if got, want := float64(served(s.Stats())), tc.rate*1.5; got < want || got > want+float64(s.cfg.Pods) {
					t.Fatalf("served %v after 1.5 s, want %v", got, want)
				}
				time.Sleep(1500 * time.Millisecond)
				synctest.Wait()
				st := s.Stats()
				if served(st) != uint64(n) || st.QueueDepth != 0 || st.Answered != uint64(n) {
					t.Fatalf("after 3 s: %+v", st)
				}
				if got := st.BusySeconds; got < 2.999*float64(s.cfg.Pods) || got > 3.001*float64(s.cfg.Pods) {
					t.Fatalf("busy %v s, want %v", got, 3*s.cfg.Pods)
				}
			})
		})
	}
}

func TestAbandonedWorkIsServed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newTestServer(t, Config{PodRate: 10})
		items := submitN(t, s, 10, false)
		// The clients of the last five give up at once: System A serves them anyway.
		for _, it := range items[5:] {
			s.svc.clientGone(it)
		}
		time.Sleep(time.Second + time.Millisecond)
		synctest.Wait()
		st := s.Stats()
		if st.Answered != 5 || st.Abandoned != 5 || st.Rejected[reasonDisconnect] != 0 {
			t.Fatalf("stats %+v", st)
		}
		if st.BusySeconds < 0.999 {
			t.Fatalf("busy %v s: abandoned work must cost service time", st.BusySeconds)
		}
	})
}

func TestCancelOnDisconnect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newTestServer(t, Config{PodRate: 10, CancelOnDisconnect: true})
		items := submitN(t, s, 10, true)
		time.Sleep(50 * time.Millisecond) // the first is in service
		for _, it := range items[:1] {
			s.svc.clientGone(it) // stops its service half way
		}
		for _, it := range items[5:] {
			s.svc.clientGone(it) // removed from the queue
		}
		time.Sleep(time.Second)
		synctest.Wait()
		st := s.Stats()
		if st.Answered != 4 || st.Abandoned != 0 || st.Rejected[reasonDisconnect] != 6 || st.QueueDepth != 0 {
			t.Fatalf("stats %+v", st)
		}
		// 50 ms of the cancelled one, then four of 100 ms.
		if st.BusySeconds < 0.449 || st.BusySeconds > 0.451 {
			t.Fatalf("busy %v s, want 0.45", st.BusySeconds)
		}
	})
}

func TestDoorRefusals(t *testing.T) {
	cases := []struct {
		name     string
		cfg      Config
		offered  int
		admitted int
		reason   string
	}{
		// b = 0.5 s at 100/s: at most 50 requests of work queued or in service.
		{"admission bound", Config{PodRate: 100, AdmissionBound: 500 * time.Millisecond}, 80, 50, reasonAdmission},
		// The bound is per queue in per-pod mode: two pods hold 2·25.
		{"admission per pod", Config{Pods: 2, PodRate: 50, AdmissionBound: 500 * time.Millisecond}, 80, 50, reasonAdmission},
		// A hard maximum of 30 waiting, plus the one in service.
		{"queue full", Config{PodRate: 100, MaxQueue: 30}, 80, 31, reasonQueueFull},
		// 10 active slots and 5 waiting: 15 inside, the rest refused at once.
		{"limit", Config{PodRate: 100, Limit: 10, LimitQueue: 5, LimitStatus: 429}, 80, 15, reasonLimit},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newTestServer(t, tc.cfg)
				var admitted int
				var items []*item
				for i := range tc.offered {
					if i == 1 {
						synctest.Wait() // the pod has taken the first one
					}
					it := newItem(KindFirst, time.Now(), false)
					res := s.svc.submit(it)
					if res == nil {
						admitted++
						items = append(items, it)
						continue
					}
					if res.reason != tc.reason {
						t.Fatalf("refused for %q, want %q", res.reason, tc.reason)
					}
					if tc.reason == reasonLimit && res.status != 429 {
						t.Fatalf("limit status %d", res.status)
					}
				}
				if admitted != tc.admitted {
					t.Fatalf("admitted %d, want %d", admitted, tc.admitted)
				}
				st := s.Stats()
				if st.Rejected[tc.reason] != uint64(tc.offered-tc.admitted) || st.Ingress() != uint64(tc.offered) {
					t.Fatalf("stats %+v", st)
				}
				// Every admitted request is eventually answered, none refused later.
				time.Sleep(2 * time.Second)
				synctest.Wait()
				for _, it := range items {
					select {
					case r := <-it.done:
						if r.status != 200 {
							t.Fatalf("admitted item got %+v", r)
						}
					default:
						t.Fatal("admitted item not answered")
					}
				}
				if st := s.Stats(); st.Answered != uint64(tc.admitted) || st.QueueDepth != 0 {
					t.Fatalf("after drain: %+v", st)
				}
			})
		})
	}
}

func TestDeadlineDropsCostNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newTestServer(t, Config{PodRate: 10, DeadlinePropagation: true})
		now := time.Now()
		for i := range 10 {
			it := newItem(KindFirst, now, false)
			if i > 0 {
				it.deadline = now.Add(50 * time.Millisecond) // passed before the pod is free
			}
			if res := s.svc.submit(it); res != nil {
				t.Fatalf("refused %+v", *res)
			}
		}
		time.Sleep(time.Second)
		synctest.Wait()
		st := s.Stats()
		if st.Answered != 1 || st.Rejected[reasonDeadline] != 9 || st.BusySeconds > 0.1001 {
			t.Fatalf("stats %+v", st)
		}
		// A request whose deadline has already passed is refused at the door.
		it := newItem(KindFirst, time.Now(), false)
		it.deadline = time.Now().Add(-time.Millisecond)
		if res := s.svc.submit(it); res == nil || res.reason != reasonDeadline {
			t.Fatalf("expired request admitted: %+v", res)
		}
	})
}

func TestServiceStart(t *testing.T) {
	cases := []struct {
		name           string
		busyUntil, enq int // ms
		want           int // ms
	}{
		// Busy pod, item waiting: start when the previous one ended, even if
		// the timer woke the pod late (overshoot does not accumulate).
		{"busy", 100, 50, 100},
		// Idle pod: start when the item arrived.
		{"idle", 100, 150, 150},
		// Fresh pod.
		{"fresh", 0, 10, 10},
	}
	for _, c := range cases {
		if got := serviceStart(at(c.busyUntil), at(c.enq)); !got.Equal(at(c.want)) {
			t.Errorf("%s: start %v, want %v", c.name, got.Sub(t0), at(c.want).Sub(t0))
		}
	}
}

// TestOvershootDoesNotAccumulate serves on the real clock, whose timers
// overshoot, and checks the pod's virtual clock: 100 requests of 2 ms queued
// at once end 200 ms after the first began, not 100 overshoots later.
func TestOvershootDoesNotAccumulate(t *testing.T) {
	s, err := New(Config{PodRate: 500})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	items := make([]*item, 0, 100)
	for range 100 {
		it := newItem(KindFirst, time.Now(), false)
		if res := s.svc.submit(it); res != nil {
			t.Fatal(res)
		}
		items = append(items, it)
	}
	testwait.Receive(t, items[99].done, 10*time.Second, "the last of 100 requests of 2 ms to be served")
	// On the virtual clock the last one ended exactly 100 service times
	// after the first began, however late each timer fired.
	p := (*s.svc.readyList.Load())[0]
	if got := p.busyUntil.Sub(items[0].enq); got != 200*time.Millisecond {
		t.Fatalf("virtual clock advanced %v, want 200ms", got)
	}
}

func TestLimitWaitroomCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// 2 active slots, 3 waiting; clients of two waiting requests leave.
		s := newTestServer(t, Config{PodRate: 10, Limit: 2, LimitQueue: 3, CancelOnDisconnect: true})
		items := submitN(t, s, 5, true)
		synctest.Wait()
		if st := s.Stats(); st.QueueDepth != 4 || st.InService != 1 {
			t.Fatalf("before: %+v", st)
		}
		s.svc.clientGone(items[2])
		s.svc.clientGone(items[4])
		time.Sleep(time.Second)
		synctest.Wait()
		st := s.Stats()
		if st.Answered != 3 || st.Rejected[reasonDisconnect] != 2 || st.QueueDepth != 0 || s.svc.active.Load() != 0 || s.svc.roomN.Load() != 0 {
			t.Fatalf("after: %+v active %d room %d", st, s.svc.active.Load(), s.svc.roomN.Load())
		}
		if st.BusySeconds > 0.3001 {
			t.Fatalf("busy %v s: cancelled requests cost service time", st.BusySeconds)
		}
	})
}

func TestAdaptiveLIFOWithCoDelServes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// 100/s and a burst of 50: a standing queue forms, CoDel sheds what
		// waits past its timeout, and LIFO serves the newest first.
		s := newTestServer(t, Config{PodRate: 100, Discipline: vocab.AdaptiveLIFO, CoDel: true,
			CoDelTarget: 5 * time.Millisecond, CoDelInterval: 100 * time.Millisecond})
		items := submitN(t, s, 50, false)
		time.Sleep(2 * time.Second)
		synctest.Wait()
		st := s.Stats()
		if st.Answered+st.Rejected[reasonCoDel] != 50 || st.Rejected[reasonCoDel] == 0 || st.Answered < 10 {
			t.Fatalf("stats %+v", st)
		}
		// Every request got an answer or a CoDel refusal, nothing else.
		for _, it := range items {
			if r := <-it.done; r.status != 200 && r.reason != reasonCoDel {
				t.Fatalf("unexpected result %+v", r)
			}
		}
	})
}
