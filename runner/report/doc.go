// Package report writes and reads what a run leaves in its output folder:
// result.json, timeline.csv, and the reports people read (docs/design.md,
// "Layout"; the formats: "The result document" and "timeline.csv").
package report
