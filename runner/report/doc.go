// Package report writes and reads what a run leaves in its output folder:
// result.json, timeline.csv, and the reports people read (DESIGN.md,
// "Layout": runner/report).
package report
