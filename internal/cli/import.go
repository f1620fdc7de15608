package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/trigger-test/trigger/importer"
	"github.com/trigger-test/trigger/internal/safetext"
)

func newImportCommand(stdout, stderr io.Writer) *cobra.Command {
	var out, name string
	cmd := &cobra.Command{
		Use:   "import har|vegeta FILE [--out SCENARIO.hcl] [--name NAME]",
		Short: "Write a scenario skeleton from recorded traffic (a HAR file or vegeta targets)",
		Long: `import reads recorded traffic and writes the skeleton of a scenario: one
request block per distinct request (method, URL, body), weighted by how
often it was recorded; the headers every request shares become the
target's; credentials (Authorization, Cookie, API keys) become sensitive
variables with no value in the file, and credentials in the URLs (a
user:password@, and parameters such as session, token, api_key, sig,
X-Amz-Signature in the query, a path segment or the fragment) are dropped,
their names said on stderr; the hosts become allow_hosts. What a
recording cannot know (the clients' timeout and retries, the service's
capacity, the load) is marked TODO.

  trigger import har checkout.har --out checkout.hcl
  trigger import vegeta targets.txt        # to standard output

The vegeta format is vegeta's HTTP targets: "METHOD URL", header lines,
an optional "@file" with the body (read beside the targets file), blank
lines between targets. It exits 2 when the file cannot be read or holds
no usable request, and never overwrites --out.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			kind, path := args[0], args[1]
			f, err := os.Open(path)
			if err != nil {
				return &ExitError{Code: ExitUsage, Err: err}
			}
			defer f.Close()
			var recs []importer.Recorded
			switch kind {
			case "har":
				recs, err = importer.HAR(f)
			case "vegeta":
				recs, err = importer.Vegeta(f, filepath.Dir(path))
			default:
				return &ExitError{Code: ExitUsage, Err: fmt.Errorf("import: unknown format %q: want har or vegeta", kind)}
			}
			if err != nil {
				return &ExitError{Code: ExitUsage, Err: err}
			}
			if names := importer.Stripped(recs); len(names) > 0 {
				fmt.Fprintf(stderr, "import: dropped credentials from the recorded URLs (query, path and fragment parameters, user:password@): %s\n", safetext.Line(strings.Join(names, ", ")))
			}
			if name == "" {
				name = importer.ScenarioName(path)
			}
			w := stdout
			if out != "" {
				of, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
				if err != nil {
					return &ExitError{Code: ExitUsage, Err: fmt.Errorf("import: %w (it is never overwritten)", err)}
				}
				defer of.Close()
				w = of
			}
			if err := importer.Skeleton(w, name, filepath.Base(path), recs); err != nil {
				return &ExitError{Code: ExitHarness, Err: err}
			}
			if out != "" {
				fmt.Fprintf(stderr, "wrote %s: %d requests recorded; fill in its TODOs, then: trigger plan %s\n", out, len(recs), out)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "write the skeleton to this file (refused if it exists) instead of standard output")
	cmd.Flags().StringVar(&name, "name", "", "the scenario's name (default: the recording's file name)")
	return cmd
}
