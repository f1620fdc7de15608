// Package runner wires a scenario to the model, the spike driver and
// Prometheus: it is the only package that knows all of them
// (docs/design.md, "Layout" and "Who may import whom"). PlanInputs reduces a scenario to the numbers of the model;
// later files run a whole trigger test.
package runner
