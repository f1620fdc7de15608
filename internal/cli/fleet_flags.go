package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/trigger-test/trigger/fleet"
	"github.com/trigger-test/trigger/runner"
	"github.com/trigger-test/trigger/scenarios"
)

// fleetFlags are run's flags for spreading the load over agents.
type fleetFlags struct {
	workers           int
	engine            string
	listen, advertise string
}

func (f *fleetFlags) register(cmd *cobra.Command) {
	cmd.Flags().IntVar(&f.workers, "workers", 0, "spread the load over N agents started together (0: this process drives it); one driver holds about 16,000 attempts/s")
	cmd.Flags().StringVar(&f.engine, "engine", "local", "how the agents are started: local (processes of this binary on this machine) or kubernetes")
	cmd.Flags().StringVar(&f.listen, "listen", "", "the coordinator's listening address for the agents (default 127.0.0.1:0)")
	cmd.Flags().StringVar(&f.advertise, "advertise", "", "the base URL agents dial to reach the coordinator (default http:// and the listening address)")
}

// options are the runner's fleet options, nil without --workers; the
// scenario's source is read again so each agent reads it as the run did.
func (f *fleetFlags) options(path string, rawVars []string, metricsAddr string) (*runner.FleetOptions, error) {
	if f.workers == 0 {
		return nil, nil
	}
	usage := func(err error) error { return &ExitError{Code: ExitUsage, Err: err} }
	if f.workers < 0 {
		return nil, usage(fmt.Errorf("--workers %d: want 1 or more", f.workers))
	}
	if metricsAddr != "" {
		return nil, usage(errors.New("--metrics-addr serves one driver's metrics; with --workers the agents' are not served"))
	}
	eng, err := fleet.NewEngine(f.engine)
	if err != nil {
		return nil, usage(fmt.Errorf("--engine: %w", err))
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, usage(err)
	}
	vars := map[string]string{}
	for _, v := range rawVars {
		name, value, err := scenarios.ParseVar(v)
		if err != nil {
			return nil, usage(err)
		}
		vars[name] = value
	}
	return &runner.FleetOptions{Engine: eng, Agents: f.workers, File: filepath.Base(path), Source: src, Vars: vars,
		Listen: f.listen, Advertise: f.advertise}, nil
}
