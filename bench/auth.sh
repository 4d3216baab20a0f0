#!/usr/bin/env bash
# Authentication benchmark: what checking the caller costs SendMessage throughput, in one
# run; see bench/README.md. One run builds in release, starts four `a2a serve --agent echo`
# servers on 127.0.0.1:0 ports, the same but for authentication (none, an API key, a static
# bearer token, ES256 JWTs checked against a JWKS that `jwks` serves), runs `sendload`
# against each in turn, alternating the order from round to round, and prints one table and
# the goal lines. A mode's cost is taken in each round against that round's no-auth run,
# and the median over the rounds is reported.
# Exit status: 2 when the setup failed (build, a server that does not start), 1 when a
# figure could not be measured (the client failed, or requests failed), 0 otherwise,
# whether the goals are met or not.
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_PER_RUN=${BENCH_SECONDS:-3}   # one measured run
CONCURRENCY=${BENCH_CONCURRENCY:-64}  # requests in flight
WARMUP=${BENCH_WARMUP:-1000}          # requests before each measured run
ROUNDS=${BENCH_ROUNDS:-7}             # runs per mode, alternated; medians
RESULTS=${BENCH_RESULTS:-target/bench-auth} # summaries and server logs, kept after the run
A2A=${BENCH_A2A:-}                    # another a2a binary to measure (default: the one built)
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
[[ -n $A2A ]] || A2A=$BIN/a2a
[[ -x $A2A ]] || die "$A2A is not an executable"

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
    start_server "serve-$mode" "$A2A" serve --agent echo --bind 127.0.0.1:0 --store memory \
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
# rate MODE ROUND / cpu_of MODE ROUND: req/s and server CPU µs per request of one run.
rate() { [[ -f $RESULTS/run-$1-$2.json ]] && field "$RESULTS/run-$1-$2.json" tasks_per_s || true; }
cpu_of() { [[ -f $RESULTS/run-$1-$2.cpu ]] && cat "$RESULTS/run-$1-$2.cpu" || true; }
# cpu MODE: the median server CPU µs per request of the mode's runs.
cpu() {
    local values=() round value
    for round in $(seq "$ROUNDS"); do
        value=$(cpu_of "$1" "$round")
        [[ -n $value ]] || return 0
        values+=("$value")
    done
    median "${values[@]}"
}
# added MODE: the median over rounds of the server CPU µs per request the mode adds to the
# round's no-auth run; empty when a run is missing.
added() {
    local values=() round value
    for round in $(seq "$ROUNDS"); do
        value=$(minus "$(cpu_of "$1" "$round")" "$(cpu_of none "$round")")
        [[ -n $value ]] || return 0
        values+=("$value")
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
# cost MODE: the share of the no-auth throughput the mode loses, in %: in each round against
# that round's no-auth run, then the median over rounds; empty when a run is missing.
cost() {
    local values=() round kept
    for round in $(seq "$ROUNDS"); do
        kept=$(ratio "$(rate "$1" "$round")" "$(rate none "$round")")
        [[ -n $kept ]] || return 0
        values+=("$(awk -v k="$kept" 'BEGIN { print (1 - k) * 100 }')")
    done
    median "${values[@]}"
}

echo
echo "SendMessage (echo agent, memory store) by authentication; medians of $ROUNDS alternated runs of ${SECONDS_PER_RUN}s at $CONCURRENCY in flight"
row='%-14s %9s %8s %8s %14s %10s %8s %9s\n'
# shellcheck disable=SC2059 # the format is the row's
printf "$row" auth 'req/s' 'p50 ms' 'p99 ms' 'server us/req' 'added us' 'cost' failures
for mode in "${MODES[@]}"; do
    failed=$(failures "$mode")
    [[ $failed == 0 ]] || status=1
    mode_added=-
    mode_cost=-
    if [[ $mode != none ]]; then
        mode_added=$(num "$(added "$mode")" %.1f)
        mode_cost=$(num "$(cost "$mode")" %.1f%%)
    fi
    # shellcheck disable=SC2059
    printf "$row" "${LABELS[$mode]}" "$(num "$(figure "$mode" tasks_per_s)" %.0f)" \
        "$(num "$(figure "$mode" latency_ms_p50)" %.2f)" \
        "$(num "$(figure "$mode" latency_ms_p99)" %.2f)" \
        "$(num "$(cpu "$mode")" %.0f)" "$mode_added" "$mode_cost" "$failed"
done
echo "(added us: server CPU per request over the same round's no-auth run; cost: 1 - req/s /"
echo " the same round's no-auth req/s; both the median over rounds)"
step "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
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
