package cli

import (
	"io"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// toolVersion is the version `trigger --version` prints: the main
// module's version when the binary was built from a tagged module (go
// install …@v1.2.3), else the commit it was built from (12 hex digits,
// "-dirty" when the work tree had changes), else "devel".
func toolVersion() string {
	bi, ok := debug.ReadBuildInfo()
	return versionOf(bi, ok)
}

// versionOf is toolVersion for given build information.
func versionOf(bi *debug.BuildInfo, ok bool) string {
	if !ok || bi == nil {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return rev
}

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
