package scenarios

import (
	"time"

	"github.com/trigger-test/trigger/vocab"
)

// Limits on what a scenario may hold. The input limits bound the work of
// reading any file, hostile or not, by construction: a file is refused
// before it is parsed when it is too big, has too many tokens or nests too
// deeply (hcl's parser and evaluator recurse once per level and would
// overflow the stack), and an expression is refused before it is evaluated
// when its evaluation could build too much. The value limits are beyond
// anything a real trigger test could mean; past them, the model's
// arithmetic overflows (multiplier = 1e300 planned a recovery after
// −2562047788015215 h).
const (
	// MaxFileBytes is the largest scenario file read, in bytes (1 MiB).
	MaxFileBytes = 1 << 20
	// MaxTokens is the most tokens a scenario file (or a --var value
	// parsed as HCL) may have, counted as the words, numbers and symbols
	// outside spaces: hcl takes about a microsecond and half a kilobyte
	// per token to lex and parse.
	MaxTokens = 65536
	// MaxNesting is the deepest nesting of brackets ( [ {, template
	// interpolations ${ and directives %{ a file may have.
	MaxNesting = 64
	// MaxChain is the most tokens in a row at one level of brackets
	// between separators (a comma, an "=", a newline in a body or
	// object): each operator is one more level of recursion for hcl.
	MaxChain = 32
	// MaxForNesting is the deepest nesting of for expressions and %{for}
	// directives: each level multiplies the work of evaluation.
	MaxForNesting = 2
	// MaxEvalWork bounds the evaluation of all the expressions of one
	// scenario (attributes, variable defaults and --var values), in steps:
	// one per value element or string byte built, sixteen per iteration of
	// a for or splat; estimated from the syntax and the variables' sizes
	// before anything is evaluated (see boundEval).
	MaxEvalWork = 1 << 20
	// MaxStringBytes is the longest string a value may hold, in bytes
	// (64 KiB): a variable's value, an attribute, an element.
	MaxStringBytes = 64 << 10
	// MaxElements is the most elements a list or map may hold: converting
	// a list takes time that grows with the square of its length.
	MaxElements = 1024

	// MaxDuration is the longest duration any attribute may give.
	MaxDuration = 7 * 24 * time.Hour
	// MaxMultiplier is the largest load.spike.multiplier, k.
	MaxMultiplier = 1000
	// MaxBaseline is the largest load.baseline and on_trap.rate, in first
	// attempts per second.
	MaxBaseline = 1e6
	// MaxCapacity is the largest service.capacity and pod_rate, in
	// requests per second.
	MaxCapacity = 1e7
	// MaxReplicas is the largest pods, max_replicas, scalability_peak and
	// workers.
	MaxReplicas = 100000
	// MaxInFlight is the largest client.max_in_flight, in concurrent
	// attempts.
	MaxInFlight = 1000000
	// MaxRetries is the largest max_retries of the client or a layer.
	MaxRetries = 100
	// MaxTracerRate is the largest client.tracers.rate, in probes per second.
	MaxTracerRate = vocab.MaxTracerRate
	// MinScrapeInterval is the shortest prometheus.scrape_interval.
	MinScrapeInterval = 200 * time.Millisecond
	// MaxQueryBytes is the longest PromQL query (stop_when and prometheus
	// queries), in bytes: parsing a crafted query takes about ten
	// microseconds a byte, and more than linearly beyond.
	MaxQueryBytes = 2 << 10
	// MaxStopWhen is the most stop_when blocks a scenario may have.
	MaxStopWhen = 16
	// MinStopTimeout and MaxStopTimeout bound stop_when.timeout.
	MinStopTimeout = 100 * time.Millisecond
	MaxStopTimeout = 30 * time.Second
)
