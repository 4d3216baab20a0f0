#!/usr/bin/env bash
# Authentication benchmark: what checking the caller costs SendMessage throughput, in one
# run; see bench/README.md. One run builds in release, starts four `a2a serve --agent echo`
# servers on 127.0.0.1:0 ports, the same but for authentication (none, an API key, a static
# bearer token, ES256 JWTs checked against a JWKS that `jwks` serves), runs `sendload`
# against each in turn, alternating the order from round to round, and prints one table and
# the goal lines.
# Exit status: 2 when the setup failed (build, a server that does not start), 1 when a
# figure could not be measured (the client failed, or requests failed), 0 otherwise,
# whether the goals are met or not.
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_PER_RUN=${BENCH_SECONDS:-10}  # one measured run
CONCURRENCY=${BENCH_CONCURRENCY:-64}  # requests in flight
WARMUP=${BENCH_WARMUP:-1000}          # requests before each measured run
ROUNDS=${BENCH_ROUNDS:-3}             # runs per mode, alternated; medians
RESULTS=${BENCH_RESULTS:-target/bench-auth} # summaries and server logs, kept after the run
STATIC_GOAL=5 # % of the no-auth throughput an API key or a static bearer token may cost
JWT_GOAL=20   # % an ES256 JWT may cost
API_KEY=bench-api-key-0123456789abcdef
BEARER_TOKEN=bench-bearer-token-0123456789abcdef
ISSUER=https://issuer.bench
AUDIENCE=https://agent.bench

NAME=auth
# shellcheck source=bench/lib.sh
source bench/lib.sh # the working directory is the workspace root (above)

