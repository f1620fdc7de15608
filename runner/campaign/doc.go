// Package campaign maps a service's vulnerability with whole trigger tests
// (docs/model.md, "Mapping the boundary"; docs/design.md, "trigger
// campaign"): at each baseline of the scenario's campaign block it
// brackets the smallest spike that traps (analysis.Bracket), each cell a
// run of package runner in its own folder, and, after a trap, the
// recovery demand λ_r. A cell starts only on a service that a light probe
// finds recovered; campaign.json is rewritten after every cell, so an
// interrupted campaign keeps every finished one and says why it stopped.
package campaign
