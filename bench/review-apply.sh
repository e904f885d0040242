#!/usr/bin/env bash
# `apply` and `apply --undo` of a review with 1,000 changed files (issue 27's
# goal: under a second each), on a review's on-disk state built here as a
# review session leaves it (docs/review-apply.md): no session, no network.
# Each round: 800 files edited, 100 added, 100 deleted, in 10 directories
# of a 10,000-file tree; the median, lowest and highest over the rounds.
#
#   bench/review-apply.sh     (as the rootless user, after `make`)
# Environment: AGENT_SANDBOX_BIN, BENCH_RUNS (rounds, default 10),
# BENCH_ROOT (scratch directory, default ~/as-bench).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${AGENT_SANDBOX_BIN:-$top/build/agent-sandbox}
runs=${BENCH_RUNS:-10}
root=${BENCH_ROOT:-$HOME/as-bench}/review-apply
id=0123456789ab
rm -rf "$root"
mkdir -p "$root/config" "$root/state"
# the benchmark's own config and state, never the user's
export XDG_CONFIG_HOME=$root/config XDG_STATE_HOME=$root/state
review=$XDG_STATE_HOME/agent-sandbox/reviews/$id

make_round() {
    rm -rf "$root/tree" "$review"
    mkdir -p "$root/tree" "$review/upper" "$review/work"
    local d f
    for d in $(seq 0 9); do
        mkdir -p "$root/tree/d$d" "$review/upper/d$d"
        for f in $(seq 0 999); do printf 'line %s of %s\n' "$f" "$d" >"$root/tree/d$d/f$f"; done
    done
    sleep 0.01
    printf 'session %s\nroot %s\nstarted %s\nended %s\n' "$id" "$root/tree" "$(date +%s%N)" "$(date +%s%N)" >"$review/meta"
    for d in $(seq 0 9); do
        for f in $(seq 0 79); do printf 'edited %s\n' "$f" >"$review/upper/d$d/f$f"; done
        for f in $(seq 0 9); do printf 'new %s\n' "$f" >"$review/upper/d$d/new$f"; done
        for f in $(seq 100 109); do : >"$review/upper/d$d/.wh.f$f"; done
    done
}

ms() {
    local t0 t1
    t0=$(date +%s%N)
    "$@" >/dev/null 2>&1 || { echo "bench: $* failed" >&2; exit 1; }
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000000))
}

summary() {
    sort -n | awk -v what="$1" '{ v[NR] = $1 } END {
        m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "%-28s median %6.0f ms  (lowest %d, highest %d, %d rounds)\n", what, m, v[1], v[NR], NR }'
}

apply_ms=() undo_ms=()
for ((i = 0; i < runs; i++)); do
    make_round
    apply_ms+=("$(cd "$root/tree" && ms "$bin" apply "$id")")
    [ "$(cat "$root/tree/d3/f5")" = "edited 5" ] || { echo "bench: apply did not land" >&2; exit 1; }
    undo_ms+=("$(ms "$bin" apply --undo "$id")")
    [ "$(cat "$root/tree/d3/f5")" = "line 5 of 3" ] || { echo "bench: undo did not restore" >&2; exit 1; }
done
printf '%s\n' "${apply_ms[@]}" | summary "apply, 1,000 changes"
printf '%s\n' "${undo_ms[@]}" | summary "apply --undo, 1,000 changes"
rm -rf "$root"
