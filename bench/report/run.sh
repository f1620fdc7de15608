#!/bin/sh
# Memory of `trigger report` and `trigger simulate --from` on a recorded
# run whose timeline.csv is 500 MiB, under the 512 MiB cap (issue 32,
# finding 10: it took report to 8.8 GB and 84 s, simulate --from to 7.1 GB).
# The target is a maximum RSS under 1 GB for each. Seen on a 2-core
# machine with other work running (500 MiB, about 2.6 million rows):
# report 114 MiB max RSS in 19 s, simulate --from 50 MiB at once.
#
#   sh bench/report/run.sh            # 500 MiB
#   MIB=100 sh bench/report/run.sh    # a smaller file
#
# The run's result.json is a real short run's (runner/report/testdata/
# recovered); its timeline's rows are repeated, one second apart, until
# the file reaches the size; simulate --from is given scenarios/recovers.hcl
# (the fixture keeps no scenario.hcl). Needs GNU time (/usr/bin/time -v).
set -eu
cd "$(dirname "$0")/../.."
MIB=${MIB:-500}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
go build -o "$work/trigger" ./cmd/trigger
src=runner/report/testdata/recovered
run="$work/run"
mkdir "$run"
cp "$src/result.json" "$run/result.json"
echo "generating a ${MIB} MiB timeline.csv ..."
awk -v limit=$((MIB * 1024 * 1024)) -F, -v OFS=, '
	NR == 1 { print; size = length($0) + 1; next }
	{ rows[n++] = $0 }
	END {
		for (t = 0; size < limit; t++) {
			split(rows[t % n], f, ",")
			line = t
			for (i = 2; i <= length(f); i++) line = line "," f[i]
			print line
			size += length(line) + 1
		}
	}' "$src/timeline.csv" > "$run/timeline.csv"
ls -l "$run/timeline.csv"

measure() {
	name=$1
	shift
	/usr/bin/time -v "$@" > "$work/out" 2> "$work/time" || echo "($name exited $?)"
	rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$work/time")
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { print $2 }' "$work/time")
	echo "$name: max RSS $((rss / 1024)) MiB, wall $wall"
	grep -v '^\s' "$work/time" | grep -iv 'command being timed' | head -3 || true
	if [ "$rss" -gt $((1024 * 1024)) ]; then
		echo "$name: over 1 GB" >&2
		status=1
	fi
}
status=0
measure "trigger report" "$work/trigger" report "$run"
measure "trigger simulate --from" "$work/trigger" simulate --from "$run" scenarios/recovers.hcl
exit $status
