package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/trigger-test/trigger/runner/prom"
)

func newPrometheusCommand(stdout io.Writer) *cobra.Command {
	var listen, tokenFile string
	cmd := &cobra.Command{
		Use:   "prometheus [--listen ADDR] [--token-file PATH] RUN_DIR",
		Short: "Serve a recorded run's embedded Prometheus data, for Grafana",
		Long: `prometheus serves the data a run's embedded Prometheus left in its folder
(RUN_DIR/prometheus) through Prometheus' HTTP query API on a loopback
address (default: a free port) until interrupted, scraping nothing: point
Grafana at it (examples/grafana/trigger-dashboard.json, job "trigger" and
"service") or query it with promtool.

It serves a private copy of the data, made in a temporary folder and
removed on exit: nothing is written into RUN_DIR. Every request must carry
the bearer token printed at start (Authorization: Bearer TOKEN; Grafana:
a custom HTTP header), and a Host header naming localhost or a loopback
address; a query over the cost bounds (evaluation steps, step, length,
depth) is refused before evaluation, as during the run.

--token-file PATH writes the token to PATH, mode 0600 (replacing the file),
for a script or Grafana's provisioning; it is removed on exit.

Exit codes: 0 stopped by an interrupt; 2 no recorded data in RUN_DIR, or
ADDR not a loopback address; 4 the data cannot be copied or opened, or the
token file cannot be written.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := prom.CheckListen(listen); err != nil {
				return &ExitError{Code: ExitUsage, Err: err}
			}
			dir := filepath.Join(args[0], "prometheus")
			if _, err := os.Stat(filepath.Join(dir, "wal")); err != nil {
				return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s holds no embedded Prometheus data (was the run's prometheus block address = \"embedded\"?)", args[0])}
			}
			db, err := prom.OpenRecorded(cmd.Context(), dir, listen)
			if err != nil {
				return &ExitError{Code: ExitHarness, Err: err}
			}
			defer db.Close()
			if tokenFile != "" {
				if err := writeSecretFile(tokenFile, db.Token()+"\n"); err != nil {
					return &ExitError{Code: ExitHarness, Err: fmt.Errorf("--token-file: %w", err)}
				}
				defer os.Remove(tokenFile)
			}
			fmt.Fprintf(stdout, "serving a copy of %s at %s (Prometheus HTTP API); Ctrl-C stops\n", dir, db.URL())
			fmt.Fprintf(stdout, "bearer token: %s (send Authorization: Bearer TOKEN)\n", db.Token())
			<-cmd.Context().Done()
			return nil
		},
	}
	cmd.Flags().StringVar(&listen, "listen", prom.DefaultListen, "the loopback address to serve on (port 0: a free one)")
	cmd.Flags().StringVar(&tokenFile, "token-file", "", "also write the bearer token to this file, mode 0600, removed on exit")
	return cmd
}

// writeSecretFile writes text to path with mode 0600, whatever was there
// before: a new file in path's folder, renamed over path (a symbolic link
// at path is replaced, not followed; an existing file's wider mode is not
// kept).
func writeSecretFile(path, text string) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".token-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if err := f.Chmod(0o600); err != nil {
		return errors.Join(err, f.Close(), os.Remove(tmp))
	}
	if _, err := f.WriteString(text); err != nil {
		return errors.Join(err, f.Close(), os.Remove(tmp))
	}
	if err := f.Close(); err != nil {
		return errors.Join(err, os.Remove(tmp))
	}
	if err := os.Rename(tmp, path); err != nil {
		return errors.Join(err, os.Remove(tmp))
	}
	return nil
}
