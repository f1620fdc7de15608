package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/trigger-test/trigger/fleet"
)

// maxKeyFile bounds the agent's --key-file, bytes (a key is 64 hex digits).
const maxKeyFile = 4096

// newAgentCommand is `trigger agent`: one shard of a run's load, on behalf
// of a coordinator (trigger run --workers N). It is started by an engine,
// not by hand.
func newAgentCommand(stderr io.Writer) *cobra.Command {
	var coordinator, keyFile, cert string
	var index int
	cmd := &cobra.Command{
		Use:   "agent --coordinator https://HOST:PORT --index I",
		Short: "Run one agent's share of a spread run's load (started by trigger run --workers)",
		Long: `agent runs one share of a run spread over several agents: it reads the
scenario, its share and the start instant from the coordinator at --coordinator
(https://: the coordinator's certificate must have the SHA-256 fingerprint in
--cert-sha256 or ` + fleet.CertEnv + `, and every request is signed with the
agent's key, from ` + fleet.KeyEnv + ` or --key-file), checks the scenario's
allow_hosts itself, drives its share of the load from the common start and
reports its seconds back four times a second. It stops by itself at the
coordinator's stop, at max_duration, and when it has heard nothing from the
coordinator for 3 s.

Exit codes: 0 done, 2 usage, 4 the coordinator was lost or the agent could not run.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			usage := func(err error) error { return &ExitError{Code: ExitUsage, Err: err} }
			key := os.Getenv(fleet.KeyEnv)
			if keyFile != "" {
				b, err := readKeyFile(keyFile)
				if err != nil {
					return usage(err)
				}
				key = b
			}
			if cert == "" {
				cert = os.Getenv(fleet.CertEnv)
			}
			if coordinator == "" || index < 0 || key == "" || cert == "" {
				return usage(fmt.Errorf("agent needs --coordinator, --index ≥ 0, its key (%s or --key-file) and the coordinator's certificate fingerprint (%s or --cert-sha256)", fleet.KeyEnv, fleet.CertEnv))
			}
			err := fleet.RunAgent(cmd.Context(), fleet.AgentConfig{
				Coordinator: coordinator, Index: index, Key: key, CertSHA256: cert,
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
	cmd.Flags().StringVar(&coordinator, "coordinator", "", "the coordinator's base URL, https://")
	cmd.Flags().IntVar(&index, "index", -1, "this agent's index, 0 to N−1")
	cmd.Flags().StringVar(&keyFile, "key-file", "", "a file holding this agent's key (default: the environment variable "+fleet.KeyEnv+")")
	cmd.Flags().StringVar(&cert, "cert-sha256", "", "the SHA-256 fingerprint of the coordinator's certificate, hex (default: the environment variable "+fleet.CertEnv+")")
	return cmd
}

// readKeyFile reads an agent's key: a regular file of at most maxKeyFile
// bytes.
func readKeyFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("--key-file: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("--key-file %s: not a regular file", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		return "", fmt.Errorf("--key-file: %w", err)
	}
	if len(b) > maxKeyFile {
		return "", fmt.Errorf("--key-file %s: larger than %d bytes", path, maxKeyFile)
	}
	return strings.TrimSpace(string(b)), nil
}
