#!/usr/bin/env bash
# The driver's gRPC path beside ghz, in one run, on loopback: at each rate
# in RATES, ghz and our driver (bench/grpc drive), each in its own process,
# one after the other (alternating which goes first), against the same fast
# gRPC server (grpc-go's interop TestService, EmptyCall, answered at once):
# CPU time (user + system of the generator's process alone, wait4's rusage)
# per call sent, achieved rate, success ratio, and the highest rate each
# sustained (achieved within TOL of the target, ≥ 99 % OK).
# ghz is installed with `go install` into a temporary GOBIN; it is not a
# dependency of the module. If it cannot be installed, the driver runs alone
# and the output says so. Everything talks to 127.0.0.1 only and stops by
# itself. Results (JSON) go to $OUT (default: a temporary directory, printed).
#
# Knobs (environment): RATES (default 2000,5000,10000,15000,20000),
# DURATION (10s), MAX_IN_FLIGHT (400: our pool opens 4 connections; ghz
# gets 400 workers on 4 connections), GHZ (a ghz binary to use instead of
# installing one), GHZ_VERSION (v0.120.0), ADDR, OUT.
set -euo pipefail
cd "$(dirname "$0")/../.."

RATES=${RATES:-2000,5000,10000,15000,20000}
DURATION=${DURATION:-10s}
MAX_IN_FLIGHT=${MAX_IN_FLIGHT:-400}
GHZ_VERSION=${GHZ_VERSION:-v0.120.0}
ADDR=${ADDR:-127.0.0.1:18199}

WORK=$(mktemp -d)
OUT=${OUT:-$WORK/results}
mkdir -p "$OUT"
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT

echo "== building" >&2
go build -o "$WORK/grpc-bench" ./bench/grpc
if [ -z "${GHZ:-}" ]; then
  if (cd "$WORK" && GOBIN="$WORK" GOFLAGS=-buildvcs=false go install "github.com/bojand/ghz/cmd/ghz@$GHZ_VERSION") >"$WORK/ghz-install.log" 2>&1; then
    GHZ="$WORK/ghz"
  else
    echo "== ghz $GHZ_VERSION could not be installed: the driver runs alone, no side by side" >&2
    tail -5 "$WORK/ghz-install.log" >&2
    GHZ=
  fi
fi

echo "== host: $(nproc) cores, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
"$WORK/grpc-bench" target -addr "$ADDR" -max 2h >"$WORK/target.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 50); do grep -q listening "$WORK/target.log" && break; sleep 0.1; done
grep -q listening "$WORK/target.log" || { echo "target did not start" >&2; cat "$WORK/target.log" >&2; exit 1; }

echo "== ghz ${GHZ:+$GHZ_VERSION }vs trigger at $RATES/s, $DURATION each" >&2
"$WORK/grpc-bench" compare -ghz "$GHZ" -addr "$ADDR" -rates "$RATES" -duration "$DURATION" \
  -max-in-flight "$MAX_IN_FLIGHT" >"$OUT/compare.json"

echo "== summary" >&2
if command -v jq >/dev/null; then
  jq -r '"highest sustained: \(.max_sustained_per_s|to_entries|map("\(.key) \(.value)/s")|join(", "))",
    (.runs[] | "\(.tool) at \(.target_rate_per_s)/s: \(.cpu_us_per_call*100|round/100) µs CPU per call, achieved \(.achieved_rate_per_s|floor)/s, ok \(.success_ratio*10000|round/100) %")' "$OUT/compare.json"
else
  cat "$OUT/compare.json"
fi
[ -n "$GHZ" ] || echo "ghz: not installed (see above); no side by side in this run"
echo "results in $OUT" >&2
