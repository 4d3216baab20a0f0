#!/usr/bin/env bash
# Load benchmark of `a2a serve` against a bare axum handler with canned answers; see
# bench/README.md. One run builds everything in release, starts every server on a
# 127.0.0.1:0 port, measures, prints one table and stops everything.
# Exit status: 2 when the setup failed (no oha, build, a server that does not start),
# 1 when a figure could not be measured, 0 otherwise (goals missed or not).
set -euo pipefail
cd "$(dirname "$0")/.."

CONNECTIONS=${BENCH_CONNECTIONS:-64}      # SendMessage: oha connections
DURATION=${BENCH_DURATION:-10s}           # SendMessage: oha -z, per server and binding
WARMUP_REQUESTS=${BENCH_WARMUP:-2000}     # SendMessage: requests before each measured run
STREAM_SECONDS=${BENCH_STREAM_SECONDS:-5} # streams: how long, per server
STREAM_CONCURRENCY=${BENCH_STREAM_CONCURRENCY:-32}
STREAM_LINES=100                          # artifact events per stream
SUBSCRIBERS=${BENCH_SUBSCRIBERS:-1000}    # fan-out: subscribers of the one task
FANOUT_LINES=200                          # fan-out: the task prints a line every 10 ms, 2 s
FANOUT_EVERY_MS=10
FANOUT_DELAY_MS=${BENCH_FANOUT_DELAY_MS:-3000} # ... after 3 s, for every subscriber to join
MEMORY_TASKS=${BENCH_MEMORY_TASKS:-20000} # memory: tasks created between the two readings
RESULTS=${BENCH_RESULTS:-target/bench}    # raw results and server logs, kept after the run

NAME=bench
# shellcheck source=bench/lib.sh
source bench/lib.sh # the working directory is the workspace root (above)

OHA=${OHA:-$(command -v oha || true)}
[[ -n $OHA && -x $OHA ]] ||
    die "oha not found on PATH nor in \$OHA; install it with: cargo install oha --locked"

# Each subscriber holds a socket in the client and one in the server.
ulimit -n 8192 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
if [[ $(ulimit -n) != unlimited && $(ulimit -n) -lt $((SUBSCRIBERS + 256)) ]]; then
    warn "only $(ulimit -n) file descriptors; $SUBSCRIBERS subscribers may fail"
fi

build a2a bare lines streams fanout report
fresh_results
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

A2A=("$BIN/a2a" serve --bind 127.0.0.1:0 --no-auth --store memory --shutdown-grace 1000)
printf '%s' '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}}' \
    >"$RESULTS/body-jsonrpc.json"
printf '%s' '{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}' \
    >"$RESULTS/body-rest.json"

step "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); oha: $("$OHA" --version)"
start bare "$BIN/bare" --stream-lines "$STREAM_LINES" --fanout-lines "$FANOUT_LINES" \
    --fanout-every-ms "$FANOUT_EVERY_MS" --fanout-delay-ms "$FANOUT_DELAY_MS"
BARE_PID=$PID
BARE_URL=$URL

# 1. SendMessage at $CONNECTIONS connections. The echo server keeps at most 10 000 tasks
#    (finished ones are evicted past that), so its memory stays flat during the run.
start a2a-echo "${A2A[@]}" --agent echo --max-stored-tasks 10000
ECHO_PID=$PID
ECHO_URL=$URL
for binding in jsonrpc rest; do
    path=/
    [[ $binding == rest ]] && path=/message:send
    for side in bare a2a; do
        url=$BARE_URL
        [[ $side == a2a ]] && url=$ECHO_URL
        step "SendMessage $binding on $side: $DURATION at $CONNECTIONS connections"
        load "$RESULTS/warmup.json" "$url$path" "$RESULTS/body-$binding.json" \
            -c "$CONNECTIONS" -n "$WARMUP_REQUESTS"
        load "$RESULTS/sm-$binding-$side.json" "$url$path" "$RESULTS/body-$binding.json" \
            -c "$CONNECTIONS" -z "$DURATION"
    done
done
stop "$ECHO_PID"

# 2. Streams of $STREAM_LINES artifact events: SendStreamingMessage to the exec agent running
#    `lines`, which prints exactly that many lines.
start a2a-exec "${A2A[@]}" --agent exec --max-stored-tasks 10000 -- \
    "$BIN/lines" --count "$STREAM_LINES"
EXEC_PID=$PID
EXEC_URL=$URL
for side in bare a2a; do
    url=$BARE_URL
    [[ $side == a2a ]] && url=$EXEC_URL
    step "streams on $side: ${STREAM_SECONDS}s, $STREAM_CONCURRENCY at a time"
    "$BIN/streams" --url "$url/" --concurrency "$STREAM_CONCURRENCY" --seconds "$STREAM_SECONDS" \
        --out "$RESULTS/streams-$side.json" 2>>"$RESULTS/clients.log" ||
        warn "the stream client failed on $side (see $RESULTS/clients.log)"
done
stop "$EXEC_PID"

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

step "done; raw results in $RESULTS"
echo
status=0
"$BIN/report" --dir "$RESULTS" --connections "$CONNECTIONS" || status=$?
exit "$status"
