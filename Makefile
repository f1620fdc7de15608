# trigger — make targets a newcomer needs: build, test, bench, demo.
GO ?= go

# Packages with goroutines run under the race detector. Without it: the
# model and the scenario decoder (the detector slows the model's grids
# tenfold and finds nothing there: they start no goroutine), and the
# command line and the Kubernetes engine, which link client-go: racing them
# compiled its 300 packages a second time, minutes from a clean cache, to
# test code of ours that the raced packages below already cover (cli calls
# runner, fleet; kube's tests use client-go's fake clientset); and the
# layering check, which reads the import graph with go list.
#
# make test runs in three steps, about 12 minutes on 2 cores with a warm
# build cache, several more from a clean one (README, "Two commands"):
#
#  1. test-pure, test-fuzz: go vet, the packages above (with -short: the
#     command line's one real-time test, simulate --from on recorded runs,
#     is in step 3), 20 s of fuzzing the decoder and 10 s the driver's
#     response reader.
#  2. test-race: every package with goroutines under the race detector,
#     two packages at a time, with -short: the real-time end-to-end runs
#     skip there, except a few of the runner's (a whole run to a verdict, a
#     Ctrl-C and a stop condition), raced alone afterwards.
#  3. test-e2e: the real-time end-to-end runs (the runner's against the
#     specimen and real Prometheus, the specimen's, the fleet's, the
#     trigger binary's under signals, stalls and hostile targets, the field
#     test against Debian's haproxy, prometheus and uwsgi) without the race
#     detector, in five streams side by side of five to eight minutes each.
#     Their code paths were raced in step 2; without the detector they use
#     about a third of the machine together, so the streams do not distort
#     each other's timing (the field test's cases are still run four at a
#     time, not more: six or seven at once made recoveries two to three
#     times faster than the model).
PURE_PKGS  := ./analysis/... ./scenarios/... ./internal/cli/... ./fleet/kube/...
# Packages with tests, but for those above and the field test (step 3).
RACE_PKGS  := $(shell $(GO) list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' ./... | grep -v -e /analysis -e /scenarios -e /internal/fieldtest -e /internal/cli -e /fleet/kube -e /internal/layering)
RACE_WHOLE := TestE2ETrappedStopsEarly|TestInterruptWinsOverAHangingPrometheus|TestStopConditionStopsTheLoad
# The runner's end-to-end tests in two streams of about four minutes each.
E2E_RUNNER_A := TestE2EFleetRecovers|TestE2ERecovers|TestE2ERealPrometheusAgreesWithEmbedded|TestE2EOnTrapDropTimesTheDrain|TestE2ECapacityDrop|TestE2ECompareFindsASlowerRelease|TestE2EMixIsJudgedByItsCapacity

.PHONY: build test test-pure test-fuzz test-race test-e2e e2e-runner-a e2e-runner-b e2e-specimen e2e-field e2e-field-laws e2e-campaign bench bench-staging bench-brakes bench-fleet bench-charts bench-compare bench-campaign bench-report bench-grpc bench-tipping bench-trials bench-campaign-trials demo clean

# The shipped binary is stripped (no symbol table or DWARF) and holds no
# build machine's paths; docs/design.md, "Dependencies", says what makes
# it large. The agent image (examples/kubernetes/Dockerfile) builds it the
# same way.
BUILD_FLAGS := -trimpath -ldflags "-s -w"

build:
	$(GO) build $(BUILD_FLAGS) -o bin/trigger ./cmd/trigger

test: test-pure test-fuzz test-race test-e2e

# The layering check runs go list, which go test's cache cannot see
# (-count=1: never a cached pass).
test-pure:
	$(GO) vet ./...
	$(GO) test -short $(PURE_PKGS)
	$(GO) test -count=1 ./internal/layering

# Scenario files are input from anywhere: fuzz the decoder for a while
# (no panic, no stack overflow, an answer within a second, diagnostics
# inside their files). New crashers land in scenarios/testdata/fuzz/:
# keep them, they join the seed corpus. Responses are input from anywhere
# too: the driver's own reader of response heads must agree with net/http
# on all it accepts (loadgen/testdata/fuzz/ for its crashers).
#
# The budgets are counts of executions, not durations: Go 1.26's fuzzer can
# fail a duration-bounded run with a bare "context deadline exceeded" when
# the deadline races a worker (golang/go#75804, seen here in make test);
# a count has no deadline. About 20 s and 10 s of fuzzing on this machine.
test-fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime 30000x ./scenarios/
	$(GO) test -run '^$$' -fuzz '^FuzzLeanHeadAgreesWithNetHTTP$$' -fuzztime 90000x ./loadgen/

test-race:
	$(GO) test -race -short $(RACE_PKGS)
	$(GO) test -race -run '^($(RACE_WHOLE))$$' ./runner

test-e2e:
	$(MAKE) --no-print-directory -j5 --output-sync=target e2e-runner-a e2e-runner-b e2e-specimen e2e-field e2e-campaign

e2e-runner-a:
	$(GO) test -timeout 15m -run '^($(E2E_RUNNER_A))$$' ./runner

e2e-runner-b:
	$(GO) test -timeout 15m -skip '^($(E2E_RUNNER_A))$$' ./runner

# The fleet's tests that build the binary and run agent processes skip
# with -short; the rest of the fleet was raced in step 2. cmd/trigger's
# tests build the binary with `go build`, which go test's cache cannot
# see: -count=1, never a cached pass of an older binary.
e2e-specimen:
	$(GO) test -timeout 15m ./examples/specimen/specimen
	$(GO) test -timeout 15m -run '^TestLocalEngine' ./fleet
	$(GO) test -count=1 -timeout 15m ./cmd/trigger
	$(MAKE) --no-print-directory e2e-field-laws

# The short tipping benchmark (about 30 s, busy: the collapse law's server
# collapses in every trial above λ_c, in none far below it) and repeated
# trials (about 1 minute: trigger run --trials stops after the two trials
# the sequential rule needs) first, before the field laws' cases start in
# the specimen's stream (a busy machine then once put a slope figure of
# theirs off); then a three-cell campaign, one that finds λ_r, a capacity
# campaign, stopped campaigns, campaigns with trials, and simulate --from
# on two recorded runs (about 8 minutes, little CPU: the specimen at 50 to
# 80 first attempts/s), the fifth stream beside the others.
e2e-campaign:
	$(GO) test -count=1 -timeout 5m ./bench/tipping
	$(GO) test -timeout 10m ./runner/trials
	$(GO) test -timeout 15m ./runner/campaign
	$(GO) test -timeout 15m -run '^TestSimulateFromARecordedRun$$' ./internal/cli

# The field test but its field laws' cases (about 6 min 30 s), and those
# (about 2 min 20 s: five cases side by side, the longest 2 min) at the
# end of the specimen's stream (about 5 min before them), so that no
# stream passes 8 minutes and five streams, not six, share the machine
# (with a sixth, embedded Prometheus once answered no data for 12 s and
# a field case's A_fail came out 11 % off).
e2e-field:
	$(GO) test -timeout 20m -parallel 4 -skip '^TestFieldLawCases$$' ./internal/fieldtest/...

e2e-field-laws:
	$(GO) test -timeout 15m -parallel 5 -run '^TestFieldLawCases$$' ./internal/fieldtest/...

bench:
	$(GO) test -run '^$$' -bench . -benchtime 20x ./analysis/...
	$(GO) test -run '^$$' -bench RequestSim -benchtime 3x -cpu 1 ./convert/

# The field test's cases repeated: the proxy stack at 5 s and 15 s scrape
# intervals, the application server (uWSGI) and the field laws' stacks at
# 10 s, as the README's tables (about 90 minutes; needs haproxy,
# prometheus, uwsgi and /usr/bin/python3 with prometheus_client).
bench-staging:
	$(GO) run ./bench/staging

# How soon the load stops after Ctrl-C, a stop condition or max_duration
# while Prometheus hangs, is slow or dies (about 3 minutes).
bench-brakes:
	$(GO) run ./bench/brakes

# The tipping curve, the probability of collapse against load, of the
# specimen configured as the collapse law's server and driven by trigger's
# driver, beside the request model's and the published points (θ = 10:
# every trial collapses at λ_c; θ = 2: half of them at two thirds of it),
# ten trials per load (about 9 minutes; bench/tipping/README.md).
bench-tipping:
	$(GO) run ./bench/tipping

# trigger run --trials 10 --all-trials on the specimen at a spike the
# request model traps in about 28 % of its runs: the measured P(trap) with
# its interval beside the model's (about 6 minutes; bench/trials/README.md).
bench-trials:
	bash bench/trials/run.sh

# A campaign with trials = 6 at level 0.5 on the specimen: the boundary
# with its interval beside the model's boundary (about 5 minutes;
# bench/campaign-trials/README.md).
bench-campaign-trials:
	bash bench/campaign-trials/run.sh

# How long both charts take for timelines of 1,000 to 10,000 rows, and
# with absurd values in them (well under a minute).
bench-charts:
	$(GO) run ./bench/charts

# Whether trigger compare calls noise a regression: five pairs of runs of
# one release against System B, and System A as a release that regressed
# (about 5 minutes).
bench-compare:
	$(GO) run ./bench/compare

# examples/campaign.hcl against System A (C = 100/s, A = 3): the smallest
# trapping multiplier at ρ = 0.4 and λ_r against the model's 2.75 and
# C/A, and no trap at ρ = 0.2 and 0.3 (about 25 minutes).
bench-campaign:
	$(GO) run ./bench/campaign

# Memory of trigger report and simulate --from on a recorded run with a
# 500 MiB timeline.csv (about 1 minute; needs GNU time).
bench-report:
	sh bench/report/run.sh

# How soon merged seconds reach the coordinator from 1–8 local agents, and
# what each agent costs (about 2 minutes).
bench-fleet:
	$(GO) run ./bench/fleet

# The driver's gRPC path beside ghz (installed by go install into a
# temporary GOBIN): CPU per call and the highest sustained rate against a
# local gRPC server, in one run (about 2 minutes at the default rates).
bench-grpc:
	bash bench/grpc/run.sh

demo: build
	./bin/trigger demo

clean:
	rm -rf bin out
