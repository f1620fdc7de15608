package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/trigger-test/trigger/runner/report"
)

// runFiles are the files a run writes in its folder.
var runFiles = []string{
	report.ResultFile, report.TimelineFile, report.HTMLFile, report.MarkdownFile,
	report.JUnitFile, report.SVGFile, report.PNGFile, report.ScenarioFile, report.CompareHTMLFile,
}

// promDataDir is the embedded Prometheus' data under the run's folder.
const promDataDir = "prometheus"

// ManifestFile lists, in a run's folder, what the run wrote there: the
// only names --overwrite may remove.
const ManifestFile = ".trigger-run.json"

// manifest is the content of ManifestFile.
type manifest struct {
	// Wrote are the names, in the folder, of what the run created.
	Wrote []string `json:"wrote"`
}

// prepareOutDir creates the run's folder, takes its lock (LockDir: a
// folder a run still in progress holds is refused, ErrOutLocked, whatever
// overwrite says, and nothing in it is touched) and writes its manifest:
// the names the run will write, the embedded Prometheus' folder among them
// when embedded. A folder that already holds anything is refused (a run
// never overwrites a run, and an embedded TSDB left there would answer the
// new run's queries with the old run's data) unless overwrite, which
// removes what the previous run's manifest says it wrote, and refuses a
// folder holding anything else. A folder without a manifest (written
// before there was one) gives up only a run's files, never a folder: a
// prometheus/ folder there may be a user's configuration and data.
// The caller holds the returned lock for the run's life.
func prepareOutDir(dir string, overwrite, embedded bool) (*DirLock, error) {
	lock, err := LockDir(dir)
	if err != nil {
		return nil, err
	}
	if err := prepareLocked(dir, overwrite, embedded); err != nil {
		lock.Unlock()
		return nil, err
	}
	return lock, nil
}

// prepareLocked is prepareOutDir once dir exists and its lock is held.
func prepareLocked(dir string, overwrite, embedded bool) error {
	entries, err := readDirUnlocked(dir)
	switch {
	case err != nil:
		return err
	case len(entries) == 0:
	case !overwrite:
		return fmt.Errorf("%w: %s holds %d entries (a previous run?); choose another --out, or pass --overwrite to replace that run", ErrOutExists, dir, len(entries))
	default:
		if err := removePreviousRun(dir, entries); err != nil {
			return err
		}
	}
	m := manifest{Wrote: slices.Clone(runFiles)}
	if embedded {
		m.Wrote = append(m.Wrote, promDataDir)
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ManifestFile), append(b, '\n'), 0o644)
}

// readDirUnlocked is dir's entries but its LockFile, which a run holds
// and never removes.
func readDirUnlocked(dir string) ([]os.DirEntry, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(entries, func(e os.DirEntry) bool { return e.Name() == LockFile }), nil
}

// removePreviousRun removes the previous run in dir: what its manifest
// lists, or without one the files a run writes; anything else in dir is
// refused, and nothing is removed then.
func removePreviousRun(dir string, entries []os.DirEntry) error {
	ours := map[string]bool{ManifestFile: true}
	var m manifest
	b, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	switch {
	case err == nil:
		if err := json.Unmarshal(b, &m); err != nil {
			return fmt.Errorf("%w: %s: its %s cannot be read (%v); remove the folder by hand", ErrOutExists, dir, ManifestFile, err)
		}
		for _, name := range m.Wrote {
			if name == filepath.Base(name) && name != "." && name != ".." {
				ours[name] = true
			}
		}
	case errors.Is(err, fs.ErrNotExist):
		for _, name := range runFiles {
			ours[name] = true
		}
	default:
		return err
	}
	for _, e := range entries {
		switch {
		case !ours[e.Name()]:
			why := "which no run writes"
			if e.Name() == promDataDir {
				why = "which no manifest of a run says it wrote (a Prometheus of yours?)"
			}
			return fmt.Errorf("%w: %s holds %s, %s; --overwrite replaces a previous run only", ErrOutExists, dir, e.Name(), why)
		case e.IsDir() && m.Wrote == nil:
			return fmt.Errorf("%w: %s holds the folder %s and no %s says a run wrote it; --overwrite replaces a previous run only", ErrOutExists, dir, e.Name(), ManifestFile)
		}
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}
