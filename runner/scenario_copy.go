package runner

import (
	"io"
	"strconv"
	"strings"

	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/runner/report"
)

// writeScenarioCopy writes the scenario's text into the run's folder
// (report.ScenarioFile), so that the run can be read again with what it
// ran (trigger simulate --from): every secret replaced by
// convert.SensitiveValue, quoted where it was quoted so the copy still
// parses.
func writeScenarioCopy(dir string, src []byte, secrets []string) error {
	var pairs []string
	for _, s := range secrets {
		switch {
		case s == "":
		case strings.HasPrefix(s, `"`) && strings.HasSuffix(s, `"`) && len(s) >= 2:
			pairs = append(pairs, s, strconv.Quote(convert.SensitiveValue))
		default:
			pairs = append(pairs, s, convert.SensitiveValue)
		}
	}
	text := string(src)
	if len(pairs) > 0 {
		text = strings.NewReplacer(pairs...).Replace(text)
	}
	return report.WriteFileAtomic(dir, report.ScenarioFile, func(w io.Writer) error {
		_, err := io.WriteString(w, text)
		return err
	})
}
