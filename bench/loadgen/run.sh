#!/usr/bin/env bash
# Benchmarks of the spike driver (package loadgen) on loopback, in one run:
#   1. side by side with vegeta v12.13.0 on the same fast target: the highest
#      rate each sustains (achieved rate within 0.5 % of the target rate and
#      ≥ 99 % successes; ours also with nothing dropped);
#   2. our dispatch lag at half our highest sustained rate;
#   3. CPU time per attempt sent (user + system of the generator's process
#      alone, from wait4's rusage) of vegeta and of our driver (LeanTransport
#      and net/http's Transport) at one rate (CPU_RATE, default 10,000/s) for
#      CPU_DURATION (20 s), TRIALS trials, rotating the order in each trial;
#   4. timeout storms: 2,000 attempts/s, 1 s timeout, 60 s, against a target
#      that never answers and closes silently once the client has given up
#      (so the client closed first and TIME_WAIT is possible), with SO_LINGER 0
#      (the default), without it, over h2c (a target that never answers), and
#      through loadgen.LeanTransport (SO_LINGER 0, no net/http goroutines);
#      resident memory per attempt in flight, descriptors, TIME_WAIT sockets,
#      drops, lag.
# vegeta is installed with `go install` into a temporary GOBIN; it is not a
# dependency of the module. Everything talks to 127.0.0.1 only and stops by
# itself. Results (JSON) go to $OUT (default: a temporary directory, printed).
# Before each run of either tool in 1 and 3 it waits (at most TW_WAIT, 70 s)
# until at most TW_MAX (1000) sockets on the target's port are in TIME_WAIT:
# a run that falls behind opens thousands of connections, and the TIME_WAIT
# sockets they leave spoil every later run on that port. The counts before
# and after each wait are printed and in the JSON.
#
# Knobs (environment): RATES (empty: no side by side, no lag run), TRIALS,
# NETHTTP (set: drive the comparison with net/http's Transport instead of the
# default LeanTransport), DURATION, LAG_DURATION, CPU_RATE, CPU_DURATION,
# CPU_TOOLS ("vegeta,lean,lean1,nethttp"; lean1 is ours with GOMAXPROCS=1; empty for none), TW_MAX, TW_WAIT,
# STORM_DURATION, STORM_RATE, STORMS ("linger0 nolinger h2c lean"; empty for
# none), VEGETA (a vegeta binary to use instead of installing one), OUT.
set -euo pipefail
cd "$(dirname "$0")/../.."

RATES=${RATES-2000,4000,6000,8000,10000,12000,14000,16000,18000,20000}
TRIALS=${TRIALS:-3}
DURATION=${DURATION:-10s}
LAG_DURATION=${LAG_DURATION:-30s}
STORM_DURATION=${STORM_DURATION:-60s}
STORM_RATE=${STORM_RATE:-2000}
CPU_RATE=${CPU_RATE:-10000}
CPU_DURATION=${CPU_DURATION:-20s}
CPU_TOOLS=${CPU_TOOLS-vegeta,lean,lean1,nethttp}
TW_MAX=${TW_MAX:-1000}
TW_WAIT=${TW_WAIT:-70s}
STORMS=${STORMS-linger0 nolinger h2c lean}
FAST=127.0.0.1:18099
HANG=127.0.0.1:18098
HANG_H2C=127.0.0.1:18097

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
go build -o "$WORK/loadgen-bench" ./bench/loadgen
if [ -z "${VEGETA:-}" ]; then
  (cd "$WORK" && GOBIN="$WORK" GOFLAGS=-buildvcs=false go install github.com/tsenart/vegeta/v12@v12.13.0)
  VEGETA="$WORK/vegeta"
fi

start_target() { # addr mode [extra flags]
  local log="$WORK/target-$1.log"
  "$WORK/loadgen-bench" target -addr "$1" -mode "$2" -max 2h "${@:3}" >"$log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 50); do grep -q listening "$log" && return 0; sleep 0.1; done
  echo "target $1 did not start" >&2; cat "$log" >&2; return 1
}

