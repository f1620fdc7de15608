package cli

import (
	"fmt"
	"strings"

	"github.com/trigger-test/trigger/analysis"
)

// fleetText is the line about a run's agents: how many, on which engine,
// how far apart they started, and what each sent.
func fleetText(f *analysis.FleetInfo) string {
	skew := "start skew unknown"
	if f.StartSkewMS != nil {
		skew = fmt.Sprintf("start skew %.1f ms", *f.StartSkewMS)
	}
	var parts []string
	for _, a := range f.PerAgent {
		p := fmt.Sprintf("%s sent %d (ok %d, failed %d)", a.Name, a.Sent, a.FirstOK, a.FirstFailed)
		if a.Lost != "" {
			p += " LOST: " + a.Lost
		}
		parts = append(parts, p)
	}
	return fmt.Sprintf("%d on the %s engine, %s; %s", f.Agents, f.Engine, skew, strings.Join(parts, "; "))
}
