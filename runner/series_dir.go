package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// SeriesDir is the folder of a series of runs (a campaign, repeated
// trials): what it is called in messages, which of its entries it writes,
// and the prefix of its runs' folders.
type SeriesDir struct {
	What      string                 // "campaign", "series of trials"
	Owns      func(os.DirEntry) bool // an entry the series writes
	RunPrefix string                 // "cell-", "trial-"
}

// Prepare creates dir and takes its lock (LockDir: a folder a series or a
// run still in progress holds is refused, ErrOutLocked, and nothing in it
// touched); one that holds anything is refused unless overwrite, and then
// only a previous series is removed (entries Owns accepts): a folder
// holding anything else is refused whole, and a run folder another
// process still holds too. The caller holds the returned lock for the
// series' life.
func (s SeriesDir) Prepare(dir string, overwrite bool) (*DirLock, error) {
	lock, err := LockDir(dir)
	switch {
	case errors.Is(err, ErrOutLocked):
		return nil, &Error{Kind: KindUsage, Err: err}
	case err != nil:
		return nil, &Error{Kind: KindHarness, Err: err}
	}
	if err := s.prepareLocked(dir, overwrite); err != nil {
		lock.Unlock()
		return nil, err
	}
	return lock, nil
}

// prepareLocked is Prepare once dir exists and its lock is held.
func (s SeriesDir) prepareLocked(dir string, overwrite bool) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return &Error{Kind: KindHarness, Err: err}
	}
	entries = slices.DeleteFunc(entries, func(e os.DirEntry) bool { return e.Name() == LockFile })
	if len(entries) == 0 {
		return nil
	}
	if !overwrite {
		return &Error{Kind: KindUsage, Err: fmt.Errorf("%w: %s holds %d entries (pass --overwrite to replace a previous %s there)", ErrOutExists, dir, len(entries), s.What)}
	}
	for _, e := range entries {
		if !s.Owns(e) {
			return &Error{Kind: KindUsage, Err: fmt.Errorf("%w: %s holds %s, which no %s wrote; nothing was removed", ErrOutExists, dir, e.Name(), s.What)}
		}
	}
	// A run in progress still holds its folder.
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), s.RunPrefix) {
			l, err := LockDir(filepath.Join(dir, e.Name()))
			if err != nil {
				return &Error{Kind: KindUsage, Err: err}
			}
			defer l.Unlock()
		}
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return &Error{Kind: KindHarness, Err: err}
		}
	}
	return nil
}
