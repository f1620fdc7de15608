package queryshape

import "github.com/prometheus/prometheus/promql/parser"

// Parser is the module's one PromQL parser configuration: every reader of
// a query parses with it (the scenario's stop_when checks, the signals'
// shapes here, the embedded server's engine and its API, the lookup of a
// series' scrape interval), so no two of them disagree on what parses. It
// accepts experimental functions and fill modifiers: the server a query
// is sent to, not the parser, decides whether it allows them.
func Parser() parser.Parser { return promQL }

var promQL = parser.NewParser(parser.Options{
	EnableExperimentalFunctions: true,
	EnableBinopFillModifiers:    true,
})
