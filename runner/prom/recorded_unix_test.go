//go:build unix

package prom

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A recorded folder holding a symbolic link or a named pipe is refused,
// at once (the pipe is not opened), and no copy is left behind.
func TestOpenRecordedRefusesOddFiles(t *testing.T) {
	for name, plant := range map[string]func(dir string) error{
		"symlink": func(dir string) error { return os.Symlink("/etc/passwd", filepath.Join(dir, "wal", "00000099")) },
		"fifo":    func(dir string) error { return syscall.Mkfifo(filepath.Join(dir, "wal", "00000099"), 0o600) },
	} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "prometheus")
			if err := os.MkdirAll(filepath.Join(dir, "wal"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := plant(dir); err != nil {
				t.Fatal(err)
			}
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			_, err := OpenRecorded(context.Background(), dir, "")
			if err == nil || !strings.Contains(err.Error(), "refused") {
				t.Fatalf("err = %v, want refused", err)
			}
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("left in the temporary folder: %v", left)
			}
		})
	}
}
