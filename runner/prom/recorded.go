package prom

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// MaxRecordedBytes bounds the recorded data OpenRecorded copies, in
// bytes: a run's TSDB is a few MB a minute; a folder larger than this is
// refused rather than copied.
const MaxRecordedBytes = 4 << 30

// OpenRecorded serves the data a previous Embedded left in dir (a run's
// folder + "/prometheus"), with no scraping, on listen (a loopback
// address; "" = DefaultListen, a free port), with the same token, Host
// check and cost bounds as during the run: `trigger prometheus` serves a
// recorded run through it. It opens a private copy of dir, made in a new
// temporary folder (mode 0700) and removed by Close, so nothing is ever
// written into dir: opening a TSDB replays and repairs its WAL, starts a
// new segment and may compact, all of which happen in the copy. dir may
// hold only folders and regular files (no symbolic links, pipes or
// devices), at most MaxRecordedBytes in all; its lock file, if a run left
// one, is not copied.
func OpenRecorded(ctx context.Context, dir, listen string) (*Embedded, error) {
	if fi, err := os.Stat(filepath.Join(dir, "wal")); err != nil || !fi.IsDir() {
		if err == nil {
			err = errors.New("wal is not a folder")
		}
		return nil, fmt.Errorf("prom: %s holds no recorded Prometheus data: %w", dir, err)
	}
	cfg, err := EmbeddedConfig{Dir: dir, Listen: listen}.withDefaults()
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "trigger-prometheus-*")
	if err != nil {
		return nil, fmt.Errorf("prom: a folder for the copy of %s: %w", dir, err)
	}
	copyDir := filepath.Join(tmp, "prometheus")
	if err := copyTree(dir, copyDir, MaxRecordedBytes); err != nil {
		return nil, errors.Join(fmt.Errorf("prom: copy %s: %w", dir, err), os.RemoveAll(tmp))
	}
	cfg.Dir = copyDir
	e, err := start(ctx, cfg)
	if err != nil {
		return nil, errors.Join(err, os.RemoveAll(tmp))
	}
	e.tempDir = tmp
	return e, nil
}

// copyTree copies the folders and regular files under src into dst (which
// must not exist), at most limit bytes in all; a symbolic link or any
// other kind of file is an error. The top folder's TSDB lock file is left
// out.
func copyTree(src, dst string, limit int64) error {
	var total int64
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.Mkdir(to, 0o700)
		case !d.Type().IsRegular():
			return fmt.Errorf("%s is not a regular file (%s): refused", path, d.Type())
		case rel == "lock":
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if total += fi.Size(); total > limit {
			return fmt.Errorf("more than %d bytes of data: refused", limit)
		}
		return copyFile(path, to, fi.Size())
	})
}

// copyFile copies the first size bytes of the regular file src (a file
// still growing is cut there) into the new file dst, mode 0600.
func copyFile(src, dst string, size int64) error {
	in, err := openNoBlock(src)
	if err != nil {
		return err
	}
	defer in.Close()
	// Checked again on the open file: it may have been replaced.
	if fi, err := in.Stat(); err != nil {
		return err
	} else if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file (%s): refused", src, fi.Mode().Type())
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, io.LimitReader(in, size)); err != nil {
		return errors.Join(err, out.Close())
	}
	return out.Close()
}
