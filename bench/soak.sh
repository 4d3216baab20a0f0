#!/usr/bin/env bash
# Soak: `a2a serve --agent conformance` on SQLite and on PostgreSQL at once, each under a
# steady mix of sends, streams, subscriptions, lists and push deliveries at half the rate
# it sustains, for SOAK_MINUTES; see bench/README.md. Not run by CI.
# One run builds in release, starts one server per store on a 127.0.0.1:0 port (a fresh
# SQLite file, a fresh PostgreSQL database), measures each one's capacity with `soak` in
# closed loop (both at once, as they soak), then runs `soak` against both at half of it; every
# SOAK_SAMPLE_S the driver samples the server (VmRSS, open descriptors, store size) and
# its own counts into $RESULTS/<store>.csv. At the end it prints a table and the goal
# lines, and draws bench/soak.png (python3 and matplotlib, in a venv under target/).
# Exit status: 2 when the setup failed (build, database, a server that does not start),
# 1 when a store could not be measured (the driver failed) or an operation failed,
# 0 otherwise, whether the goals are met or not.
set -euo pipefail
cd "$(dirname "$0")/.."

MINUTES=${SOAK_MINUTES:-60}                   # the soak, per store (both run at once)
RATE=${SOAK_RATE:-}                           # operations/s per server; empty: half the capacity
CALIBRATE_SECONDS=${SOAK_CALIBRATE_SECONDS:-20} # the capacity measurement, per store
CONCURRENCY=${SOAK_CONCURRENCY:-64}           # operations in flight while calibrating
SAMPLE_S=${SOAK_SAMPLE_S:-30}                 # seconds between two samples
TASK_TTL=${SOAK_TASK_TTL:-5m}                 # finished tasks are deleted after this
STORES=${SOAK_STORES:-"sqlite postgres"}
# A database the PostgreSQL user can connect to, to create and drop the soak's own.
PG_ADMIN_URL=${BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/test}
RESULTS=${SOAK_RESULTS:-target/bench/soak} # samples, summaries and server logs, kept after the run
PLOT=${SOAK_PLOT:-bench/soak.png}
VENV=${SOAK_VENV:-target/soak-venv} # python3 with matplotlib, made once
RSS_GOAL=5                          # % growth over the window
P99_FACTOR=1.5                      # worst sixth's median p99 over the best one's (after the first)

NAME=soak
# shellcheck source=bench/lib.sh
source bench/lib.sh # the working directory is the workspace root (above)

for store in $STORES; do
    case $store in
    sqlite | postgres) ;;
    *) die "unknown store in SOAK_STORES: $store (sqlite, postgres)" ;;
    esac
done
[[ $MINUTES =~ ^[0-9]+([.][0-9]+)?$ ]] || die "SOAK_MINUTES is not a number: $MINUTES"
[[ -z $RATE || $RATE =~ ^[0-9]+([.][0-9]+)?$ ]] || die "SOAK_RATE is not a number: $RATE"

build a2a soak
"$BIN/a2a" serve --help | grep -q -- '--allow-local-webhooks' ||
    die "this a2a serve has no --allow-local-webhooks flag"

fresh_results
PLOT=$(cd "$(dirname "$PLOT")" && pwd)/$(basename "$PLOT")
DRIVERS=()

cleanup() {
    local pid
    for pid in "${DRIVERS[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    stop_all
    drop_postgres
}
trap cleanup EXIT

# The plot's python, made before the load so that pip does not run beside it.
python=""
if [[ -x $VENV/bin/python ]] && "$VENV/bin/python" -c 'import matplotlib' 2>/dev/null; then
    python=$VENV/bin/python
else
    step "making $VENV with matplotlib, for the plot"
    if python3 -m venv "$VENV" >"$RESULTS/venv.log" 2>&1 &&
        "$VENV/bin/pip" install --quiet matplotlib >>"$RESULTS/venv.log" 2>&1; then
        python=$VENV/bin/python
    else
        warn "no matplotlib (see $RESULTS/venv.log): there will be no plot"
    fi
fi

# A fresh PostgreSQL database, dropped on exit.
if [[ " $STORES " == *" postgres "* ]]; then
    fresh_postgres a2a_soak
fi

store_url() {
    case $1 in
    sqlite) echo "sqlite://$RESULTS/a2a.db" ;;
    postgres) echo "$PG_URL" ;;
    esac
}

# store_size STORE: a shell command printing the store's size in bytes (SQLite: the file
# with its -wal and -shm; PostgreSQL: the soak's database).
store_size() {
    case $1 in
    sqlite) echo "stat -c %s '$RESULTS/a2a.db' '$RESULTS/a2a.db-wal' '$RESULTS/a2a.db-shm' 2>/dev/null | awk '{ s += \$1 } END { print s + 0 }'" ;;
    postgres) echo "psql '$PG_URL' -qAt -c 'select pg_database_size(current_database())'" ;;
    esac
}

ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
step "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A SERVER
for store in $STORES; do
    start "server-$store" "$BIN/a2a" serve --bind 127.0.0.1:0 --no-auth --agent conformance \
        --store "$(store_url "$store")" --push-notifications --allow-local-webhooks \
        --completed-task-ttl "$TASK_TTL" --log-level warn --shutdown-grace 1000
    SERVER[$store]="$PID $URL"
