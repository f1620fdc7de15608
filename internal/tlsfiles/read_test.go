package tlsfiles

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// ReadFile refuses what is not a small regular file at once, unread:
// ca_file = "/dev/zero" ran a run out of memory, a FIFO nobody writes to
// held it past SIGTERM.
func TestReadFileIsBounded(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no /dev/zero or FIFOs")
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.pem")
	if err := os.WriteFile(big, make([]byte, MaxFileBytes+1), 0o600); err != nil {
		t.Fatal(err)
	}
	small := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(small, []byte("pem"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{"/dev/zero", "character device"},
		{fifo, "named pipe"},
		{dir, "folder"},
		{big, "1 MiB"},
	} {
		if _, err := ReadFile(tc.path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadFile(%s) = %v; want an error naming %q", tc.path, err, tc.want)
		}
	}
	if b, err := ReadFile(small); err != nil || string(b) != "pem" {
		t.Errorf("ReadFile(a small file) = %q, %v", b, err)
	}
	// Load goes through ReadFile for every file it reads.
	if _, err := (Files{CAFile: "/dev/zero"}).Load(); err == nil || !strings.Contains(err.Error(), "character device") {
		t.Errorf("Load with ca_file /dev/zero = %v", err)
	}
	if _, err := (Files{CertFile: fifo, KeyFile: fifo}).Load(); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("Load with a FIFO = %v", err)
	}
}
