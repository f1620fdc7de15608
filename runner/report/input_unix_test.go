//go:build unix

package report

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A FIFO or a link to a device in place of a run's file is refused at
// once: a FIFO used to block `trigger report` forever, and /dev/zero to
// run it out of memory.
func TestRenderDirRefusesSpecialFiles(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		make       func(path string) error
		want       string
	}{
		{"result.json is a FIFO", ResultFile, func(p string) error { return syscall.Mkfifo(p, 0o644) }, "not a regular file (a named pipe)"},
		{"timeline.csv is a FIFO", TimelineFile, func(p string) error { return syscall.Mkfifo(p, 0o644) }, "not a regular file (a named pipe)"},
		{"result.json links to /dev/zero", ResultFile, func(p string) error { return os.Symlink("/dev/zero", p) }, "not a regular file (a character device)"},
		{"timeline.csv links to /dev/zero", TimelineFile, func(p string) error { return os.Symlink("/dev/zero", p) }, "not a regular file (a character device)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := os.Stat("/dev/zero"); err != nil {
				t.Skip(err)
			}
			dir := copyFixture(t, "recovered")
			path := filepath.Join(dir, tc.file)
			os.Remove(path)
			if err := tc.make(path); err != nil {
				t.Skip(err)
			}
			wantInputError(t, renderBounded(t, dir), tc.want)
		})
	}
}

// openInput opens with O_NONBLOCK and checks the open file again: a FIFO
// that takes a file's place after the Stat is refused, not waited on.
func TestOpenInputRechecksAfterOpen(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip(err)
	}
	f, err := openNoBlock(p) // what openInput does after its Stat
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	wantInputError(t, checkInput(fi, "pipe", 1<<20), "named pipe")
}