done

# The capacity of each store, both at once as in the soak (each beside the other), unless
# SOAK_RATE gives the rate.
declare -A RATE_OF
if [[ -n $RATE ]]; then
    for store in $STORES; do RATE_OF[$store]=$RATE; done
else
    step "${STORES// / and }: ${CALIBRATE_SECONDS}s at $CONCURRENCY operations in flight each, at once, for their capacity"
    declare -A CALIBRATION_OF
    for store in $STORES; do
        read -r pid url <<<"${SERVER[$store]}"
        "$BIN/soak" --url "$url/" --rate 0 --concurrency "$CONCURRENCY" \
            --seconds "$CALIBRATE_SECONDS" --sample-s "$CALIBRATE_SECONDS" \
            --samples "$RESULTS/$store-calibration.jsonl" \
            --out "$RESULTS/$store-calibration.json" 2>"$RESULTS/$store-calibration.log" &
        DRIVERS+=("$!")
        CALIBRATION_OF[$store]=$!
    done
    for store in $STORES; do
        wait "${CALIBRATION_OF[$store]}" ||
            die "the calibration of $store failed (see $RESULTS/$store-calibration.log)"
    done
    DRIVERS=()
    for store in $STORES; do
        capacity=$(field "$RESULTS/$store-calibration.json" ops_per_s)
        [[ $(field "$RESULTS/$store-calibration.json" errors) == 0 ]] ||
            warn "$store: operations failed while calibrating (see $RESULTS/$store-calibration.log)"
        RATE_OF[$store]=$(awk -v c="$capacity" 'BEGIN { r = int(c / 2); print (r < 1 ? 1 : r) }')
        step "$store: $(num "$capacity" %.0f) operations/s at most; the soak runs at ${RATE_OF[$store]}/s"
    done
fi

seconds=$(awk -v m="$MINUTES" 'BEGIN { print m * 60 }')
step "soaking ${STORES// / and } for $MINUTES min (until $(date -u -d "+$seconds seconds" +%H:%M) UTC)"
declare -A DRIVER_OF
for store in $STORES; do
    read -r pid url <<<"${SERVER[$store]}"
    "$BIN/soak" --url "$url/" --rate "${RATE_OF[$store]}" --seconds "$seconds" \
        --sample-s "$SAMPLE_S" --server-pid "$pid" --store-size "$(store_size "$store")" \
        --samples "$RESULTS/$store.jsonl" --csv "$RESULTS/$store.csv" \
        --out "$RESULTS/$store.json" 2>"$RESULTS/$store-soak.log" &
    DRIVERS+=("$!")
    DRIVER_OF[$store]=$!
done
status=0
for store in $STORES; do
    if ! wait "${DRIVER_OF[$store]}"; then
        warn "the driver failed on $store (see $RESULTS/$store-soak.log)"
        rm -f "$RESULTS/$store.json"
        status=1
    fi
done
DRIVERS=()
stop_all

# The windows: RSS growth over the last 40 min (the last 2/3 of a shorter run); p99 in each
# sixth of the run after the first (the warm-up), the worst against the best.
window=$(awk -v s="$seconds" 'BEGIN { w = 2 * s / 3; print (w > 2400 ? 2400 : w) }')
window_label=$(awk -v w="$window" 'BEGIN { printf "%g min", w / 60 }')
sixth_label=$(awk -v s="$seconds" 'BEGIN { printf "%g min", s / 360 }')

# figures CSV: the run's figures from a store's samples, one `key=value` a line (empty
# values when there are no samples): RSS (KiB) and descriptors at the first sample and at
# the last one of the run, RSS at the start of the growth window, store size, and, of the
# medians of the interval p99s in each sixth of the run after the first (the warm-up), the
# lowest and the highest.
figures() {
    awk -F, -v run="$seconds" -v window="$window" '
        function median(list, n,    i, j, t) {
            for (i = 2; i <= n; i++)
                for (j = i; j > 1 && list[j - 1] > list[j]; j--) { t = list[j]; list[j] = list[j - 1]; list[j - 1] = t }
            return n == 0 ? "" : (n % 2 ? list[(n + 1) / 2] : (list[n / 2] + list[n / 2 + 1]) / 2)
        }
        NR == 1 { next }
        $1 > run + 1 { next }
        {
            if (!seen++) { rss_first = $10; fds_first = $11; size_first = $12 }
            rss_last = $10; fds_last = $11; size_last = $12
            if (fds_max == "" || $11 > fds_max) fds_max = $11
            if (size_max == "" || $12 > size_max) size_max = $12
            if (rss_window == "" && $1 >= run - window) rss_window = $10
            sixth = int(($1 - 1) * 6 / run); if (sixth > 5) sixth = 5
            if (sixth >= 1) { n[sixth]++; p99[sixth, n[sixth]] = $5 }
        }
        END {
            print "rss_first=" rss_first; print "rss_window=" rss_window; print "rss_last=" rss_last
            print "fds_first=" fds_first; print "fds_last=" fds_last; print "fds_max=" fds_max
            print "size_first=" size_first; print "size_last=" size_last; print "size_max=" size_max
            best = ""; worst = ""
            for (k = 1; k <= 5; k++) {
                if (!n[k]) continue
                delete list
                for (i = 1; i <= n[k]; i++) list[i] = p99[k, i]
                m = median(list, n[k])
                if (best == "" || m < best) best = m
                if (worst == "" || m > worst) worst = m
            }
            print "p99_best=" best; print "p99_worst=" worst
        }' "$1"
}

