# Shared by the bench scripts (sourced): starting a server and reading sendload's summaries.
# The sourcing script defines `die MESSAGE` and RESULTS (a directory), and stops the PIDS
# (an array) in its cleanup.

# start NAME COMMAND...: starts a server in the background and waits for its
# `listening on http://ADDR` line; sets PID and URL and adds PID to PIDS. Its stdout and
# stderr go to $RESULTS/NAME.out and NAME.log.
start() {
    local name=$1
    shift
    "$@" >"$RESULTS/$name.out" 2>"$RESULTS/$name.log" &
    PID=$!
    PIDS+=("$PID")
    local _
    for _ in $(seq 100); do
        URL=$(sed -n 's|^listening on \(http://[^ ]*\)$|\1|p' "$RESULTS/$name.out")
        [[ -n $URL ]] && return 0
        if ! kill -0 "$PID" 2>/dev/null; then
            cat "$RESULTS/$name.log" >&2
            die "$name exited at start-up: $*"
        fi
        sleep 0.1
    done
    die "$name did not print its address within 10 s"
}

# field FILE KEY: a number from sendload's summary (one `"key": value` per line).
field() {
    sed -n "s/^ *\"$2\": *\\([-0-9.eE+]*\\),\\{0,1\\}$/\\1/p" "$1" | head -n 1
}
