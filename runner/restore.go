package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/trigger-test/trigger/internal/safetext"

	"github.com/trigger-test/trigger/vocab"
)

// `trigger restore OUT_DIR` runs a pending fault's stop command, and only
// one that a run on this machine registered (docs/safety.md, "Running a
// scenario you did not write"): a run's folder can come from anywhere (a
// pull request, an archive), so its journal alone is no reason to run
// anything. The command run is the registry entry's copy, from the folder
// it names (the scenario's, never "/"), and the command line shows both
// and asks before it runs (PendingStop, then Run).

// ErrNotRegistered: the journal in a folder is not one the local
// pending-fault registry names; restore runs nothing (exit 2).
var ErrNotRegistered = errors.New("the local pending-fault registry does not name this journal")

// PendingStop is the stop command `trigger restore` would run: what the
// local registry holds for the journal of a run's folder.
type PendingStop struct {
	// Fault and Target name the fault and what it is done to.
	Fault, Target string
	// Journal is the journal's absolute path.
	Journal string
	// Stop is the argv run, without a shell, from Dir.
	Stop []string
	Dir  string
	// Timeout bounds the command.
	Timeout time.Duration
	// Env names the environment variables the command is given, taken
	// from restore's own environment (their values were never written);
	// SecretEnv those whose values are redacted from fault.log.
	Env, SecretEnv []string
	// Done is set when the journal says the fault was put back: there is
	// nothing to run.
	Done bool

	outDir, stateDir string
	journal          FaultJournal
}

// FindPendingStop reads the fault journal in outDir and the entry of the
// registry in stateDir that names it. A journal that says restored is
// Done (nothing to run). A pending or failed journal that the registry
// does not name (by its absolute path), whose stop command differs from
// the registry's, or whose folder is not an absolute directory other than
// "/" is refused with ErrNotRegistered or a plain error: nothing is run.
func FindPendingStop(outDir, stateDir string) (*PendingStop, error) {
	path, err := filepath.Abs(filepath.Join(outDir, FaultJournalFile))
	if err != nil {
		return nil, err
	}
	j, err := readJournal(path)
	if err != nil {
		return nil, fmt.Errorf("no fault journal in %s: %w", outDir, err)
	}
	p := &PendingStop{Fault: j.Fault, Target: j.Target, Journal: path, outDir: outDir, stateDir: stateDir, journal: j}
	e, registered := registryEntry(stateDir, j.Target, path)
	if j.State == faultRestored {
		if registered {
			_ = os.Remove(registryPath(stateDir, j.Target))
		}
		p.Done = true
		return p, nil
	}
	if !registered {
		return nil, fmt.Errorf("%w (%s, in %s): restore runs only the stop of a fault a run on this machine started; "+
			"if the journal's command is what you mean to run, run it by hand", ErrNotRegistered, path, filepath.Join(stateDir, "pending-faults"))
	}
	// Only the registry's copy of the command runs: an entry without one
	// (written before the registry kept it) would leave the choice to the
	// journal, which anyone who can write the run's folder can rewrite.
	if len(e.Stop) == 0 {
		return nil, fmt.Errorf("%w: the registry's entry for %s holds no stop command (an older trigger wrote it); "+
			"if the journal's command is what you mean to run, run it by hand", ErrNotRegistered, path)
	}
	p.Stop, p.Dir, p.Timeout, p.Env, p.SecretEnv = e.Stop, e.Dir, faultTimeout(e.TimeoutS), e.Env, e.SecretEnv
	if !slices.Equal(e.Stop, j.Stop) || e.Dir != j.Dir || !slices.Equal(e.Env, j.Env) {
		return nil, fmt.Errorf("%w: the journal's stop command or folder differs from the one registered when the run started (%s was changed)", ErrNotRegistered, path)
	}
	if len(p.Stop) == 0 || p.Stop[0] == "" {
		return nil, fmt.Errorf("%s: no stop command", path)
	}
	if !filepath.IsAbs(p.Dir) || filepath.Clean(p.Dir) == "/" {
		return nil, fmt.Errorf("%s: the stop command's folder %q is not a scenario's folder (an absolute path other than /)", path, p.Dir)
	}
	if fi, err := os.Stat(p.Dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%s: the stop command's folder %s is not there", path, p.Dir)
	}
	return p, nil
}

