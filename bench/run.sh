#!/usr/bin/env bash
# Load benchmark of `a2a serve` against a bare axum handler with canned answers; see
# bench/README.md. One run builds everything in release, starts every server on a
# 127.0.0.1:0 port, measures, prints one table and the goal lines, and stops everything.
# BENCH_ALL=1 also runs auth.sh, stores.sh and gateway.sh and collects their goal lines, and
# measures the scale figures; BENCH_SCALE=1 measures the scale figures alone on top.
# Exit status: 2 when the setup failed (no oha, build, a server that does not start),
# 1 when a figure could not be measured (or a script run with BENCH_ALL failed), 0
# otherwise (goals missed or not).
set -euo pipefail
cd "$(dirname "$0")/.."

CONNECTIONS=${BENCH_CONNECTIONS:-64}      # SendMessage: oha connections
DURATION=${BENCH_DURATION:-10s}           # SendMessage: oha -z, per server and binding
WARMUP_REQUESTS=${BENCH_WARMUP:-2000}     # SendMessage: requests before each measured run
STREAM_SECONDS=${BENCH_STREAM_SECONDS:-5} # streams: how long, per server and length
STREAM_CONCURRENCY=${BENCH_STREAM_CONCURRENCY:-32}
STREAM_WORDS=100                          # streams: artifact chunks (words) per stream
SHORT_WORDS=10                            # per-chunk cost: the short stream ...
LONG_WORDS=1000                           # ... and the long one
SUBSCRIBERS=${BENCH_SUBSCRIBERS:-1000}    # fan-out: subscribers of the one task
FANOUT_LINES=200                          # fan-out: the task prints a line every 10 ms, 2 s
FANOUT_EVERY_MS=10
FANOUT_DELAY_MS=${BENCH_FANOUT_DELAY_MS:-3000} # ... after 3 s, for every subscriber to join
MEMORY_TASKS=${BENCH_MEMORY_TASKS:-20000} # memory: tasks created between the two readings
ALL=${BENCH_ALL:-0}                       # 1: also auth.sh, stores.sh, gateway.sh, scale
SCALE=${BENCH_SCALE:-$ALL}                # 1: the scale figures
SCALE_SUBSCRIBERS=${BENCH_SCALE_SUBSCRIBERS:-10000} # scale: SSE subscribers of one task
SCALE_DELAY_MS=${BENCH_SCALE_DELAY_MS:-15000} # ... the task's quiet time, for all to join
SCALE_TASKS=${BENCH_SCALE_TASKS:-1000000} # scale: idle completed tasks kept in memory
RESULTS=${BENCH_RESULTS:-target/bench}    # raw results and server logs, kept after the run

NAME=bench
# shellcheck source=bench/lib.sh
source bench/lib.sh # the working directory is the workspace root (above)

[[ $ALL == 0 || $ALL == 1 ]] || die "BENCH_ALL must be 0 or 1"
[[ $SCALE == 0 || $SCALE == 1 ]] || die "BENCH_SCALE must be 0 or 1"

OHA=${OHA:-$(command -v oha || true)}
[[ -n $OHA && -x $OHA ]] ||
    die "oha not found on PATH nor in \$OHA; install it with: cargo install oha --locked"

# Each subscriber holds a socket in the client and one in the server (each process has its
# own limit).
wanted_fds=$((SUBSCRIBERS + 256))
((SCALE == 1)) && wanted_fds=$((SCALE_SUBSCRIBERS + 256))
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
if [[ $(ulimit -n) != unlimited && $(ulimit -n) -lt $wanted_fds ]]; then
    warn "only $(ulimit -n) file descriptors; $((wanted_fds - 256)) subscribers may fail"
fi

build a2a bare lines streams fanout report
fresh_results
TICKS_PER_S=$(getconf CLK_TCK)
trap stop_all EXIT

