// Package fleet spreads one run's load over several agents, started
// together, stopped together and judged as one test (docs/design.md,
// "Scaling out"). One driver's top rate is bounded by its machine's cores
// (bench/loadgen/README.md measures it); a larger spike comes from many.
//
// The coordinator (Coordinator) serves a small HTTP protocol, launches the
// agents through an Engine (LocalEngine: processes on this machine;
// fleet/kube: an Indexed Job on Kubernetes), and merges what they report into one
// timeline the runner reads as if it came from one driver. An agent
// (RunAgent, `trigger agent`) reads its assignment, builds its share of
// the load (Share: 1/N of the first-attempt rate, its own seed, its own
// retries and budget, tracers on agent 0 only, ⌈max_in_flight/N⌉), checks
// the allowlist itself, starts its driver at the common start instant and
// reports its seconds four times a second.
//
// Protocol, over TLS (the coordinator's certificate is made for the run and
// pinned by the agents, pin.go; every request is signed with the agent's own
// key and carries a growing sequence number, auth.go):
//
//	GET  /v1/assignment?index=I → Assignment (the scenario's file name,
//	     HCL text without its notify block, variables with the secrets
//	     the load does not use replaced, seed, N, max_duration); once
//	POST /v1/report             ← Report (ready, an error, seconds from
//	     index From, cohorts from CohortsFrom, final), checked before
//	     any of it is taken (validate.go)
//	                            → Control (have, start instant, stop, replan)
//
// An agent that gets no Control for Silence (3 s) stops its driver and
// exits; so it does at max_duration and on Control.Stop. A coordinator
// that hears nothing from an agent for Silence declares it lost: the run
// stops and ends inconclusive, naming it.
package fleet
