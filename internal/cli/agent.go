package cli

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/trigger-test/trigger/fleet"
)

// newAgentCommand is `trigger agent`: one shard of a run's load, on behalf
// of a coordinator (trigger run --workers N). It is started by an engine,
// not by hand.
func newAgentCommand(stderr io.Writer) *cobra.Command {
	var coordinator string
	var index int
	cmd := &cobra.Command{
		Use:   "agent --coordinator URL --index I",
		Short: "Run one agent's share of a spread run's load (started by trigger run --workers)",
		Long: `agent runs one share of a run spread over several agents: it reads the
scenario, its share and the start instant from the coordinator at --coordinator
(presenting the token in the environment variable ` + fleet.TokenEnv + `),
checks the scenario's allow_hosts itself, drives its share of the load from
the common start and reports its seconds back four times a second. It stops by
itself at the coordinator's stop, at max_duration, and when it has heard
nothing from the coordinator for 3 s.

Exit codes: 0 done, 2 usage, 4 the coordinator was lost or the agent could not run.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			token := os.Getenv(fleet.TokenEnv)
			if coordinator == "" || token == "" || index < 0 {
				return &ExitError{Code: ExitUsage, Err: fmt.Errorf("agent needs --coordinator, --index ≥ 0 and %s", fleet.TokenEnv)}
			}
			err := fleet.RunAgent(cmd.Context(), fleet.AgentConfig{
				Coordinator: coordinator, Index: index, Token: token,
				Logf: func(format string, args ...any) {
					fmt.Fprintf(stderr, "agent %d: "+format+"\n", append([]any{index}, args...)...)
				},
			})
			if err != nil && !errors.Is(err, cmd.Context().Err()) {
				return &ExitError{Code: ExitHarness, Err: fmt.Errorf("agent %d: %w", index, err)}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&coordinator, "coordinator", "", "the coordinator's base URL")
	cmd.Flags().IntVar(&index, "index", -1, "this agent's index, 0 to N−1")
	return cmd
}
