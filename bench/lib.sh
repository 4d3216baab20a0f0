# Shared by the bench scripts (sourced): messages, the release build, the results folder,
# starting and stopping servers, reading the clients' summaries, and arithmetic on figures. The sourcing script sets
# NAME (its name in messages) and RESULTS (a folder), and calls stop_all in its cleanup.

# die MESSAGE: the setup failed; exit status 2.
die() {
    echo "$NAME: $*" >&2
    exit 2
}
warn() { echo "$NAME: warning: $*" >&2; }
step() { echo "$NAME: $*" >&2; }

# build BINARY...: builds a2a and the bench binaries in release, sets BIN to their folder,
# and dies unless every BINARY is there.
build() {
    step "building a2a and the bench binaries (release)"
    cargo build --release --quiet -p a2a-cli -p a2a-bench || die "the build failed"
    BIN=$(cd "${CARGO_TARGET_DIR:-target}/release" && pwd)
    local binary
    for binary in "$@"; do
        [[ -x $BIN/$binary ]] || die "$BIN/$binary was not built"
    done
}

# fresh_results: RESULTS emptied, and made absolute.
fresh_results() {
    rm -rf "$RESULTS"
    mkdir -p "$RESULTS"
    RESULTS=$(cd "$RESULTS" && pwd)
}

# The PostgreSQL database made by fresh_postgres, and its URL; drop_postgres drops it.
PG_DATABASE=""
PG_URL=""

# fresh_postgres PREFIX: creates a database named PREFIX_<time>_<pid> through PG_ADMIN_URL and
# sets PG_URL to it (the admin URL with its database replaced); dies if it cannot.
fresh_postgres() {
    command -v psql >/dev/null || die "psql not found (needed to create the PostgreSQL database)"
    PG_DATABASE="$1_$(date +%s)_$$"
    psql "$PG_ADMIN_URL" -qAt -v ON_ERROR_STOP=1 -c "create database $PG_DATABASE" \
        >/dev/null 2>"$RESULTS/psql.log" || {
        cat "$RESULTS/psql.log" >&2
        PG_DATABASE=""
        die "cannot create a database through $PG_ADMIN_URL (set BENCH_POSTGRES_URL)"
    }
    local base=${PG_ADMIN_URL%%\?*} query=""
    [[ $PG_ADMIN_URL == *\?* ]] && query="?${PG_ADMIN_URL#*\?}"
    PG_URL="${base%/*}/$PG_DATABASE$query"
}

# drop_postgres: drops the database fresh_postgres made, if any (for the cleanup).
drop_postgres() {
    if [[ -n $PG_DATABASE ]]; then
        psql "$PG_ADMIN_URL" -qAt -c "drop database if exists $PG_DATABASE with (force)" \
            >/dev/null 2>&1 || warn "could not drop the database $PG_DATABASE"
    fi
}

# The servers started and not stopped yet, in the order they started.
PIDS=()

# start NAME COMMAND...: starts a server in the background and waits for its
# `listening on http://ADDR` line; sets PID and URL and adds PID to PIDS. Its stdout and
# stderr go to $RESULTS/NAME.out and NAME.log.
start() {
    local name=$1
    shift
    # Made here, not only by the redirections: the background job may open them after the
    # first read below.
    : >"$RESULTS/$name.out"
    : >"$RESULTS/$name.log"
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

# stop PID: SIGTERM, then wait for it; it leaves PIDS.
stop() {
    kill -TERM "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
    local kept=() pid
    for pid in "${PIDS[@]}"; do
        [[ $pid == "$1" ]] || kept+=("$pid")
    done
    PIDS=("${kept[@]}")
}

# stop_all: stops every server in PIDS, the last started first (an agent deregisters from
# its gateway before the gateway stops).
stop_all() {
    local i
    for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
        kill -TERM "${PIDS[i]}" 2>/dev/null || true
        wait "${PIDS[i]}" 2>/dev/null || true
    done
    PIDS=()
}

# cpu_ticks PID: user + system CPU time of the process so far (its threads, not its
# children), in clock ticks (`getconf CLK_TCK` a second).
cpu_ticks() {
    awk '{ print $14 + $15 }' "/proc/$1/stat"
}

# field FILE KEY: a number from a client's summary (sendload, grpcload: one `"key": value`
# per line).
field() {
    sed -n "s/^ *\"$2\": *\\([-0-9.eE+]*\\),\\{0,1\\}$/\\1/p" "$1" | head -n 1
}

# median VALUE...: the median (the mean of the middle two for an even count).
median() {
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
        END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# num VALUE FORMAT: VALUE printed with FORMAT, or `-` when there is none.
num() {
    if [[ -n $1 ]]; then printf "$2" "$1"; else printf -- -; fi
}

# minus A B / ratio A B: A - B, A / B, or empty when either is missing.
minus() { [[ -n $1 && -n $2 ]] && awk -v a="$1" -v b="$2" 'BEGIN { print a - b }' || true; }
ratio() { [[ -n $1 && -n $2 ]] && awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) print a / b }' || true; }
