//go:build unix

package scenarios

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A FIFO nobody writes to is an error within the wait for a writer (1 s
// here, 30 s in a run), not a read that never ends; one written to, even
// a moment after the read began, is read whole, and
// its bytes are kept for whoever needs them again (a fleet's agents).
func TestLoadFromAFIFO(t *testing.T) {
	defer func(d time.Duration) { pipeReadTimeout = d }(pipeReadTimeout)
	pipeReadTimeout = time.Second
	dir := t.TempDir()
	fifo := filepath.Join(dir, "s.hcl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
	done := make(chan error, 1)
	go func() { _, err := Load(fifo, nil); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "FIFO") {
			t.Errorf("a FIFO without a writer: %v, want an error naming the FIFO", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Load of a FIFO without a writer did not return within 10 s")
	}
	src, err := os.ReadFile("recovers.hcl")
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(200 * time.Millisecond)
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		_, _ = w.Write(src)
	}()
	s, err := Load(fifo, nil)
	if err != nil {
		t.Fatalf("a FIFO with a writer: %v", err)
	}
	if string(s.Source) != string(src) || s.Name == "" {
		t.Errorf("read %d bytes (%q), want the scenario's %d", len(s.Source), s.Name, len(src))
	}
}