[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "BENCH_ROUNDS must be a positive integer"

build a2a sendload jwks

fresh_results
TICKS_PER_S=$(getconf CLK_TCK)
trap stop_all EXIT

step "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"

# start_server NAME COMMAND...: `start`, with NAME.out made first: `start` reads it at once,
# possibly before the server's shell has created it.
start_server() {
    : >"$RESULTS/$1.out"
    start "$@"
}

# The token's lifetime outlasts the run, so no request meets an expired token.
start_server jwks "$BIN/jwks" --issuer "$ISSUER" --audience "$AUDIENCE" --ttl-s 86400 \
    --token-out "$RESULTS/token.jwt"
JWKS_URL=$URL/jwks.json
TOKEN=$(cat "$RESULTS/token.jwt")

# The modes, in the order they run in odd rounds (even rounds run them the other way
# round); MODE_FLAGS: the server's authentication flags; MODE_HEADERS: the header sendload
# sends; LABELS: the name in the table.
MODES=(none apikey bearer jwt)
declare -A LABELS=([none]="no auth" [apikey]="API key" [bearer]="static bearer"
    [jwt]="JWT ES256")
declare -A MODE_FLAGS=(
    [none]="--no-auth"
    [apikey]="--api-key $API_KEY"
    [bearer]="--bearer-token $BEARER_TOKEN"
    [jwt]="--jwks-url $JWKS_URL --issuer $ISSUER --audience $AUDIENCE"
)
declare -A MODE_HEADERS=(
    [none]=""
    [apikey]="X-API-Key: $API_KEY"
    [bearer]="Authorization: Bearer $BEARER_TOKEN"
    [jwt]="Authorization: Bearer $TOKEN"
)
declare -A URLS SERVER_PIDS
for mode in "${MODES[@]}"; do
    # shellcheck disable=SC2086 # the flags are words
    start_server "serve-$mode" "$BIN/a2a" serve --agent echo --bind 127.0.0.1:0 --store memory \
        --max-stored-tasks 10000 --log-level warn --shutdown-grace 1000 ${MODE_FLAGS[$mode]}
    URLS[$mode]="$URL/"
    SERVER_PIDS[$mode]=$PID
done

status=0
# measure MODE ROUND: one sendload run; its summary goes to run-MODE-ROUND.json, and the
# server's CPU time per request (µs), warm-up included, to run-MODE-ROUND.cpu.
measure() {
    local mode=$1 round=$2
    local summary=$RESULTS/run-$mode-$round.json pid=${SERVER_PIDS[$mode]}
    local header=() before after requests
    [[ -n ${MODE_HEADERS[$mode]} ]] && header=(--header "${MODE_HEADERS[$mode]}")
    before=$(cpu_ticks "$pid")
    if ! "$BIN/sendload" --url "${URLS[$mode]}" --concurrency "$CONCURRENCY" \
        --seconds "$SECONDS_PER_RUN" --warmup "$WARMUP" "${header[@]}" \
        --out "$summary" 2>>"$RESULTS/sendload.log"; then
        warn "sendload failed on ${LABELS[$mode]}, round $round (see $RESULTS/sendload.log)"
        rm -f "$summary"
        status=1
        return 0
    fi
    after=$(cpu_ticks "$pid")
    requests=$(($(field "$summary" requests) + WARMUP))
    awk -v c=$((after - before)) -v n="$requests" -v t="$TICKS_PER_S" \
        'BEGIN { printf "%.1f\n", c * 1e6 / t / n }' >"${summary%.json}.cpu"
}

for round in $(seq "$ROUNDS"); do
    order=("${MODES[@]}")
    if ((round % 2 == 0)); then
        order=()
        for ((i = ${#MODES[@]} - 1; i >= 0; i--)); do order+=("${MODES[i]}"); done
    fi
    for mode in "${order[@]}"; do
        step "round $round: ${LABELS[$mode]}, ${SECONDS_PER_RUN}s at $CONCURRENCY in flight"
        measure "$mode" "$round"
    done
done

# figure MODE KEY: the median of KEY over the mode's runs; empty when a run is missing.
figure() {
    local values=() round summary
    for round in $(seq "$ROUNDS"); do
        summary=$RESULTS/run-$1-$round.json
        [[ -f $summary ]] || return 0
        values+=("$(field "$summary" "$2")")
    done
    median "${values[@]}"
}
# cpu MODE: the median server CPU µs per request of the mode's runs.
cpu() {
    local values=() round file
    for round in $(seq "$ROUNDS"); do
        file=$RESULTS/run-$1-$round.cpu
        [[ -f $file ]] || return 0
        values+=("$(cat "$file")")
    done
    median "${values[@]}"
}
# failures MODE: failed requests over the mode's runs.
failures() {
    local total=0 summary
    for summary in "$RESULTS/run-$1"-*.json; do
        [[ -f $summary ]] || continue
        total=$((total + $(field "$summary" failed)))
    done
    echo "$total"
}
# cost MODE: the share of the no-auth throughput the mode loses, in %; empty when either
# is missing.
cost() {
    local kept
    kept=$(ratio "$(figure "$1" tasks_per_s)" "$(figure none tasks_per_s)")
    [[ -n $kept ]] && awk -v k="$kept" 'BEGIN { print (1 - k) * 100 }' || true
}

echo
echo "SendMessage (echo agent, memory store) by authentication; medians of $ROUNDS alternated runs of ${SECONDS_PER_RUN}s at $CONCURRENCY in flight"
row='%-14s %9s %8s %8s %14s %10s %9s\n'
# shellcheck disable=SC2059 # the format is the row's
printf "$row" auth 'req/s' 'p50 ms' 'p99 ms' 'server us/req' 'cost' failures
for mode in "${MODES[@]}"; do
    failed=$(failures "$mode")
    [[ $failed == 0 ]] || status=1
    mode_cost=-
    [[ $mode == none ]] || mode_cost=$(num "$(cost "$mode")" %.1f%%)
    # shellcheck disable=SC2059
    printf "$row" "${LABELS[$mode]}" "$(num "$(figure "$mode" tasks_per_s)" %.0f)" \
        "$(num "$(figure "$mode" latency_ms_p50)" %.2f)" \
        "$(num "$(figure "$mode" latency_ms_p99)" %.2f)" \
        "$(num "$(cpu "$mode")" %.0f)" "$mode_cost" "$failed"
done
echo "(cost: 1 - req/s / no-auth req/s, in the same run)"
echo
# goal WHAT MODE LIMIT: one `Goal:` line, the mode's cost against LIMIT (%).
goal() {
    local value verdict
    value=$(cost "$2")
    if [[ -z $value ]]; then
        verdict=ERROR
    elif awk -v v="$value" -v g="$3" 'BEGIN { exit !(v <= g) }'; then
        verdict="PASS ($(printf %.1f%% "$value"))"
    else
        verdict="FAIL ($(printf %.1f%% "$value"))"
    fi
    echo "Goal: $1 cost <= $3%: $verdict"
}
goal "API key" apikey "$STATIC_GOAL"
goal "static bearer token" bearer "$STATIC_GOAL"
goal "JWT (ES256)" jwt "$JWT_GOAL"
[[ $status == 0 ]] || echo "some requests failed or a figure could not be measured; see $RESULTS"
exit "$status"
