package cli

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/trigger-test/trigger/internal/version"
)

// toolVersion is the version `trigger --version` prints, the one the
// runner records in result.json (internal/version.String: the module's
// version, else the commit it was built from, else "devel").
func toolVersion() string { return version.String() }

// newVersionCommand is `trigger version`, the same as `trigger --version`.
func newVersionCommand(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print trigger's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := io.WriteString(stdout, "trigger "+toolVersion()+"\n")
			return err
		},
	}
}