# load OUT URL BODY OHA_ARGS...: one oha run, POSTing the file BODY, JSON result in OUT.
load() {
    local out=$1 url=$2 body=$3
    shift 3
    "$OHA" --no-tui -m POST -H 'A2A-Version: 1.0' -T application/json -D "$body" \
        --output-format json -o "$out" "$@" "$url" >/dev/null 2>"$out.err" ||
        warn "oha failed on $url (see $out.err)"
}

rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

# with_cpu RUN PID COMMAND...: runs COMMAND and writes the CPU time (user + system, seconds)
# the server PID spent meanwhile to RUN.cpu; returns COMMAND's status.
with_cpu() {
    local run=$1 pid=$2 before after rc=0
    shift 2
    before=$(cpu_ticks "$pid")
    "$@" || rc=$?
    after=$(cpu_ticks "$pid")
    awk -v c=$((after - before)) -v t="$TICKS_PER_S" 'BEGIN { printf "%.3f\n", c / t }' \
        >"$RESULTS/$run.cpu"
    return "$rc"
}

A2A=("$BIN/a2a" serve --bind 127.0.0.1:0 --no-auth --store memory --shutdown-grace 1000)
printf '%s' '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}}' \
    >"$RESULTS/body-jsonrpc.json"
printf '%s' '{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}' \
    >"$RESULTS/body-rest.json"

step "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); oha: $("$OHA" --version)"
start bare "$BIN/bare" --stream-words "$STREAM_WORDS,$SHORT_WORDS,$LONG_WORDS" \
    --fanout-lines "$FANOUT_LINES" \
    --fanout-every-ms "$FANOUT_EVERY_MS" --fanout-delay-ms "$FANOUT_DELAY_MS"
BARE_PID=$PID
BARE_URL=$URL

# 1. SendMessage at $CONNECTIONS connections, with each server's CPU time during the
#    measured run. The echo server keeps at most 10 000 tasks (finished ones are evicted
#    past that), so its memory stays flat during the run.
start a2a-echo "${A2A[@]}" --agent echo --max-stored-tasks 10000
ECHO_PID=$PID
ECHO_URL=$URL
for binding in jsonrpc rest; do
    path=/
    [[ $binding == rest ]] && path=/message:send
    for side in bare a2a; do
        url=$BARE_URL pid=$BARE_PID
        [[ $side == a2a ]] && url=$ECHO_URL pid=$ECHO_PID
        step "SendMessage $binding on $side: $DURATION at $CONNECTIONS connections"
        load "$RESULTS/warmup.json" "$url$path" "$RESULTS/body-$binding.json" \
            -c "$CONNECTIONS" -n "$WARMUP_REQUESTS"
        with_cpu "sm-$binding-$side" "$pid" load "$RESULTS/sm-$binding-$side.json" "$url$path" \
            "$RESULTS/body-$binding.json" -c "$CONNECTIONS" -z "$DURATION"
    done
done
stop "$ECHO_PID"

# 2. Streams: SendStreamingMessage to the echo agent, which answers a message of N words
#    with N artifact chunks (N + 2 events with the submitted task and COMPLETED), with each
#    server's CPU time during the client's run (warm-up included). Then the per-chunk cost:
#    the same on a2a with short and long messages. Every chunk is produced at once, so the
#    SSE queue is made large enough for a whole long stream: no stream is cut for falling
#    behind.
start a2a-stream "${A2A[@]}" --agent echo --max-stored-tasks 10000 \
    --sse-queue-capacity $((LONG_WORDS * 4))
