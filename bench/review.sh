#!/usr/bin/env bash
# Review mode's speed (docs/review.md, issue 27's goals):
#   - a review session (`agent-sandbox --review --exec true`) against the
#     default mode's session in the same git checkout of 200,000 files
#     (BENCH_REVIEW_TREE), interleaved round by round: the review must not
#     be slower (no scan at the start: the upper layer is the record);
#   - `agent-sandbox diff --stat` of a review with 1,000 changed files
#     (each of them edited) over that tree: under a second.
#
#   bench/review.sh      (as the rootless user; see bench/lib.bash)
#
# Prints the Markdown of its results (bench/report.py); the raw figures go
# to $BENCH_RESULTS. The tree is kept in $BENCH_ROOT/trees/N (as
# workspace-check.sh's); every review made is discarded.
set -euo pipefail
source "$(dirname "$0")/lib.bash"

N=${BENCH_REVIEW_TREE:-200000}

timed() {
    local measure=$1 variant=$2 run=$3 t0 t1
    shift 3
    t0=$(now)
    "$@" >/dev/null </dev/null 2>>"$BENCH_ROOT/sessions.stderr" || die "$variant failed (run $run): $*"
    t1=$(now)
    record "$measure" "$variant" "$run" "$(echo "$t1 - $t0" | bc -l | xargs printf '%.3f')" s
}

# review_session DIR CMD...: CMD in a review session of the tree's CLI.
review_session() {
    local dir=$1 bin image
    read -r bin image < <(variant_cmd "$(first_variant)")
    shift
    (cd "$dir" && AGENT_SANDBOX_ROUTER_IMAGE=$image exec "$bin" --review --exec "$@")
}

discard_all() {
    local bin id
    read -r bin _ < <(variant_cmd "$(first_variant)")
    for id in $("$bin" reviews | awk 'NR > 1 { print $1 }'); do
        "$bin" discard "$id" 2>/dev/null
    done
}

main() {
    bench_check
    bench_net_up
    trap 'discard_all; bench_net_down' EXIT
    local first tree run bin
    first=$(first_variant)
    read -r bin _ < <(variant_cmd "$first")
    : >"$BENCH_RESULTS"
    tree=$BENCH_ROOT/trees/$N
    make_tree "$tree" "$N"
    session "$first" "$tree" true >/dev/null       # warm-up, not recorded
    review_session "$tree" true >/dev/null 2>&1
    log "start, $N files: $BENCH_RUNS rounds"
    for ((run = 1; run <= BENCH_RUNS; run++)); do
        timed "session, $N files" "review mode" "$run" review_session "$tree" true
        timed "session, $N files" "default mode" "$run" session "$first" "$tree" true
    done
    compare "session, $N files" "review mode" "default mode" ratio
    printf 'G\t%s\t%s\t%s\t%s\t%s\t%s\n' "session, $N files" "review mode" "default mode" ratio '<=' 1 \
        >>"$BENCH_RESULTS"
    discard_all
    log "diff --stat of 1,000 changed files: $BENCH_RUNS rounds"
    review_session "$tree" sh -c 'for d in src/d000?; do for f in $d/f*.c; do echo x >"$f"; done; done' \
        >/dev/null 2>&1
    for ((run = 1; run <= BENCH_RUNS; run++)); do
        timed "diff --stat, 1,000 files" "diff --stat" "$run" sh -c "cd '$tree' && exec '$bin' diff --stat"
    done
    printf 'G\t%s\t%s\t%s\t%s\t%s\t%s\n' "diff --stat, 1,000 files" "diff --stat" - abs '<=' 1 >>"$BENCH_RESULTS"
    note "tree: a git checkout of $N empty files, 1,000 to a directory; sessions: \`agent-sandbox [--review] --exec true\`; the review of \`diff --stat\` has the 1,000 files of src/d0000..d0009 edited"
    python3 "$BENCH_TOP/bench/report.py" "$BENCH_RESULTS"
}

main "$@"
