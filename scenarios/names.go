package scenarios

import (
	"regexp"
	"strconv"

	"github.com/hashicorp/hcl/v2"
)

// safeName is what a scenario or stop_when name may be: it becomes part of
// a folder name (out/NAME-TIMESTAMP) and of log lines, so no path
// separator, no "." or "..", no control character, no leading dot or dash.
var safeName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// validName reports whether name is safe as a folder name: 1 to 64
// letters, digits, dots, dashes and underscores, starting with a letter
// or digit.
func validName(name string) bool { return safeName.MatchString(name) }

// checkName reports the label of blk when it is not a valid name; what is
// the block type, meaning says what the name is used for.
func (d *decoder) checkName(blk *hcl.Block, what, summary, meaning string) bool {
	name := blk.Labels[0]
	if validName(name) {
		return true
	}
	d.errorf(blk.LabelRanges[0].Ptr(), summary,
		"%s is not a valid %s name: the name %s, so it must be 1 to 64 letters, digits, dots, dashes and underscores, starting with a letter or digit, such as \"checkout-spike\".",
		shortQuote(name), what, meaning)
	return false
}

// shortQuote quotes s as Go does (control characters escaped), cut to
// about 80 characters.
func shortQuote(s string) string {
	const max = 80
	if r := []rune(s); len(r) > max {
		return strconv.Quote(string(r[:max])) + "…"
	}
	return strconv.Quote(s)
}
