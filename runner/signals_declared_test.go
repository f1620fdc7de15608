package runner

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/runner/prom"
)

// A remote server whose series do not exist yet and that has no targets
// API says nothing of its scrape interval: the run assumes the scenario's
// scrape_interval, not Prometheus' default of one minute, and says so.
func TestReadSignalsAssumesTheDeclaredInterval(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/targets") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"status":"success","data":{"resultType":"vector","result":[]}}`)
	}))
	defer srv.Close()
	remote, err := prom.NewRemote(prom.RemoteConfig{Address: srv.URL, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	m := &metrics{remote: remote, querier: remote, timeout: 2 * time.Second}
	static := []convert.Signal{
		{Name: "wait", Query: "max(w)", Selectors: []string{"w"}, ScrapeS: 30, ScrapeFrom: convert.RemoteIntervalAssumed},
		{Name: "served", Query: "sum(rate(s[1m]))", Selectors: []string{"s"}},
	}
	var logged []string
	logf := func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }
	if err := m.readSignals(context.Background(), static, logf); err != nil {
		t.Fatal(err)
	}
	if s := m.sigs[0]; s.ScrapeS != 30 || !s.Provisional || !strings.HasPrefix(s.ScrapeFrom, convert.RemoteIntervalAssumed) {
		t.Errorf("declared: %+v; want 30 s, the scenario's, provisional", s)
	}
	if s := m.sigs[1]; s.ScrapeS != defaultRemoteInterval.Seconds() || !s.Provisional {
		t.Errorf("undeclared: %+v; want Prometheus' default", s)
	}
	if len(logged) != 2 || !strings.Contains(logged[0], "scenario's scrape_interval 30s") {
		t.Errorf("logged %q", logged)
	}
}
