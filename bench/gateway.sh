#!/usr/bin/env bash
# Gateway benchmark: what `a2a gateway` costs per proxied SendMessage, in one run: the CPU it
# spends per call against a do-nothing hop's (`gwproxy --mode forward`, the floor of any
# proxy here), and the latency (p50, p99) it adds to calling the agent directly; see
# bench/README.md. One run builds in release, starts one echo agent, the gateway (the agent
# registered with it) and the bare hop on 127.0.0.1:0 ports, runs `sendload` against each
# target in turn, and prints one table and the goal lines.
# Exit status: 2 when the setup failed (build, a server that does not start, the agent not
# registered), 1 when a figure could not be measured (the client failed, or requests
# failed), 0 otherwise, whether the goals are met or not.
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_PER_RUN=${BENCH_SECONDS:-10}  # one measured run
CONCURRENCY=${BENCH_CONCURRENCY:-64}  # requests in flight in the throughput runs
WARMUP=${BENCH_WARMUP:-1000}          # requests before each measured run
ROUNDS=${BENCH_ROUNDS:-2}             # runs per target and figure, alternated; medians
REFERENCES=${BENCH_REFERENCES:-0}     # 1: also memory-dir, the gateway's proxy without its registry
RESULTS=${BENCH_RESULTS:-target/bench-gateway} # summaries and server logs, kept after the run
AGENT_ID=echo-bench
CPU_GOAL=1.3         # the gateway's CPU per call / the bare hop's, at CONCURRENCY
ADDED_P50_GOAL=0.15  # ms added at p50, concurrency 1

NAME=gateway
# shellcheck source=bench/lib.sh
source bench/lib.sh # the working directory is the workspace root (above)

