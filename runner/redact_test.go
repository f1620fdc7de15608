package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/trigger-test/trigger/scenarios"
)

// A sensitive variable's value, used in the target URL and a header, never
// appears in what the run writes or says: result.json, the reports, the
// logs, the error (here one that quotes the URL: the target is down).
func TestSensitiveValuesNeverLeaveTheRun(t *testing.T) {
	const secret = "tok-7f3a9c21"
	port := freePort(t) // nobody listens: the warmup fails, quoting the URL
	s, err := scenarios.Load(filepath.Join("testdata", "secret.hcl"), map[string]string{"token": secret, "port": strconv.Itoa(port)})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var logs strings.Builder
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(&logs, format+"\n", args...)
	}
	dir := filepath.Join(t.TempDir(), "run")
	res, err := Run(context.Background(), Options{Test: testOf(t, s), OutDir: dir, Logf: logf, Consent: consentAll})
	if err == nil || res == nil {
		t.Fatalf("err = %v, want the warmup to fail against a closed port", err)
	}
	if !strings.Contains(err.Error(), "key="+scenarios.SensitiveValue) {
		t.Errorf("the error does not quote the URL, redacted: %v", err)
	}
	said := map[string]string{"error": err.Error(), "logs": logs.String()}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		said[e.Name()] = string(b)
	}
	if _, ok := said[ResultFile]; !ok {
		t.Fatal("no result.json")
	}
	for where, text := range said {
		if strings.Contains(text, secret) {
			t.Errorf("%s holds the sensitive value", where)
		}
	}
}
