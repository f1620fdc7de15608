package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trigger-test/trigger/examples/specimen/specimen"
	"github.com/trigger-test/trigger/runner/report"
)

// A run with a notify block posts its outcome to a loopback webhook once
// it has ended: when the message arrives, result.json and report.html are
// already written (nothing of the run waited for the post); the message
// names the verdict, the gate and the report; the webhook's URL, a secret,
// is in none of the run's files and none of its log lines.
func TestE2ENotifyPostsTheOutcome(t *testing.T) {
	skipShort(t)
	type received struct {
		text         string
		fields       int
		resultExists bool
	}
	got := make(chan received, 4)
	var outDir string
	var mu sync.Mutex
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var msg struct {
			Text   string
			Blocks []struct{ Fields []json.RawMessage }
		}
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &msg)
		rec := received{text: msg.Text}
		for _, bl := range msg.Blocks {
			rec.fields += len(bl.Fields)
		}
		mu.Lock()
		_, err := os.Stat(filepath.Join(outDir, report.ResultFile))
		_, err2 := os.Stat(filepath.Join(outDir, report.HTMLFile))
		mu.Unlock()
		rec.resultExists = err == nil && err2 == nil
		got <- rec
		io.WriteString(w, "ok")
	}))
	defer hook.Close()
	secretPath := "/services/T0/B0/s3cr3t-hook-path"

	sp, err := specimen.StartLoopback(context.Background(), specimen.Config{Pods: 2, PodRate: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sp.Stop() }()
	e := e2eScenario{url: sp.URL, capacity: 200, baseline: 50, k: 5, retries: 2, spike: "3s", observe: "12s",
		// A variable not marked sensitive: the webhook is a secret all the same.
		extra: fmt.Sprintf("variable \"hook\" {\n  default = %q\n}\nnotify {\n  webhook = var.hook\n  timeout = \"5s\"\n}\n", hook.URL+secretPath)}
	var logs []string
	var logMu sync.Mutex
	mu.Lock()
	outDir = t.TempDir()
	mu.Unlock()
	res, err := runLogged(t, context.Background(), Options{Test: testOf(t, e.parse(t)), OutDir: outDir, QueryWarmup: 1500 * time.Millisecond,
		Logf: func(format string, a ...any) {
			logMu.Lock()
			defer logMu.Unlock()
			logs = append(logs, fmt.Sprintf(format, a...))
		}, Consent: consentAll})
	if res == nil {
		t.Fatalf("run: %v", err)
	}
	select {
	case rec := <-got:
		if !rec.resultExists {
			t.Errorf("the webhook was posted before result.json and report.html were written")
		}
		for _, want := range []string{string(res.Document.Verdict), "gate", filepath.Join(outDir, report.HTMLFile)} {
			if !strings.Contains(rec.text, want) {
				t.Errorf("message %q has no %q", rec.text, want)
			}
		}
		if rec.fields < 4 {
			t.Errorf("%d fields in the message", rec.fields)
		}
	default:
		t.Fatal("the webhook received nothing")
	}
	if len(got) != 0 {
		t.Errorf("posted more than once")
	}
	logMu.Lock()
	joined := strings.Join(logs, "\n")
	logMu.Unlock()
	if !strings.Contains(joined, "notify: posted to the webhook") {
		t.Errorf("no notify line in the log:\n%s", joined)
	}
	if strings.Contains(joined, secretPath) {
		t.Errorf("the webhook's URL is in the log")
	}
	files, _ := filepath.Glob(filepath.Join(outDir, "*"))
	for _, f := range files {
		if fi, err := os.Stat(f); err != nil || fi.IsDir() {
			continue
		}
		if b, _ := os.ReadFile(f); strings.Contains(string(b), secretPath) {
			t.Errorf("the webhook's URL is in %s", filepath.Base(f))
		}
	}
}
