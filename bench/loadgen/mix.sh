#!/usr/bin/env bash
# The driver with a three-request mix and per-request values (-mix:
# request.id, request.seq, random.uuid, random::int and data columns, a
# jsonencoded body and a percent-encoded query) against one GET, on the
# same loopback target, in one run:
#   1. CPU per attempt (user + system of the driver's process, from
#      /usr/bin/time, over the attempts sent) at CPU_RATE (10,000/s) for
#      CPU_DURATION (10 s), TRIALS (3) pairs, alternating;
#   2. the highest rate each sustains for DURATION (10 s): every planned
#      first attempt sent, none dropped, ≥ 99 % ok, RATES (12,000 to
#      24,000 by 2,000), 3 s between runs.
# TRIALS=0 skips 1, RATES= skips 2.
# Prints a line per run and the medians; everything talks to 127.0.0.1
# only and stops by itself. Goal (issue 22): the mix keeps ≥ 90 % of the
# single request's top rate and ≤ 1.15× its CPU per attempt.
set -euo pipefail
cd "$(dirname "$0")/../.."
TRIALS=${TRIALS:-3}
CPU_RATE=${CPU_RATE:-10000}
CPU_DURATION=${CPU_DURATION:-10s}
DURATION=${DURATION:-10s}
RATES=${RATES:-12000 14000 16000 18000 20000 22000 24000}
ADDR=127.0.0.1:18089
WORK=$(mktemp -d)
trap 'kill $TPID 2>/dev/null || true; rm -rf "$WORK"' EXIT
go build -o "$WORK/loadgen-bench" ./bench/loadgen
"$WORK/loadgen-bench" target -addr "$ADDR" -mode fast -max 1h >"$WORK/target.log" 2>&1 &
TPID=$!
for _ in $(seq 50); do grep -q listening "$WORK/target.log" && break; sleep 0.1; done

field() { sed -n "s/.*\"$1\":\([0-9.e+-]*\).*/\1/p" "$2"; }
drive() { # out-file rate duration [-mix]
  /usr/bin/time -f "%U %S" -o "$1.time" "$WORK/loadgen-bench" drive -url "http://$ADDR/" -rate "$2" -duration "$3" ${4:-} >"$1" 2>/dev/null
}
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

if [ "$TRIALS" -gt 0 ]; then
echo "== CPU per attempt at $CPU_RATE/s for $CPU_DURATION, $TRIALS trials"
for t in $(seq "$TRIALS"); do
  for mode in one mix; do
    flag=""; [ "$mode" = mix ] && flag=-mix
    drive "$WORK/cpu-$mode-$t" "$CPU_RATE" "$CPU_DURATION" $flag
    read -r u s <"$WORK/cpu-$mode-$t.time"
    sent=$(field sent "$WORK/cpu-$mode-$t")
    us=$(awk -v u="$u" -v s="$s" -v n="$sent" 'BEGIN {printf "%.1f", (u + s) / n * 1e6}')
    echo "$us" >>"$WORK/cpu-$mode"
    echo "trial $t $mode: $us µs per attempt, $sent sent"
    sleep 3
  done
done
one=$(median <"$WORK/cpu-one"); mix=$(median <"$WORK/cpu-mix")
echo "medians: one $one µs, mix $mix µs: $(awk -v a="$mix" -v b="$one" 'BEGIN {printf "%.2f", a / b}')x"
fi
[ -n "$RATES" ] || exit 0

echo "== highest rate sustained for $DURATION"
for mode in one mix; do
  flag=""; [ "$mode" = mix ] && flag=-mix
  best=0
  for r in $RATES; do
    drive "$WORK/rate-$mode-$r" "$r" "$DURATION" $flag
    f="$WORK/rate-$mode-$r"
    planned=$(field planned "$f"); sent=$(field sent "$f"); dropped=$(field dropped "$f"); ok=$(field success_ratio "$f")
    held=$(awk -v p="$planned" -v s="$sent" -v d="$dropped" -v o="$ok" 'BEGIN {print (s == p && d == 0 && o >= 0.99) ? "held" : "fell behind"}')
    echo "$mode at $r/s: $sent of $planned sent, $dropped dropped, ok $ok: $held"
    sleep 3
    [ "$held" = held ] || break
    best=$r
  done
  echo "$best" >"$WORK/best-$mode"
done
b1=$(cat "$WORK/best-one"); b2=$(cat "$WORK/best-mix")
echo "top rates: one $b1/s, mix $b2/s: $(awk -v a="$b2" -v b="$b1" 'BEGIN {printf "%.0f", (b > 0) ? 100 * a / b : 0}') %"
