package fleet

import (
	"crypto/subtle"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"time"
)

// authorized checks the run's token (Authorization: Bearer TOKEN).
func (c *Coordinator) authorized(w http.ResponseWriter, r *http.Request) bool {
	got := []byte(r.Header.Get("Authorization"))
	want := []byte("Bearer " + c.token)
	if subtle.ConstantTimeCompare(got, want) != 1 {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return false
	}
	return true
}

// knownAgent checks an agent's index, answering 400 when there is no such
// agent.
func (c *Coordinator) knownAgent(w http.ResponseWriter, i int) bool {
	if i < 0 || i >= len(c.agents) {
		http.Error(w, "no such agent", http.StatusBadRequest)
		return false
	}
	return true
}

// handleAssignment answers GET /v1/assignment?index=I.
func (c *Coordinator) handleAssignment(w http.ResponseWriter, r *http.Request) {
	if !c.authorized(w, r) {
		return
	}
	i, err := strconv.Atoi(r.URL.Query().Get("index"))
	if err != nil {
		i = -1
	}
	if !c.knownAgent(w, i) {
		return
	}
	c.mu.Lock()
	a := c.agents[i]
	a.joined, a.lastSeen = true, time.Now()
	c.mu.Unlock()
	writeJSON(w, Assignment{
		RunID: c.cfg.RunID, Index: i, Agents: c.cfg.Agents,
		File: c.cfg.File, Source: c.cfg.Source, Vars: c.cfg.Vars, Seed: c.cfg.Seed,
		MaxDurationS: c.cfg.MaxDuration.Seconds(),
	})
}

// handleReport takes POST /v1/report and answers with a Control.
func (c *Coordinator) handleReport(w http.ResponseWriter, r *http.Request) {
	if !c.authorized(w, r) {
		return
	}
	var rep Report
	if err := json.NewDecoder(io.LimitReader(r.Body, maxBody)).Decode(&rep); err != nil {
		http.Error(w, "bad report: "+err.Error(), http.StatusBadRequest)
		return
	}
	if !c.knownAgent(w, rep.Index) {
		return
	}
	ctl := c.take(rep.Index, rep)
	writeJSON(w, ctl)
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

// take records an agent's report and says what it must do.
func (c *Coordinator) take(i int, rep Report) Control {
	c.mu.Lock()
	defer c.mu.Unlock()
	a := c.agents[i]
	a.lastSeen = time.Now()
	if a.lost != "" {
		return Control{Have: len(a.rows), Stop: true}
	}
	if rep.Error != "" {
		a.lost = "failed: " + rep.Error
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
	// Seconds overlapping what is held are skipped; a gap (a lost report)
	// is refused, and Have makes the agent send from the right index.
	if rep.From >= 0 && rep.From <= len(a.rows) {
		for k, s := range rep.Seconds {
			if rep.From+k == len(a.rows) && s.Index == len(a.rows) {
				a.rows = append(a.rows, s)
			}
		}
	}
	if rep.Cohorts != nil && rep.CohortsFrom >= 0 && rep.CohortsFrom <= len(a.cohorts) {
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
