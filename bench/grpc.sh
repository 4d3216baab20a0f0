#!/usr/bin/env bash
# gRPC benchmark: SendMessage and a streamed 100-chunk artifact over gRPC and over JSON-RPC,
# both against the same `a2a serve` process, in one run; see bench/README.md. One run
# builds in release, starts an echo server and an exec server, each serving HTTP and gRPC
# on 127.0.0.1:0 ports, runs `grpcload` on both bindings in turn, and prints one table.
# Exit status: 2 when the setup failed (build, a server that does not start), 1 when a
# figure could not be measured (the client failed, or requests failed), 0 otherwise,
# whether the goal is met or not.
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_PER_RUN=${BENCH_SECONDS:-5}      # one measured run
CONCURRENCY=${BENCH_CONCURRENCY:-64}     # SendMessage: requests in flight
# gRPC's HTTP/2 connections, one SendMessage row each; the first is the goal's, and the
# streams' (64 is one connection per request in flight, as JSON-RPC has).
GRPC_CONNECTIONS=${BENCH_GRPC_CONNECTIONS:-"4 64"}
WARMUP=${BENCH_WARMUP:-1000}             # SendMessage: requests before each measured run
STREAM_CONCURRENCY=${BENCH_STREAM_CONCURRENCY:-32} # streams open at once
STREAM_WARMUP=${BENCH_STREAM_WARMUP:-32} # streams before each measured run
STREAM_LINES=100                         # artifact chunks per stream
ROUNDS=${BENCH_ROUNDS:-2}                # runs per target and figure, alternated; medians
RESULTS=${BENCH_RESULTS:-target/bench-grpc} # summaries and server logs, kept after the run

NAME=grpc
# shellcheck source=bench/lib.sh
source bench/lib.sh # the working directory is the workspace root (above)

