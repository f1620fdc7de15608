// Package examples holds the scenarios that target the example specimen;
// the demo scenario is embedded so `trigger demo` runs from anywhere.
package examples

import _ "embed"

// DemoScenario is examples/demo.hcl, the scenario `trigger demo` runs.
//
//go:embed demo.hcl
var DemoScenario []byte

// DemoScenarioName is the file name diagnostics use for DemoScenario.
const DemoScenarioName = "examples/demo.hcl"

// DemoFaultScenario is examples/demo-fault.hcl, the demo's capacity drop.
//
//go:embed demo-fault.hcl
var DemoFaultScenario []byte

// DemoFaultScenarioName is the file name diagnostics use for DemoFaultScenario.
const DemoFaultScenarioName = "examples/demo-fault.hcl"

// DemoGRPCScenario is examples/demo-grpc.hcl, the scenario `trigger demo
// --grpc` runs.
//
//go:embed demo-grpc.hcl
var DemoGRPCScenario []byte

// DemoGRPCScenarioName is the file name diagnostics use for DemoGRPCScenario.
const DemoGRPCScenarioName = "examples/demo-grpc.hcl"