# goal TEXT PASSED VALUE: one goal line; VALUE empty makes it an ERROR.
goal() {
    if [[ -z $3 ]]; then
        printf 'Goal: %s: ERROR\n' "$1"
    elif [[ $2 == 1 ]]; then
        printf 'Goal: %s: PASS (%s)\n' "$1" "$3"
    else
        printf 'Goal: %s: FAIL (%s)\n' "$1" "$3"
    fi
}

echo
printf '%-9s %7s %10s %7s %7s %9s %9s %7s %9s %9s %9s %9s\n' store 'ops/s' operations errors \
    pushes 'RSS MiB' '->  MiB' growth fds 'store MiB' 'p99 best' 'worst'
GOALS=()
for store in $STORES; do
    summary=$RESULTS/$store.json
    csv=$RESULTS/$store.csv
    if [[ ! -f $summary || ! -f $csv ]]; then
        printf '%-9s %7s\n' "$store" -
        GOALS+=("$(goal "$store RSS growth over the last $window_label <= $RSS_GOAL%" 0 "")")
        GOALS+=("$(goal "$store errors == 0" 0 "")")
        GOALS+=("$(goal "$store p99 steady" 0 "")")
        status=1
        continue
    fi
    declare -A f=()
    while IFS='=' read -r key value; do f[$key]=$value; done < <(figures "$csv")
    errors=$(field "$summary" errors)
    [[ $errors == 0 ]] || status=1
    growth=$(awk -v a="${f[rss_window]}" -v b="${f[rss_last]}" \
        'BEGIN { if (a > 0 && b != "") printf "%.2f", (b - a) / a * 100 }')
    p99_ratio=$(ratio "${f[p99_worst]}" "${f[p99_best]}")
    printf '%-9s %7.0f %10s %7s %7s %9s %9s %7s %9s %9s %9s %9s\n' "$store" \
        "$(field "$summary" ops_per_s)" "$(field "$summary" requests)" "$errors" \
        "$(field "$summary" pushes)" \
        "$(num "$(ratio "${f[rss_first]}" 1024)" %.1f)" "$(num "$(ratio "${f[rss_last]}" 1024)" %.1f)" \
        "$(num "$growth" %s%%)" "${f[fds_first]:--}->${f[fds_last]:--}" \
        "$(num "$(ratio "${f[size_last]}" 1048576)" %.1f)" \
        "$(num "${f[p99_best]}" %.2f)" "$(num "${f[p99_worst]}" %.2f)"
    passed=$(awk -v g="$growth" -v goal="$RSS_GOAL" 'BEGIN { print (g != "" && g <= goal) }')
    GOALS+=("$(goal "$store RSS growth over the last $window_label <= $RSS_GOAL%" "$passed" \
        "$(num "$growth" %s%%)")")
    GOALS+=("$(goal "$store errors == 0" "$([[ $errors == 0 ]] && echo 1)" "$errors")")
    passed=$(awk -v r="$p99_ratio" -v k="$P99_FACTOR" 'BEGIN { print (r != "" && r <= k) }')
    value=""
    [[ -n $p99_ratio ]] && value=$(printf 'worst %.2f ms / best %.2f ms = %.2fx' \
        "${f[p99_worst]}" "${f[p99_best]}" "$p99_ratio")
    GOALS+=("$(goal "$store p99 steady (each $sixth_label after a $sixth_label warm-up <= ${P99_FACTOR}x the best)" \
        "$passed" "$value")")
    unset f
done
echo
printf '%s\n' "${GOALS[@]}"

if [[ -n $python ]]; then
    csvs=()
    for store in $STORES; do [[ -f $RESULTS/$store.csv ]] && csvs+=("$store=$RESULTS/$store.csv"); done
    if [[ ${#csvs[@]} -gt 0 ]] && "$python" bench/soak_plot.py "$PLOT" "${csvs[@]}" \
        2>"$RESULTS/plot.log"; then
        step "the plot is in $PLOT"
    else
        warn "the plot failed (see $RESULTS/plot.log)"
    fi
fi
[[ $status == 0 ]] || echo "some operations failed or a store could not be measured; see $RESULTS"
exit "$status"
