package scenarios

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Files a scenario reads (data files, TLS files) come from its own folder
// and from the folders the operator allows (--allow-files), never from
// anywhere else: a scenario a pull request brings could otherwise name
// ~/.aws/credentials, or a link to it, and send its rows to its target
// (docs/safety.md, "Running a scenario you did not write"). A path is
// opened through an os.Root of the folder it lies in, so neither ".."
// nor a symbolic link leads out of it.

// ErrOutsideFolder is a file a scenario names outside its folder and the
// folders the operator allowed.
var ErrOutsideFolder = errors.New("outside the folders a scenario may read")

// errOutsideVia is ErrOutsideFolder for a link that leads out.
var errOutsideVia = fmt.Errorf("that leads %w", ErrOutsideFolder)

// fileAccess confines the files a scenario opens.
type fileAccess struct {
	// given is the scenario's folder as its file name gives it, for
	// messages; dir the same made absolute; allow the operator's
	// folders, absolute and clean.
	given, dir string
	allow      []string
}

// newFileAccess confines reads to dir (the scenario's folder) and allow.
func newFileAccess(dir string, allow []string) fileAccess {
	a := fileAccess{given: dir, dir: absClean(dir)}
	for _, d := range allow {
		if d != "" {
			a.allow = append(a.allow, absClean(d))
		}
	}
	return a
}

func absClean(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return filepath.Clean(p)
}

// path is file as the scenario gives it, relative to the scenario's
// folder as the scenario's own name gives it (what messages show and
// the run opens again).
func (a fileAccess) path(file string) string {
	if filepath.IsAbs(file) {
		return filepath.Clean(file)
	}
	return filepath.Join(a.given, file)
}

// open opens file for reading without waiting for a writer (a FIFO), from
// within the scenario's folder or an allowed one; the error of a file
// outside them wraps ErrOutsideFolder and names the flag that allows it.
func (a fileAccess) open(file string) (*os.File, error) {
	p := file
	if !filepath.IsAbs(p) {
		p = filepath.Join(a.dir, p)
	}
	p = filepath.Clean(p)
	for _, root := range append([]string{a.dir}, a.allow...) {
		rel, ok := within(root, p)
		if !ok {
			continue
		}
		r, err := os.OpenRoot(root)
		if err != nil {
			return nil, err
		}
		f, err := r.OpenFile(rel, os.O_RDONLY|nonBlock, 0)
		r.Close()
		var errno syscall.Errno
		if err != nil && !errors.As(err, &errno) {
			// os.Root refuses a link that leads out of its folder.
			return nil, fmt.Errorf("%s is a link %w (the scenario's folder%s): name the file it leads to, in a folder --allow-files allows", file, errOutsideVia, allowedText(a.allow))
		}
		return f, err
	}
	return nil, fmt.Errorf("%s is %w (the scenario's folder%s); pass --allow-files DIR to let the scenario read from DIR",
		file, ErrOutsideFolder, allowedText(a.allow))
}

// within returns p relative to root when p lies inside root.
func within(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

func allowedText(allow []string) string {
	if len(allow) == 0 {
		return ""
	}
	return " and --allow-files " + strings.Join(allow, ", ")
}
