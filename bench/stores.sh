#!/usr/bin/env bash
# Store benchmark: completed SendMessage tasks/s of `a2a serve --agent echo` with each task
# store (memory, a fresh SQLite file, a fresh PostgreSQL database); see bench/README.md.
# One run builds in release, starts one server per store on a 127.0.0.1:0 port, runs
# `sendload` against it, stops it, and prints one table.
# Exit status: 2 when the setup failed (build, database, a server that does not start),
# 1 when a store could not be measured (the client failed, or requests failed),
# 0 otherwise, whether SQLite reaches the goal or not.
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_PER_STORE=${BENCH_SECONDS:-10}  # measured run, per store
CONCURRENCY=${BENCH_CONCURRENCY:-64}    # requests in flight
WARMUP=${BENCH_WARMUP:-1000}            # requests before each measured run
STORES=${BENCH_STORES:-"memory sqlite postgres"}
# A database the PostgreSQL user can connect to, to create and drop the benchmark's own.
PG_ADMIN_URL=${BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/test}
RESULTS=${BENCH_RESULTS:-target/bench-stores} # summaries and server logs, kept after the run
SQLITE_GOAL=10000                             # completed tasks/s
POSTGRES_GOAL=5000                            # completed tasks/s

NAME=stores
# shellcheck source=bench/lib.sh
source bench/lib.sh # the working directory is the workspace root (above)

for store in $STORES; do
    case $store in
    memory | sqlite | postgres) ;;
    *) die "unknown store in BENCH_STORES: $store (memory, sqlite, postgres)" ;;
    esac
done

build a2a sendload
"$BIN/a2a" serve --help | grep -q -- '--store' || die "this a2a serve has no --store flag"

fresh_results
TMP=$(mktemp -d)

cleanup() {
    stop_all
    drop_postgres
    rm -rf "$TMP"
}
trap cleanup EXIT

# A fresh PostgreSQL database, dropped on exit.
if [[ " $STORES " == *" postgres "* ]]; then
    fresh_postgres a2a_bench
fi

store_url() {
    case $1 in
    memory) echo memory ;;
    sqlite) echo "sqlite://$TMP/a2a.db" ;;
    postgres) echo "$PG_URL" ;;
    esac
}

step "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
status=0
for store in $STORES; do
    start "server-$store" "$BIN/a2a" serve --bind 127.0.0.1:0 --no-auth --agent echo \
        --store "$(store_url "$store")" --log-level warn --shutdown-grace 1000
    step "$store: $WARMUP warm-up requests, then ${SECONDS_PER_STORE}s at $CONCURRENCY in flight"
    if ! "$BIN/sendload" --url "$URL/" --concurrency "$CONCURRENCY" \
        --seconds "$SECONDS_PER_STORE" --warmup "$WARMUP" \
        --out "$RESULTS/$store.json" 2>>"$RESULTS/sendload.log"; then
        warn "sendload failed on $store (see $RESULTS/sendload.log)"
        rm -f "$RESULTS/$store.json"
        status=1
    fi
    stop "$PID"
done

echo
printf '%-9s %10s %9s %9s %9s %11s\n' store 'tasks/s' 'p50 ms' 'p99 ms' failures 'vs memory'
memory_rate=""
[[ -f $RESULTS/memory.json ]] && memory_rate=$(field "$RESULTS/memory.json" tasks_per_s)
sqlite_rate=""
postgres_rate=""
for store in $STORES; do
    summary=$RESULTS/$store.json
    if [[ ! -f $summary ]]; then
        printf '%-9s %10s %9s %9s %9s %11s\n' "$store" - - - - -
        continue
    fi
    rate=$(field "$summary" tasks_per_s)
    failed=$(field "$summary" failed)
    [[ $failed == 0 ]] || status=1
    [[ $store == sqlite ]] && sqlite_rate=$rate
    [[ $store == postgres ]] && postgres_rate=$rate
    ratio=-
    [[ -n $memory_rate ]] && ratio=$(awk -v a="$rate" -v b="$memory_rate" \
        'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
    printf '%-9s %10.0f %9.2f %9.2f %9s %11s\n' "$store" "$rate" \
        "$(field "$summary" latency_ms_p50)" "$(field "$summary" latency_ms_p99)" \
        "$failed" "$ratio"
done
echo
# goal NAME RATE GOAL: one line saying whether the store reached its goal.
goal() {
    [[ -n $2 ]] || return 0
    if awk -v r="$2" -v g="$3" 'BEGIN { exit !(r >= g) }'; then
        printf 'Goal: %s >= %d completed tasks/s: PASS (%.0f)\n' "$1" "$3" "$2"
    else
        printf 'Goal: %s >= %d completed tasks/s: FAIL (%.0f)\n' "$1" "$3" "$2"
    fi
}
goal SQLite "$sqlite_rate" "$SQLITE_GOAL"
goal PostgreSQL "$postgres_rate" "$POSTGRES_GOAL"
[[ $status == 0 ]] || echo "some requests failed or a store could not be measured; see $RESULTS"
exit "$status"
