package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"time"
)

// twWait is what waitTimeWait saw before a run: TIME_WAIT sockets on the
// target's port (either end) when the wait began and when it ended, and how
// long it waited. Drained is false when the wait hit its bound first.
type twWait struct {
	Before  int     `json:"time_wait_before"`
	After   int     `json:"time_wait_after"`
	WaitedS float64 `json:"waited_s"`
	Drained bool    `json:"drained"`
}

func (w twWait) String() string {
	s := fmt.Sprintf("TIME_WAIT %d→%d", w.Before, w.After)
	if w.WaitedS >= 0.5 {
		s += fmt.Sprintf(" in %.0fs", w.WaitedS)
	}
	if !w.Drained {
		s += " (not drained: went on)"
	}
	return s
}

// waitTimeWait waits until at most maxLeft TCP sockets whose local or remote
// port is port are in TIME_WAIT, or until bound has passed, whichever comes
// first, polling every half second. A run that falls behind opens thousands
// of connections; the TIME_WAIT sockets they leave (Linux keeps them 60 s)
// make every later run on that port collapse, so each run starts only once
// the previous ones' have gone.
func waitTimeWait(port, maxLeft int, bound time.Duration) twWait {
	start := time.Now()
	w := twWait{Before: countTimeWaitPort(port)}
	w.After = w.Before
	for w.After > maxLeft && time.Since(start) < bound {
		time.Sleep(500 * time.Millisecond)
		w.After = countTimeWaitPort(port)
	}
	w.WaitedS = time.Since(start).Seconds()
	w.Drained = w.After <= maxLeft
	return w
}

// countTimeWaitPort counts TCP sockets in TIME_WAIT with port at either
// end: the clients' side (remote port) and the target's (local port). The
// same as ss -tan state time-wait '( sport = :PORT or dport = :PORT )'.
func countTimeWaitPort(port int) int { return countTimeWaitOn(port, true) }

// countTimeWaitOn counts TIME_WAIT sockets (state 06 in /proc/net/tcp{,6})
// whose remote port is port, or, with local, whose local port is too.
func countTimeWaitOn(port int, local bool) int {
	suffix := fmt.Sprintf(":%04X", port)
	n := 0
	for _, p := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) > 3 && fields[3] == "06" && (strings.HasSuffix(fields[2], suffix) || local && strings.HasSuffix(fields[1], suffix)) {
				n++
			}
		}
		f.Close()
	}
	return n
}