// faultTimeout is a recorded stop command's timeout, seconds, as a
// duration: vocab.DefaultFaultTimeout when it is not in (0, 1 h], as a
// journal or a registry entry from elsewhere may say.
func faultTimeout(seconds float64) time.Duration {
	d := time.Duration(seconds * float64(time.Second))
	if !(seconds > 0) || d <= 0 || d > time.Hour {
		return vocab.DefaultFaultTimeout
	}
	return d
}

// registryEntry is the registry's entry for target when it names the
// journal at path (compared as absolute paths, symbolic links resolved).
func registryEntry(stateDir, target, path string) (pendingEntry, bool) {
	var e pendingEntry
	b, err := readSmall(registryPath(stateDir, target))
	if err != nil || json.Unmarshal(b, &e) != nil || e.Journal == "" {
		return e, false
	}
	if filepath.Clean(e.Journal) == filepath.Clean(path) {
		return e, true
	}
	a, errA := filepath.EvalSymlinks(e.Journal)
	b2, errB := filepath.EvalSymlinks(path)
	return e, errA == nil && errB == nil && a == b2
}

// MissingEnv are the names in Env that lookup (os.LookupEnv) does not
// have: the command cannot be given them.
func (p *PendingStop) MissingEnv(lookup func(string) (string, bool)) []string {
	var out []string
	for _, k := range p.Env {
		if _, ok := lookup(k); !ok {
			out = append(out, k)
		}
	}
	return out
}

// ErrMissingEnv: the stop command is to be given environment variables
// restore's environment does not have (exit 2, nothing run).
var ErrMissingEnv = errors.New("the stop command's environment variables are not set")

// Run runs the stop command within its timeout, given the Env variables
// from lookup (os.LookupEnv), its output appended to the folder's
// fault.log with the SecretEnv values redacted, and records the outcome
// in the journal; on success it removes the registry entry. A Done stop
// runs nothing; one whose Env lookup lacks runs nothing either
// (ErrMissingEnv).
func (p *PendingStop) Run(lookup func(string) (string, bool), logf func(string, ...any)) error {
	if p.Done {
		return nil
	}
	if missing := p.MissingEnv(lookup); len(missing) > 0 {
		return fmt.Errorf("%w: %s; set them as the run had them and run restore again", ErrMissingEnv, strings.Join(missing, ", "))
	}
	env := map[string]string{}
	var secrets []string
	for _, k := range p.Env {
		env[k], _ = lookup(k)
		if slices.Contains(p.SecretEnv, k) {
			secrets = append(secrets, env[k])
		}
	}
	j := p.journal
	logf("fault %q: running %s from %s%s", p.Fault, safetext.Argv(p.Stop), p.Dir, envNote(env))
	c := command{Argv: p.Stop, Dir: p.Dir, Env: env, Timeout: p.Timeout}
	err := runCommand(c, filepath.Join(p.outDir, faultLogFile), "stop (trigger restore)", newRedactor(secrets))
	j.StoppedAt = time.Now().UTC()
	j.State, j.Error = faultRestored, ""
	if err != nil {
		j.State, j.Error = faultFailed, err.Error()
	}
	if werr := writeJSONAtomic(p.Journal, j); werr != nil && err == nil {
		err = werr
	}
	if err != nil {
		return fmt.Errorf("%w: fault %q: the stop command failed (%v); run it by hand, from %s: %q", ErrFaultNotRestored, p.Fault, err, p.Dir, p.Stop)
	}
	_ = os.Remove(registryPath(p.stateDir, p.Target))
	return nil
}

// Restore runs the pending stop of the fault journal in outDir without
// asking (FindPendingStop, then Run): ran is false when the journal says
// the fault was put back.
func Restore(outDir, stateDir string, logf func(string, ...any)) (ran bool, err error) {
	p, err := FindPendingStop(outDir, stateDir)
	if err != nil {
		return false, err
	}
	if p.Done {
		return false, nil
	}
	return true, p.Run(os.LookupEnv, logf)
}