[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "BENCH_ROUNDS must be a positive integer"
command -v curl >/dev/null || die "curl not found (needed to see the agent registered)"

build a2a sendload gwproxy
"$BIN/a2a" serve --help | grep -q -- '--register' || die "this a2a serve has no --register flag"

fresh_results
TMP=$(mktemp -d)
TICKS_PER_S=$(getconf CLK_TCK)

cleanup() {
    stop_all
    rm -rf "$TMP"
}
trap cleanup EXIT

step "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"

start gateway "$BIN/a2a" gateway --bind 127.0.0.1:0 --store "sqlite://$TMP/gateway.db" \
    --log-level warn --shutdown-grace 1s
GATEWAY=$URL
GATEWAY_PID=$PID
start agent "$BIN/a2a" serve --no-auth --agent echo --bind 127.0.0.1:0 --store memory \
    --max-stored-tasks 10000 --register "$GATEWAY" --agent-id "$AGENT_ID" \
    --heartbeat-interval 30s --log-level warn --shutdown-grace 1000
AGENT=$URL
AGENT_PID=$PID
registered=""
for _ in $(seq 100); do
    code=$(curl -s -o /dev/null -w '%{http_code}' "$GATEWAY/agents/$AGENT_ID" || true)
    if [[ $code == 200 ]]; then
        registered=yes
        break
    fi
    sleep 0.1
done
[[ -n $registered ]] || die "the agent is not registered with the gateway after 10 s (see $RESULTS/agent.log)"

# The targets, in the order they run in each round; URLS and PROXY_PIDS give the URL
# sendload posts to and the process in front of the agent (none for direct).
TARGETS=(direct gateway)
declare -A URLS=([direct]="$AGENT/" [gateway]="$GATEWAY/a2a/$AGENT_ID")
declare -A PROXY_PIDS=([direct]="" [gateway]="$GATEWAY_PID")
# The references, `gwproxy` in front of the same agent: bare-hop, a proxy that only reads,
# forwards and relays (`--mode forward`), always, as the CPU goal is measured against it;
# memory-dir (BENCH_REFERENCES=1), the gateway's own proxy over an agent directory in
# memory instead of the SQLite registry (`--mode memory`).
references=(bare-hop:forward)
[[ $REFERENCES == 1 ]] && references+=(memory-dir:memory)
for reference in "${references[@]}"; do
    target=${reference%%:*}
    start "gwproxy-$target" "$BIN/gwproxy" --mode "${reference#*:}" --agent "$AGENT/"
    TARGETS+=("$target")
    URLS[$target]="$URL/a2a/$AGENT_ID"
    PROXY_PIDS[$target]=$PID
done

status=0
# measure FIGURE TARGET ROUND CONCURRENCY: one sendload run; its summary goes to
# FIGURE-TARGET-ROUND.json, and the CPU time per request (µs) of the agent and of the proxy,
# warm-up included, to FIGURE-TARGET-ROUND.cpu.
measure() {
    local figure=$1 target=$2 round=$3 concurrency=$4
    local summary=$RESULTS/$figure-$target-$round.json
    local proxy=${PROXY_PIDS[$target]}
    local agent_before proxy_before=0 agent_after proxy_after=0
    agent_before=$(cpu_ticks "$AGENT_PID")
    [[ -n $proxy ]] && proxy_before=$(cpu_ticks "$proxy")
    if ! "$BIN/sendload" --url "${URLS[$target]}" --concurrency "$concurrency" \
        --seconds "$SECONDS_PER_RUN" --warmup "$WARMUP" \
        --out "$summary" 2>>"$RESULTS/sendload.log"; then
        warn "sendload failed on $target, $figure round $round (see $RESULTS/sendload.log)"
        rm -f "$summary"
        status=1
        return 0
    fi
    agent_after=$(cpu_ticks "$AGENT_PID")
    [[ -n $proxy ]] && proxy_after=$(cpu_ticks "$proxy")
    local requests
    requests=$(($(field "$summary" requests) + WARMUP))
    awk -v a=$((agent_after - agent_before)) -v p=$((proxy_after - proxy_before)) \
        -v n="$requests" -v t="$TICKS_PER_S" -v proxied="$proxy" \
        'BEGIN { printf "%.1f %s\n", a * 1e6 / t / n, proxied == "" ? "-" : sprintf("%.1f", p * 1e6 / t / n) }' \
        >"${summary%.json}.cpu"
}

for round in $(seq "$ROUNDS"); do
    for target in "${TARGETS[@]}"; do
        step "latency, round $round: $target, ${SECONDS_PER_RUN}s at 1 in flight"
        measure latency "$target" "$round" 1
    done
done
for round in $(seq "$ROUNDS"); do
    for target in "${TARGETS[@]}"; do
        step "throughput, round $round: $target, ${SECONDS_PER_RUN}s at $CONCURRENCY in flight"
        measure throughput "$target" "$round" "$CONCURRENCY"
    done
done

# figure TARGET FIGURE KEY: the median of KEY over the target's runs of FIGURE; empty when
# a run is missing.
figure() {
    local target=$1 kind=$2 key=$3 values=() round summary
    for round in $(seq "$ROUNDS"); do
        summary=$RESULTS/$kind-$target-$round.json
        [[ -f $summary ]] || return 0
        values+=("$(field "$summary" "$key")")
    done
    median "${values[@]}"
}
# cpu TARGET COLUMN: the median CPU µs per request of the throughput runs (1 agent, 2 proxy).
cpu() {
    local target=$1 column=$2 values=() round file value
    for round in $(seq "$ROUNDS"); do
        file=$RESULTS/throughput-$target-$round.cpu
        [[ -f $file ]] || return 0
        value=$(cut -d' ' -f"$column" "$file")
        [[ $value == - ]] && return 0
        values+=("$value")
    done
    median "${values[@]}"
}
# Failed requests per target, over all its runs.
declare -A FAILED
for target in "${TARGETS[@]}"; do
    FAILED[$target]=0
    for summary in "$RESULTS"/*-"$target"-*.json; do
        [[ -f $summary ]] || continue
        FAILED[$target]=$((FAILED[$target] + $(field "$summary" failed)))
    done
    [[ ${FAILED[$target]} == 0 ]] || status=1
done

direct_p50=$(figure direct latency latency_ms_p50)
direct_p99=$(figure direct latency latency_ms_p99)
direct_rate=$(figure direct throughput tasks_per_s)

echo
echo "SendMessage through the gateway vs directly; medians of $ROUNDS alternated runs of ${SECONDS_PER_RUN}s"
echo "p50/p99: latency at 1 in flight; req/s and CPU per request: at $CONCURRENCY in flight"
printf '%-10s %8s %8s %10s %10s %9s %10s %11s %11s %9s\n' target 'p50 ms' 'p99 ms' \
    'added p50' 'added p99' 'req/s' 'vs direct' 'agent us/r' 'proxy us/r' failures
for target in "${TARGETS[@]}"; do
    p50=$(figure "$target" latency latency_ms_p50)
    p99=$(figure "$target" latency latency_ms_p99)
    rate=$(figure "$target" throughput tasks_per_s)
    added_p50=-
    added_p99=-
    vs=-
    if [[ $target != direct ]]; then
        added_p50=$(num "$(minus "$p50" "$direct_p50")" %.3f)
        added_p99=$(num "$(minus "$p99" "$direct_p99")" %.3f)
        vs=$(num "$(ratio "$rate" "$direct_rate")" %.2f)
    fi
    printf '%-10s %8s %8s %10s %10s %9s %10s %11s %11s %9s\n' "$target" \
        "$(num "$p50" %.3f)" "$(num "$p99" %.3f)" "$added_p50" "$added_p99" \
        "$(num "$rate" %.0f)" "$vs" "$(num "$(cpu "$target" 1)" %.0f)" \
        "$(num "$(cpu "$target" 2)" %.0f)" "${FAILED[$target]}"
done
echo
gateway_p50=$(figure gateway latency latency_ms_p50)
added=$(minus "$gateway_p50" "$direct_p50")
cpu_ratio=$(ratio "$(cpu gateway 2)" "$(cpu bare-hop 2)")
kept=$(ratio "$(figure gateway throughput tasks_per_s)" "$direct_rate")
# goal NAME OP TARGET VALUE FORMAT: one `Goal: NAME OP TARGET: PASS (value)` line, FAIL when
# VALUE misses TARGET, ERROR when it could not be measured; OP is <= or >=.
goal() {
    local verdict=ERROR
    if [[ -n $4 ]]; then
        if awk -v v="$4" -v g="$3" -v op="$2" 'BEGIN { exit !(op == "<=" ? v <= g : v >= g) }'; then
            verdict="PASS ($(printf "$5" "$4"))"
        else
            verdict="FAIL ($(printf "$5" "$4"))"
        fi
    fi
    echo "Goal: $1 $2 $3: $verdict"
}
goal "gateway CPU per call / bare hop's" "<=" "$CPU_GOAL" "$cpu_ratio" %.2f
goal "added p50 ms" "<=" "$ADDED_P50_GOAL" "$added" %.3f
# Information, not a goal: on 2 shared cores it measures how three processes share them.
echo "throughput, gateway / direct: $(num "$kept" %.2f)"
[[ $status == 0 ]] || echo "some requests failed or a figure could not be measured; see $RESULTS"
exit "$status"