[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "BENCH_ROUNDS must be a positive integer"
read -r -a POOLS <<<"$GRPC_CONNECTIONS"
((${#POOLS[@]} > 0)) || die "BENCH_GRPC_CONNECTIONS names no connection count"
for pool in "${POOLS[@]}"; do
    [[ $pool =~ ^[1-9][0-9]*$ ]] || die "BENCH_GRPC_CONNECTIONS: $pool is not a positive integer"
done
# The targets: JSON-RPC, then gRPC on each connection count (`grpc-N`).
UNARY_TARGETS=(jsonrpc)
for pool in "${POOLS[@]}"; do
    UNARY_TARGETS+=("grpc-$pool")
done
STREAM_TARGETS=(jsonrpc "grpc-${POOLS[0]}")

build a2a grpcload lines
"$BIN/a2a" serve --help | grep -q -- '--grpc-bind' || die "this a2a serve has no --grpc-bind flag"

fresh_results
trap stop_all EXIT
TICKS_PER_S=$(getconf CLK_TCK)

# start_both NAME COMMAND...: `start`, then waits for the `listening for gRPC on ADDR` line
# that follows the HTTP one; sets GRPC_URL to `http://ADDR` besides PID and URL.
start_both() {
    local name=$1 _
    start "$@"
    for _ in $(seq 50); do
        GRPC_URL=$(sed -n 's|^listening for gRPC on \([^ ]*\)$|http://\1|p' "$RESULTS/$name.out")
        [[ -n $GRPC_URL ]] && return 0
        sleep 0.1
    done
    die "$name did not print its gRPC address within 5 s"
}

A2A=("$BIN/a2a" serve --bind 127.0.0.1:0 --grpc-bind 127.0.0.1:0 --no-auth --store memory
    --max-stored-tasks 10000 --log-level warn --shutdown-grace 1000)

status=0
# measure MODE TARGET ROUND WARMUP ARGS...: one grpcload run against the server PID (at
# JSON_URL, GRPC_URL) with WARMUP requests first; its summary goes to
# MODE-TARGET-ROUND.json, and the server's CPU time per request or stream (µs), warm-up
# included, to MODE-TARGET-ROUND.cpu.
measure() {
    local mode=$1 target=$2 round=$3 warmup=$4
    shift 4
    local summary=$RESULTS/$mode-$target-$round.json
    local binding=(--binding jsonrpc --url "$JSON_URL")
    [[ $target == grpc-* ]] &&
        binding=(--binding grpc --url "$GRPC_URL" --connections "${target#grpc-}")
    local before after
    before=$(cpu_ticks "$PID")
    if ! "$BIN/grpcload" --mode "$mode" "${binding[@]}" --seconds "$SECONDS_PER_RUN" \
        --warmup "$warmup" --out "$summary" "$@" 2>>"$RESULTS/grpcload.log"; then
        warn "grpcload failed: $mode, $target, round $round (see $RESULTS/grpcload.log)"
        rm -f "$summary"
        status=1
        return 0
    fi
    after=$(cpu_ticks "$PID")
    awk -v c=$((after - before)) -v n=$(($(field "$summary" requests) + warmup)) \
        -v t="$TICKS_PER_S" 'BEGIN { printf "%.1f\n", c * 1e6 / t / n }' >"${summary%.json}.cpu"
}

# in_turn ROUND TARGET...: the targets in the order of the round, as given in odd rounds and
# reversed in even ones, so that a slow spell of the shared machine hits all alike.
in_turn() {
    local round=$1
    shift
    if ((round % 2)); then
        echo "$@"
    else
        printf '%s\n' "$@" | tac | tr '\n' ' '
    fi
}

step "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"

# 1. SendMessage to the echo agent, which answers at once with a completed task.
start_both echo "${A2A[@]}" --agent echo
JSON_URL=$URL/
for round in $(seq "$ROUNDS"); do
    for target in $(in_turn "$round" "${UNARY_TARGETS[@]}"); do
        step "SendMessage, round $round: $target, ${SECONDS_PER_RUN}s at $CONCURRENCY in flight"
        measure unary "$target" "$round" "$WARMUP" --concurrency "$CONCURRENCY"
    done
done
stop "$PID"

# 2. Streams: the exec agent runs `lines`, whose $STREAM_LINES lines become exactly that
#    many artifact chunks, between the task, WORKING and COMPLETED.
start_both exec "${A2A[@]}" --agent exec -- "$BIN/lines" --count "$STREAM_LINES"
JSON_URL=$URL/
for round in $(seq "$ROUNDS"); do
    for target in $(in_turn "$round" "${STREAM_TARGETS[@]}"); do
        step "streams, round $round: $target, ${SECONDS_PER_RUN}s, $STREAM_CONCURRENCY at a time"
        measure stream "$target" "$round" "$STREAM_WARMUP" --concurrency "$STREAM_CONCURRENCY"
    done
done
stop "$PID"

# figure MODE TARGET KEY: the median of KEY over the target's runs of MODE; empty when a
# run is missing.
figure() {
    local mode=$1 target=$2 key=$3 values=() round summary
    for round in $(seq "$ROUNDS"); do
        summary=$RESULTS/$mode-$target-$round.json
        [[ -f $summary ]] || return 0
        values+=("$(field "$summary" "$key")")
    done
    median "${values[@]}"
}
# cpu MODE TARGET: the median of the server's CPU µs per request (or stream) over the runs.
cpu() {
    local values=() round file
    for round in $(seq "$ROUNDS"); do
        file=$RESULTS/$1-$2-$round.cpu
        [[ -f $file ]] || return 0
        values+=("$(cat "$file")")
    done
    median "${values[@]}"
}
# failures MODE TARGET: failed requests or streams over the target's runs of MODE.
failures() {
    local total=0 summary
    for summary in "$RESULTS/$1-$2"-*.json; do
        [[ -f $summary ]] || continue
        total=$((total + $(field "$summary" failed)))
    done
    echo "$total"
}

echo
echo "gRPC vs JSON-RPC on the same a2a serve; medians of $ROUNDS alternated runs of ${SECONDS_PER_RUN}s"
echo "SendMessage (echo agent), $CONCURRENCY in flight; jsonrpc: up to $CONCURRENCY HTTP/1.1 connections, grpc-N: N HTTP/2 connections"
row='%-9s %9s %8s %8s %11s %14s %9s\n'
# shellcheck disable=SC2059 # the format is the row's
printf "$row" target 'req/s' 'p50 ms' 'p99 ms' 'vs jsonrpc' 'server us/req' failures
json_rate=$(figure unary jsonrpc requests_per_s)
for target in "${UNARY_TARGETS[@]}"; do
    rate=$(figure unary "$target" requests_per_s)
    failed=$(failures unary "$target")
    [[ $failed == 0 ]] || status=1
    # shellcheck disable=SC2059
    printf "$row" "$target" "$(num "$rate" %.0f)" \
        "$(num "$(figure unary "$target" latency_ms_p50)" %.2f)" \
        "$(num "$(figure unary "$target" latency_ms_p99)" %.2f)" \
        "$(num "$(ratio "$rate" "$json_rate")" %.2f)" "$(num "$(cpu unary "$target")" %.0f)" \
        "$failed"
done
echo
echo "Streams of $STREAM_LINES artifact chunks (exec agent running lines, $((STREAM_LINES + 3)) events), $STREAM_CONCURRENCY at a time"
row='%-9s %9s %9s %11s %11s %10s %10s %11s %17s %9s\n'
# shellcheck disable=SC2059
printf "$row" target 'streams/s' 'events/s' 'first p50' 'first p99' 'p50 ms' 'p99 ms' \
    'vs jsonrpc' 'server us/stream' failures
json_events=$(figure stream jsonrpc events_per_s)
for target in "${STREAM_TARGETS[@]}"; do
    events=$(figure stream "$target" events_per_s)
    failed=$(failures stream "$target")
    [[ $failed == 0 ]] || status=1
    # shellcheck disable=SC2059
    printf "$row" "$target" \
        "$(num "$(figure stream "$target" streams_per_s)" %.0f)" "$(num "$events" %.0f)" \
        "$(num "$(figure stream "$target" first_event_ms_p50)" %.2f)" \
        "$(num "$(figure stream "$target" first_event_ms_p99)" %.2f)" \
        "$(num "$(figure stream "$target" stream_ms_p50)" %.1f)" \
        "$(num "$(figure stream "$target" stream_ms_p99)" %.1f)" \
        "$(num "$(ratio "$events" "$json_events")" %.2f)" "$(num "$(cpu stream "$target")" %.0f)" \
        "$failed"
done
echo "(first p50, first p99: ms from sending the request to the first event; p50, p99: ms per whole stream)"
echo
kept=$(ratio "$(figure unary "grpc-${POOLS[0]}" requests_per_s)" "$json_rate")
verdict="ERROR (not measured)"
if [[ -n $kept ]]; then
    if awk -v r="$kept" 'BEGIN { exit !(r >= 1) }'; then
        verdict="PASS ($(printf %.2f "$kept"))"
    else
        verdict="FAIL ($(printf %.2f "$kept"))"
    fi
fi
echo "Goal: gRPC SendMessage throughput (grpc-${POOLS[0]}) / JSON-RPC's >= 1.00: $verdict"
[[ $status == 0 ]] || echo "some requests failed or a figure could not be measured; see $RESULTS"
exit "$status"
