# trigger — make targets a newcomer needs: build, test, bench, demo.
GO ?= go

# Packages with goroutines run under the race detector; the pure model and
# the scenario decoder run without it (the detector slows the model's grids
# tenfold and finds nothing there: they start no goroutine). The race
# packages run one at a time (-p 1): their end-to-end tests each drive a
# service at hundreds of attempts per second, and two at once on 2 cores
# would distort each other's timing.
PURE_PKGS := ./analysis/... ./scenarios/...
RACE_PKGS := $(shell $(GO) list ./... | grep -v -e /analysis -e /scenarios)

.PHONY: build test bench demo clean

build:
	$(GO) build -o bin/trigger ./cmd/trigger

test:
	$(GO) vet ./...
	$(GO) test $(PURE_PKGS)
	$(GO) test -race -p 1 $(RACE_PKGS)

bench:
	$(GO) test -run '^$$' -bench . -benchtime 20x ./analysis/
	$(GO) test -run '^$$' -bench RequestSim -benchtime 3x -cpu 1 ./runner/

demo: build
	./bin/trigger demo

clean:
	rm -rf bin out
