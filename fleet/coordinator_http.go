package fleet

import (
	"bytes"
	"crypto/hmac"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"
)

// authenticate reads a request's body and checks its signature (auth.go):
// 401 without our Authorization header, 403 for an unknown agent or a bad
// signature, 409 for a sequence number not above the last accepted one
// (a replay). It returns the agent's index and the body.
func (c *Coordinator) authenticate(w http.ResponseWriter, r *http.Request) (int, []byte, bool) {
	f, ok := parseAuth(r.Header.Get("Authorization"))
	if !ok {
		w.Header().Set("WWW-Authenticate", AuthScheme)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return 0, nil, false
	}
	if f.index < 0 || f.index >= len(c.agents) {
		http.Error(w, "forbidden", http.StatusForbidden)
		return 0, nil, false
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil || len(body) > maxBody {
		http.Error(w, "bad body", http.StatusBadRequest)
		return 0, nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	a := c.agents[f.index]
	if !hmac.Equal(f.mac, sign(a.key, r.Method, r.URL.RequestURI(), f.index, f.seq, body)) {
		http.Error(w, "forbidden", http.StatusForbidden)
		return 0, nil, false
	}
	if f.seq <= a.seq {
		http.Error(w, "replayed request (sequence number "+strconv.FormatUint(f.seq, 10)+" not above "+strconv.FormatUint(a.seq, 10)+")", http.StatusConflict)
		return 0, nil, false
	}
	a.seq = f.seq
	return f.index, body, true
}

// handleAssignment answers GET /v1/assignment?index=I: the agent's join.
// A second join of one index (two agents with its key) makes it lost.
func (c *Coordinator) handleAssignment(w http.ResponseWriter, r *http.Request) {
	i, _, ok := c.authenticate(w, r)
	if !ok {
		return
	}
	if q, err := strconv.Atoi(r.URL.Query().Get("index")); err != nil || q != i {
		c.markLost(i, "asked for another agent's assignment")
		http.Error(w, "not your index", http.StatusForbidden)
		return
	}
	c.mu.Lock()
	a := c.agents[i]
	twice := a.joined
	a.joined, a.lastSeen = true, time.Now()
	if twice && a.lost == "" && !a.final {
		a.lost = "joined a second time: two agents hold its key"
	}
	c.mu.Unlock()
	if twice {
		c.logf("%s lost: joined a second time", AgentName(i))
		http.Error(w, "already joined", http.StatusConflict)
		return
	}
	writeJSON(w, Assignment{
		RunID: c.cfg.RunID, Index: i, Agents: c.cfg.Agents,
		File: c.cfg.File, Source: c.cfg.Source, Vars: c.cfg.Vars, Seed: c.cfg.Seed,
		MaxDurationS: c.cfg.MaxDuration.Seconds(),
	})
}

// handleReport takes POST /v1/report and answers with a Control. A
// report that does not add up (validate.go) makes its agent lost: none
// of it is data.
func (c *Coordinator) handleReport(w http.ResponseWriter, r *http.Request) {
	i, body, ok := c.authenticate(w, r)
	if !ok {
		return
	}
	var rep Report
	err := json.NewDecoder(bytes.NewReader(body)).Decode(&rep)
	if err == nil && rep.Index != i {
		err = errors.New("the report names another agent")
	}
	var ctl Control
	if err != nil {
		ctl = c.refuse(i, "a report that does not read: "+truncateText(err.Error(), 200))
	} else {
		ctl = c.take(i, rep)
	}
	writeJSON(w, ctl)
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

// refuse declares agent i lost for why and tells it to stop.
func (c *Coordinator) refuse(i int, why string) Control {
	c.mu.Lock()
	a := c.agents[i]
	if a.lost == "" && !a.final {
		a.lost = why
	}
	n := len(a.rows)
	c.mu.Unlock()
	c.logf("%s lost: %s", AgentName(i), why)
	return Control{Have: n, Stop: true}
}

// take records an agent's report and says what it must do.
func (c *Coordinator) take(i int, rep Report) Control {
	c.mu.Lock()
	a := c.agents[i]
	a.lastSeen = time.Now()
	if a.lost != "" {
		defer c.mu.Unlock()
		return Control{Have: len(a.rows), Stop: true}
	}
	if why := c.checkReport(a, rep, time.Now()); why != "" {
		c.mu.Unlock()
		return c.refuse(i, "its report does not add up: "+why)
	}
	defer c.mu.Unlock()
	if rep.Error != "" {
		a.lost = "failed: " + truncateText(rep.Error, 500)
		return Control{Have: len(a.rows), Stop: true}
	}
	if rep.Interrupted != "" && !c.stop {
		// Its share is missing from here on, and the attempts it cut
		// short would read as the service's failures.
		a.lost = truncateText(rep.Interrupted, 200)
		return Control{Have: len(a.rows), Stop: true}
	}
	a.ready = a.ready || rep.Ready
	if rep.StartedUnixNS != 0 {
		a.startedUnixNS = rep.StartedUnixNS
	}
	// Seconds overlapping what is held are skipped (checkReport has
	// checked every index).
	for k, s := range rep.Seconds {
		if rep.From+k == len(a.rows) {
			a.rows = append(a.rows, s)
			a.sums.add(s)
		}
	}
	if rep.Cohorts != nil {
		a.cohorts = append(a.cohorts[:rep.CohortsFrom], rep.Cohorts...)
	}
	if rep.Final && rep.From+len(rep.Seconds) <= len(a.rows) {
		a.final = true
	}
	ctl := Control{Have: len(a.rows), Stop: c.stop, Replan: c.replan}
	if !c.start.IsZero() {
		ctl.StartUnixNS = c.start.UnixNano()
	}
	return ctl
}

// truncateText cuts an agent's text to n bytes at most.
func truncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
