package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/trigger-test/trigger/runner/prom"
)

func newPrometheusCommand(stdout io.Writer) *cobra.Command {
	var listen string
	cmd := &cobra.Command{
		Use:   "prometheus [--listen ADDR] RUN_DIR",
		Short: "Serve a recorded run's embedded Prometheus data, for Grafana",
		Long: `prometheus opens the data a run's embedded Prometheus left in its folder
(RUN_DIR/prometheus) and serves it through Prometheus' HTTP query API on a
loopback address until interrupted, scraping nothing: point Grafana at it
(examples/grafana/trigger-dashboard.json, job "trigger" and "service") or
query it with promtool. It takes the data's lock: not while the run is on.

Exit codes: 0 stopped by an interrupt; 2 no recorded data in RUN_DIR, or
ADDR not a loopback address; 4 the data cannot be opened.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := prom.CheckListen(listen); err != nil {
				return &ExitError{Code: ExitUsage, Err: err}
			}
			dir := filepath.Join(args[0], "prometheus")
			if _, err := os.Stat(filepath.Join(dir, "wal")); err != nil {
				return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s holds no embedded Prometheus data (was the run's prometheus block address = \"embedded\"?)", args[0])}
			}
			db, err := prom.OpenEmbedded(cmd.Context(), dir, listen)
			if err != nil {
				return &ExitError{Code: ExitHarness, Err: err}
			}
			defer db.Close()
			fmt.Fprintf(stdout, "serving %s on %s (Prometheus HTTP API); Ctrl-C stops\n", dir, db.URL())
			<-cmd.Context().Done()
			return nil
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:9090", "the loopback address to serve on")
	return cmd
}
