# trigger — make targets a newcomer needs: build, test, bench, demo.
GO ?= go

# Packages with goroutines run under the race detector; the pure model and
# the scenario decoder run without it (the detector slows the model's grids
# tenfold and finds nothing there: they start no goroutine).
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
	@echo "The live demo (specimen + embedded Prometheus + trigger run) arrives with 'trigger run'."
	@echo "Until then, this is what the model says about the shipped scenarios:"
	@echo
	./bin/trigger plan scenarios/recovers.hcl || true
	@echo
	./bin/trigger simulate scenarios/trapped.hcl || true

clean:
	rm -rf bin out