STREAM_PID=$PID
STREAM_URL=$URL
# streams RUN PID URL WORDS: one run of the stream client, its summary in RUN.json.
streams() {
    local run=$1 pid=$2 url=$3 words=$4
    with_cpu "$run" "$pid" "$BIN/streams" --url "$url/" --words "$words" \
        --concurrency "$STREAM_CONCURRENCY" --seconds "$STREAM_SECONDS" \
        --out "$RESULTS/$run.json" 2>>"$RESULTS/clients.log" ||
        warn "the stream client failed on $run (see $RESULTS/clients.log)"
}
for side in bare a2a; do
    url=$BARE_URL pid=$BARE_PID
    [[ $side == a2a ]] && url=$STREAM_URL pid=$STREAM_PID
    step "streams of $STREAM_WORDS chunks on $side: ${STREAM_SECONDS}s, $STREAM_CONCURRENCY at a time"
    streams "streams-$side" "$pid" "$url" "$STREAM_WORDS"
done
for length in short long; do
    words=$SHORT_WORDS
    [[ $length == long ]] && words=$LONG_WORDS
    step "streams of $words chunks on a2a: ${STREAM_SECONDS}s, $STREAM_CONCURRENCY at a time"
    streams "streams-a2a-$length" "$STREAM_PID" "$STREAM_URL" "$words"
done
stop "$STREAM_PID"

# 3. Fan-out: one task printing a line every $FANOUT_EVERY_MS ms, $SUBSCRIBERS subscribers.
start a2a-fanout "${A2A[@]}" --agent exec -- "$BIN/lines" --count "$FANOUT_LINES" \
    --every-ms "$FANOUT_EVERY_MS" --delay-ms "$FANOUT_DELAY_MS"
FANOUT_PID=$PID
FANOUT_URL=$URL
for side in bare a2a; do
    url=$BARE_URL
    [[ $side == a2a ]] && url=$FANOUT_URL
    step "fan-out on $side: $SUBSCRIBERS subscribers"
    "$BIN/fanout" --url "$url" --subscribers "$SUBSCRIBERS" \
        --out "$RESULTS/fanout-$side.json" 2>>"$RESULTS/clients.log" ||
        warn "the fan-out client failed on $side (see $RESULTS/clients.log)"
done
stop "$FANOUT_PID"
stop "$BARE_PID"

# 4. Resident memory per stored idle task: nothing is evicted (no cap, no TTL). The reading
#    before is taken after a warm-up at the same concurrency, so connection buffers and
#    allocator pools are already counted out.
start a2a-memory "${A2A[@]}" --agent echo --max-stored-tasks 0 --completed-task-ttl 0
MEMORY_PID=$PID
step "memory: $MEMORY_TASKS tasks"
load "$RESULTS/warmup.json" "$URL/" "$RESULTS/body-jsonrpc.json" -c 16 -n "$WARMUP_REQUESTS"
sleep 1
before=$(rss_kib "$MEMORY_PID")
load "$RESULTS/memory-oha.json" "$URL/" "$RESULTS/body-jsonrpc.json" -c 16 -n "$MEMORY_TASKS"
sleep 1
after=$(rss_kib "$MEMORY_PID")
printf '{"tasks":%d,"before_kib":%d,"after_kib":%d}\n' "$MEMORY_TASKS" "$before" "$after" \
    >"$RESULTS/memory.json"
stop "$MEMORY_PID"

