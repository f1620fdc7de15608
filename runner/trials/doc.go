// Package trials repeats one trigger test with different seeds (trigger
// run --trials N): each trial a run of its own (runner.Run) in its own
// folder, on a service the health probe saw back, after a rest; trials.json
// and trials.md, rewritten after every trial, hold the odds over them
// (docs/model.md, "Trap probability"). The judging (the odds, the gate,
// when to stop) is analysis's; this package does the I/O and the timing.
package trials