echo "== host: $(nproc) cores, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
start_target "$FAST" fast
if [ -n "$RATES" ]; then
  echo "== vegeta vs loadgen at $RATES for $DURATION each" >&2
  "$WORK/loadgen-bench" compare -vegeta "$VEGETA" -url "http://$FAST/" -rates "$RATES" \
    -duration "$DURATION" -lag-duration "$LAG_DURATION" -trials "$TRIALS" ${NETHTTP:+-nethttp} \
    -tw-max "$TW_MAX" -tw-wait "$TW_WAIT" >"$OUT/compare.json"
fi

if [ -n "$CPU_TOOLS" ]; then
  echo "== CPU per attempt: $CPU_TOOLS at $CPU_RATE/s for $CPU_DURATION, $TRIALS trials" >&2
  "$WORK/loadgen-bench" cpu -vegeta "$VEGETA" -url "http://$FAST/" -rate "$CPU_RATE" \
    -duration "$CPU_DURATION" -trials "$TRIALS" -tools "$CPU_TOOLS" \
    -tw-max "$TW_MAX" -tw-wait "$TW_WAIT" >"$OUT/cpu.json"
fi

start_target "$HANG" silent
start_target "$HANG_H2C" hang -h2c
for s in $STORMS; do
  case $s in
    linger0)  args=(-url "http://$HANG/") ;;
    nolinger) args=(-url "http://$HANG/" -linger0=false) ;;
    h2c)      args=(-url "http://$HANG_H2C/" -h2) ;;
    lean)     args=(-url "http://$HANG/" -lean) ;;
    *) echo "unknown storm $s" >&2; exit 2 ;;
  esac
  echo "== timeout storm ($s): $STORM_RATE/s, 1s timeout, $STORM_DURATION" >&2
  "$WORK/loadgen-bench" storm "${args[@]}" -rate "$STORM_RATE" -timeout 1s -duration "$STORM_DURATION" >"$OUT/storm-$s.json"
  sleep 2
done

echo "== summary" >&2
if command -v jq >/dev/null; then
  [ -z "$RATES" ] || jq -r '"vegeta max sustained: \(.vegeta_max_sustained_per_s)/s, ours: \(.ours_max_sustained_per_s)/s; ours at half (\(.ours_at_half_max.target_rate_per_s)/s): lag p50 \(.ours_at_half_max.lag_p50_ms) ms, p99 \(.ours_at_half_max.lag_p99_ms) ms, max \(.ours_at_half_max.lag_max_ms) ms"' "$OUT/compare.json"
  [ -z "$CPU_TOOLS" ] || jq -r '.target_rate_per_s as $r | .tools[] | "CPU per attempt at \($r)/s, \(.tool): median \(.median_cpu_us_per_attempt*100|round/100) µs \(if .median_of_runs_holding_rate then "of runs holding the rate" else "of all runs" end) (all: \(.min_cpu_us_per_attempt*100|round/100)–\(.max_cpu_us_per_attempt*100|round/100)), achieved \(.min_achieved_rate_per_s|floor)–\(.max_achieved_rate_per_s|floor)/s (sent \(.min_sent_per_scheduled_s|floor)–\(.max_sent_per_scheduled_s|floor) per scheduled s), \(.runs_holding_rate)/\(.runs) runs held the rate\(if .median_ratio_to_vegeta then ", \(.median_ratio_to_vegeta*100|round/100)× vegeta" else "" end)\(if .paired_ratios_to_vegeta then "; per trial where both held: \([.paired_ratios_to_vegeta[]|(.*100|round/100|tostring) + "×"]|join(", "))" else "" end)"' "$OUT/cpu.json"
  for s in $STORMS; do
    jq -r --arg s "$s" '"storm \($s): sent \(.sent)/\(.planned), dropped \(.dropped), outcomes \(.outcomes|tostring), rate \(.achieved_rate_per_s|floor), lag p99 \(.lag_p99_ms) ms, \(.kib_per_in_flight|floor) KiB per in-flight (\(.mean_in_flight_steady|floor) in flight, RSS \(.base_rss_mib|floor)→\(.mean_rss_mib_steady|floor) MiB), max fds \(.max_fds), TIME_WAIT to the target \(.time_wait_before) before, max \(.max_time_wait) during"' "$OUT/storm-$s.json"
  done
else
  cat "$OUT"/*.json
fi
echo "results in $OUT" >&2