# 5. Scale (BENCH_SCALE=1): resident memory with $SCALE_SUBSCRIBERS SSE subscribers of one
#    task (read by the client when the last one is in), and with $SCALE_TASKS idle completed
#    tasks (as in 4).
if ((SCALE == 1)); then
    start a2a-scale-subscribers "${A2A[@]}" --agent exec -- "$BIN/lines" --count 10 \
        --every-ms 100 --delay-ms "$SCALE_DELAY_MS"
    step "scale: $SCALE_SUBSCRIBERS subscribers"
    "$BIN/fanout" --url "$URL" --subscribers "$SCALE_SUBSCRIBERS" --server-pid "$PID" \
        --timeout-s $((SCALE_DELAY_MS / 1000 + 120)) --out "$RESULTS/scale-subscribers.json" \
        2>>"$RESULTS/clients.log" ||
        warn "the fan-out client failed with $SCALE_SUBSCRIBERS subscribers (see $RESULTS/clients.log)"
    stop "$PID"

    start a2a-scale-tasks "${A2A[@]}" --agent echo --max-stored-tasks 0 --completed-task-ttl 0
    SCALE_PID=$PID
    step "scale: $SCALE_TASKS tasks (a minute or more)"
    load "$RESULTS/warmup.json" "$URL/" "$RESULTS/body-jsonrpc.json" -c 16 -n "$WARMUP_REQUESTS"
    sleep 1
    before=$(rss_kib "$SCALE_PID")
    load "$RESULTS/scale-tasks-oha.json" "$URL/" "$RESULTS/body-jsonrpc.json" -c "$CONNECTIONS" \
        -n "$SCALE_TASKS"
    sleep 1
    after=$(rss_kib "$SCALE_PID")
    printf '{"tasks":%d,"before_kib":%d,"after_kib":%d}\n' "$SCALE_TASKS" "$before" "$after" \
        >"$RESULTS/scale-tasks.json"
    stop "$SCALE_PID"
fi

status=0
# 6. The other benchmarks (BENCH_ALL=1), each with its results in a folder of $RESULTS, its
#    output on stderr and in NAME.txt, and its goal lines in goals-NAME.txt.
# collect NAME: runs bench/NAME.sh and keeps its goal lines, in the common form.
collect() {
    local name=$1 rc=0
    step "bench/$name.sh"
    BENCH_RESULTS="$RESULTS/$name" bash "bench/$name.sh" 2>&1 | tee "$RESULTS/$name.txt" >&2 ||
        rc=$?
    if ((rc != 0)); then
        warn "bench/$name.sh exited with status $rc (see $RESULTS/$name.txt)"
        status=1
    fi
    # The common form; older scripts said `met (x)`, `NOT met (x)`, `not measured`.
    sed -nE '/^Goal: /{
        s/: met (\([^()]*\))$/: PASS \1/
        s/: NOT met (\([^()]*\))$/: FAIL \1/
        s/: not measured$/: ERROR/
        p
    }' "$RESULTS/$name.txt" >"$RESULTS/goals-$name.txt"
}
# store_goal LABEL STORE TARGET: a goal line from stores.sh's table (`STORE tasks/s ...`),
# unless stores.sh printed a goal line naming LABEL itself.
store_goal() {
    local label=$1 store=$2 target=$3 rate verdict
    grep -qi "^Goal: .*$label" "$RESULTS/goals-stores.txt" && return 0
    rate=$(awk -v s="$store" '$1 == s && $2 ~ /^[0-9.]+$/ { print $2 }' "$RESULTS/stores.txt")
    if [[ -z $rate ]]; then
        verdict=ERROR
    elif awk -v r="$rate" -v g="$target" 'BEGIN { exit !(r >= g) }'; then
        verdict="PASS ($rate)"
    else
        verdict="FAIL ($rate)"
    fi
    echo "Goal: $label store completed tasks/s >= $target: $verdict" >>"$RESULTS/goals-stores.txt"
}
if ((ALL == 1)); then
    collect auth
    [[ -s $RESULTS/goals-auth.txt ]] ||
        echo "Goal: authentication costs (bench/auth.sh): ERROR" >"$RESULTS/goals-auth.txt"
    collect stores
    store_goal SQLite sqlite 10000
    store_goal PostgreSQL postgres 5000
    collect gateway
    [[ -s $RESULTS/goals-gateway.txt ]] ||
        echo "Goal: gateway costs (bench/gateway.sh): ERROR" >"$RESULTS/goals-gateway.txt"
fi

step "done; raw results in $RESULTS"
echo
scale=()
((SCALE == 1)) && scale=(--scale)
"$BIN/report" --dir "$RESULTS" --connections "$CONNECTIONS" \
    --stream-words "$STREAM_WORDS,$SHORT_WORDS,$LONG_WORDS" "${scale[@]}" || status=1
exit "$status"
