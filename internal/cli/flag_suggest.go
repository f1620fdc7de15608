package cli

import (
	"fmt"
	"strings"

	"github.com/agext/levenshtein"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// suggestFlag is the root's flag error function: an unknown flag's error
// names the command's flag closest to it, when one is close
// ("unknown flag: --metrics-listen (did you mean --metrics-addr?)").
func suggestFlag(cmd *cobra.Command, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return err
	}
	if s := nearestFlag(cmd, name); s != "" {
		return fmt.Errorf("%w (did you mean --%s?)", err, s)
	}
	return err
}

// nearestFlag is the name of cmd's flag (its own or inherited) nearest to
// name by edit distance, if at most half of name's length away; "" when
// none is.
func nearestFlag(cmd *cobra.Command, name string) string {
	best, bestD := "", len(name)/2+1
	visit := func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		d := levenshtein.Distance(name, f.Name, nil)
		if d < bestD || (d == bestD && f.Name < best) {
			best, bestD = f.Name, d
		}
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	return best
}
