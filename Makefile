# trigger — make targets a newcomer needs: build, test, bench, demo.
GO ?= go

# Packages with goroutines run under the race detector; the pure model and
# the scenario decoder run without it (the detector slows the model's grids
# tenfold and finds nothing there: they start no goroutine). The race
# packages run one at a time (-p 1): their end-to-end tests each drive a
# service at hundreds of attempts per second, and two at once on 2 cores
# would distort each other's timing.
#
# The field test (internal/fieldtest: trigger run against Debian's haproxy
# and prometheus) runs after them, four cases at a time, without the race
# detector (its code paths are the runner's, raced above). Its cases are
# real systems in real time: run six or seven at once on 2 cores, their
# recoveries came out two to three times faster than the same cases run
# three or four at a time, and than the model.
PURE_PKGS  := ./analysis/... ./scenarios/...
FIELD_PKGS := ./internal/fieldtest/...
RACE_PKGS  := $(shell $(GO) list ./... | grep -v -e /analysis -e /scenarios -e /internal/fieldtest)

.PHONY: build test test-pure test-fuzz test-race test-field bench bench-staging bench-brakes bench-fleet demo clean

build:
	$(GO) build -o bin/trigger ./cmd/trigger

test: test-pure test-fuzz test-race test-field

test-pure:
	$(GO) vet ./...
	$(GO) test $(PURE_PKGS)

# Scenario files are input from anywhere: fuzz the decoder for a while
# (no panic, no stack overflow, an answer within a second, diagnostics
# inside their files). New crashers land in scenarios/testdata/fuzz/:
# keep them, they join the seed corpus.
test-fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime 20s ./scenarios/

test-race:
	$(GO) test -race -p 1 $(RACE_PKGS)

test-field:
	$(GO) test -timeout 20m -parallel 4 $(FIELD_PKGS)

bench:
	$(GO) test -run '^$$' -bench . -benchtime 20x ./analysis/...
	$(GO) test -run '^$$' -bench RequestSim -benchtime 3x -cpu 1 ./convert/

# The field test's cases repeated at 5 s and 15 s scrape intervals, as the
# README's table (about 25 minutes; needs haproxy and prometheus).
bench-staging:
	$(GO) run ./bench/staging

# How soon the load stops after Ctrl-C, a stop condition or max_duration
# while Prometheus hangs, is slow or dies (about 3 minutes).
bench-brakes:
	$(GO) run ./bench/brakes

# How soon merged seconds reach the coordinator from 1–8 local agents, and
# what each agent costs (about 2 minutes).
bench-fleet:
	$(GO) run ./bench/fleet

demo: build
	./bin/trigger demo

clean:
	rm -rf bin out
