#!/usr/bin/env bash
# Saturate the specimen with 5,000 attempts/s on loopback and measure its
# queue against its bound, its RSS, and /metrics and /healthz latency.
# Usage: bash bench/specimen/run.sh [flags of bench/specimen/main.go]
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/specimen" ./examples/specimen
go build -o "$tmp/bench" ./bench/specimen
ulimit -n 65536 2>/dev/null || true
"$tmp/bench" -specimen "$tmp/specimen" "$@"
