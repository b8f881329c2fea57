#!/usr/bin/env bash
# Runs the side-by-side benchmarks once, short enough for well under two
# minutes on a 2-core machine, and prints dstsafe's ratios to robfig/cron,
# gocron and time.Date (best of COUNT runs, which resists noise from other
# processes better than the mean).
#
#   ./run.sh                           # BENCHTIME=100ms COUNT=3
#   BENCHTIME=1s COUNT=6 ./run.sh      # steadier numbers, a few minutes
#   BENCH='Next/chicago' ./run.sh      # a subset (go test -bench syntax)
#
# The raw `go test` output is kept in bench.out for benchstat.
set -euo pipefail
cd "$(dirname "$0")"

benchtime=${BENCHTIME:-100ms}
count=${COUNT:-3}
bench=${BENCH:-.}

status=0
go test -run '^$' -bench "$bench" -benchmem -benchtime "$benchtime" -count "$count" . | tee bench.out || status=$?
awk -f ratios.awk bench.out
exit "$status"
