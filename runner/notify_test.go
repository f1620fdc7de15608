package runner

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/runner/report"
)

// notifyDoc is a recorded trapped run's document.
func notifyDoc(t *testing.T) analysis.Document {
	t.Helper()
	d, err := report.ReadResult("report/testdata/trapped/result.json")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// What becomes of a post: answered 2xx, answered 500, redirected (not
// followed: the redirect's target never hears of it), hanging past the
// timeout, and cut short by a second interrupt. Only the first posts.
func TestNotifyOutcomes(t *testing.T) {
	doc := notifyDoc(t)
	var got struct {
		Text   string
		Blocks []json.RawMessage
	}
	var mu sync.Mutex // the handlers' goroutines write what the test reads
	var contentType string
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		contentType = r.Header.Get("Content-Type")
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &got)
		io.WriteString(w, "ok")
	}))
	defer ok.Close()
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "invalid_token", http.StatusForbidden)
	}))
	defer failing.Close()
	elsewhere := 0
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		elsewhere++
		mu.Unlock()
	}))
	defer target.Close()
	redirect := httptest.NewServer(http.RedirectHandler(target.URL, http.StatusTemporaryRedirect))
	defer redirect.Close()
	release := make(chan struct{})
	hanging := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer hanging.Close()
	defer close(release)

	closed := make(chan struct{})
	close(closed)
	for _, tc := range []struct {
		name, url string
		hurry     <-chan struct{}
		want      string
	}{
		{"ok", ok.URL + "/services/T0/B0/secret", nil, "notify: posted to the webhook (200 OK"},
		{"refused", failing.URL, nil, "the webhook answered 403 Forbidden; the run's outcome stands"},
		{"redirect", redirect.URL, nil, "redirect, which is not followed"},
		{"hanging", hanging.URL, nil, "did not answer within 300ms"},
		{"hurried", hanging.URL, closed, "the post failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := notify(&convert.Notify{Webhook: tc.url, Timeout: 300 * time.Millisecond}, doc, "out/trapped", nil, tc.hurry)
			if !strings.Contains(msg, tc.want) {
				t.Errorf("%s; want %q", msg, tc.want)
			}
		})
	}
	mu.Lock()
	defer mu.Unlock()
	if contentType != "application/json" || !strings.Contains(got.Text, "trapped") || len(got.Blocks) < 3 {
		t.Errorf("posted %s: %+v", contentType, got)
	}
	if elsewhere != 0 {
		t.Errorf("the redirect was followed")
	}
}
