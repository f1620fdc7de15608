package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// LockFile is the file, in a run's or a campaign's folder, on which the
// run holds an exclusive advisory lock (flock) for its whole life: a
// second run into the folder, --overwrite included, is refused while the
// lock is held, instead of deleting the files of a run still in progress.
// The file stays after the run (it holds the process id of the last one
// that held it); the kernel releases the lock when the process ends,
// however it ends.
const LockFile = ".lock"

// ErrOutLocked: the output folder is in use by a run still in progress.
var ErrOutLocked = errors.New("the output folder is in use by a run still in progress")

// DirLock is the lock a run holds on its folder; Unlock releases it.
type DirLock struct {
	f *os.File
}

// LockDir creates dir if needed and takes the exclusive lock on
// dir/LockFile without waiting: a folder whose lock another process (or
// another run of this one) holds is refused with ErrOutLocked, naming the
// holder's process id when known. Nothing in dir is changed then.
func LockDir(dir string) (*DirLock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	held, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if !held {
		holder := ""
		if b, err := os.ReadFile(path); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
				holder = fmt.Sprintf(" (process %d)", pid)
			}
		}
		f.Close()
		return nil, fmt.Errorf("%w: %s is locked by another run%s; wait for it to end, or choose another --out (--overwrite never replaces a run in progress)", ErrOutLocked, dir, holder)
	}
	// The holder's process id, for the message of a run refused.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &DirLock{f: f}, nil
}

// Unlock releases the lock; a nil *DirLock is a no-op.
func (l *DirLock) Unlock() {
	if l == nil || l.f == nil {
		return
	}
	unlock(l.f)
	l.f.Close()
	l.f = nil
}
