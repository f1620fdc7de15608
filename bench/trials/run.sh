#!/usr/bin/env bash
# Repeated trials at the specimen's boundary (issue 37): start the
# specimen on loopback (two pods of 100/s), run
#   trigger run --trials 10 --all-trials near-boundary.hcl
# with a spike at the edge of the boundary (the request-level model traps
# 28 % of its runs at ×2.65, 48 % at ×2.7), and print the summary: the
# measured P(trap) with its Wilson 95 % interval beside the model's. About
# 6 minutes.
# Usage: bash bench/trials/run.sh [MULTIPLIER [TRIALS]]   (defaults 2.65, 10)
# Environment: PORT (default 18080), OUT (default a temporary folder),
# SEED (the first trial's, default 1).
set -euo pipefail
cd "$(dirname "$0")/../.."
k=${1:-2.65}
n=${2:-10}
port=${PORT:-18080}
seed=${SEED:-1}
tmp=$(mktemp -d)
out=${OUT:-$tmp/out}
log=${OUT:+${OUT%/}.log}
log=${log:-$tmp/run.log}
pid=""
cleanup() {
	if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
	rm -rf "$tmp"
}
trap cleanup EXIT
go build -o "$tmp/trigger" ./cmd/trigger
go build -o "$tmp/specimen" ./examples/specimen
"$tmp/specimen" -addr "127.0.0.1:$port" -pods 2 -pod-rate 100 >"$tmp/specimen.log" 2>&1 &
pid=$!
for _ in $(seq 50); do
	if curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; then break; fi
	sleep 0.2
done
url="http://127.0.0.1:$port"
echo "== the model at ×$k (trigger simulate --model request --runs 200)"
"$tmp/trigger" simulate --model request --runs 200 --var "url=$url" --var "multiplier=$k" bench/trials/near-boundary.hcl | grep '^Runs' || true
echo "== trigger run --trials $n --all-trials at ×$k"
code=0
"$tmp/trigger" run --yes --trials "$n" --all-trials --rest 2s --seed "$seed" --out "$out" \
	--var "url=$url" --var "multiplier=$k" bench/trials/near-boundary.hcl 2>"$log" || code=$?
echo "(exit $code)"
if [ -n "${OUT:-}" ]; then echo "trials.json: $out/trials.json, the series' log: $log"; fi
