#!/usr/bin/env bash
# A campaign with trials against the specimen (issue 37): does the
# boundary it reports, with its interval, hold the model's boundary?
#
# The specimen's System A with exponential service times (two pods of
# 100/s) is driven by bench/campaign-trials/scenario.hcl (Poisson
# arrivals, τ_out = 0.5 s, two retries, a 4 s spike at ρ = 0.4) through
# `trigger campaign --tipping` with trials = $TRIALS at trap_probability
# = $LEVEL. It prints the cells, the boundary at the level with its
# interval and source, the request-level model's boundary at the level,
# and whether the interval holds it. Everything talks to 127.0.0.1 only
# and stops by itself; the campaign's max_duration is 15 minutes (about 5
# to 10 on a quiet machine). The campaign's folder (campaign.json,
# campaign.html with the tipping chart, one run per trial) is kept in $OUT.
#
#   sh bench/campaign-trials/run.sh          # or: bash, with knobs below
#
# Knobs (environment): TRIALS (6), LEVEL (0.5), PORT (18232), OUT.
set -euo pipefail
cd "$(dirname "$0")/../.."

TRIALS=${TRIALS:-6}
LEVEL=${LEVEL:-0.5}
PORT=${PORT:-18232}
WORK=$(mktemp -d)
OUT=${OUT:-$WORK/campaign}
PID=
cleanup() {
  if [ -n "$PID" ]; then kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; fi
}
trap cleanup EXIT

echo "== building" >&2
go build -o "$WORK/trigger" ./cmd/trigger
go build -o "$WORK/specimen" ./examples/specimen

echo "== specimen: 2 pods × 100/s, exponential service, on 127.0.0.1:$PORT" >&2
"$WORK/specimen" -pods 2 -pod-rate 100 -service-time exponential -addr "127.0.0.1:$PORT" >"$WORK/specimen.log" 2>&1 &
PID=$!
for _ in $(seq 50); do
  if curl -fsS "http://127.0.0.1:$PORT/metrics" >/dev/null 2>&1; then break; fi
  sleep 0.1
done

sed -e "s/^  trials           = 6$/  trials           = $TRIALS/" -e "s/^  trap_probability = 0.5$/  trap_probability = $LEVEL/" \
  bench/campaign-trials/scenario.hcl >"$WORK/scenario.hcl"

echo "== host: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); trials $TRIALS, level $LEVEL" >&2
started=$(date +%s)
set +e
"$WORK/trigger" campaign --yes --tipping --out "$OUT" --var "port=$PORT" "$WORK/scenario.hcl" 2>"$WORK/campaign.log"
code=$?
set -e
echo "== campaign exit $code after $(( $(date +%s) - started )) s; folder $OUT" >&2

jq -r '
  .baselines[] | .odds as $o |
  "ρ = \(.rho): boundary at P(trap) = \($o.level): \($o.boundary // "none") in [\($o.boundary_lo // "-"), \($o.boundary_hi // "-")] (\($o.source)\(if $o.fit_note then "; " + $o.fit_note else "" end))",
  "        model boundary at the level: \($o.model_boundary // ("none: " + ($o.model_note // "")))",
  "        trials \($o.trials) in \($o.cells) cells; the model took \($o.model_seconds) s",
  (if ($o.model_boundary != null and $o.boundary_lo != null and $o.boundary_hi != null) then
     (if ($o.model_boundary >= $o.boundary_lo and $o.model_boundary <= $o.boundary_hi)
      then "        the interval HOLDS the model boundary"
      else "        the interval does NOT hold the model boundary" end)
   else "        cannot compare: an end is missing" end)
' "$OUT/campaign.json"
