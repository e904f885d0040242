#!/usr/bin/env bash
# The end-of-session check's cost in a big tree: `agent-sandbox --exec true`
# in a git checkout of N committed files against the same session in an
# empty directory (the difference is the walk before and after the agent,
# and the checks), next to one host `git status` of the same checkout,
# interleaved round by round. Issue 23's goal: the added time within one
# `git status`.
#
#   bench/workspace-check.sh      (as the rootless user; see bench/lib.bash)
#   BENCH_TREE_SIZES="200000 1000000"   the trees, in files (default)
#
# Prints the Markdown of its results (bench/report.py); the raw figures go
# to $BENCH_RESULTS. The trees are kept in $BENCH_ROOT/trees/N between runs
# (a tree of a million files takes minutes to make and commit).
set -euo pipefail
source "$(dirname "$0")/lib.bash"

SIZES=${BENCH_TREE_SIZES:-200000 1000000}

# timed MEASURE VARIANT RUN CMD...: CMD's wall time in seconds, recorded;
# also printed, for the derived figure.
timed() {
    local measure=$1 variant=$2 run=$3 t0 t1 secs
    shift 3
    t0=$(now)
    "$@" >/dev/null </dev/null || die "$variant failed (run $run): $*"
    t1=$(now)
    secs=$(echo "$t1 - $t0" | bc -l | xargs printf '%.3f')
    record "$measure" "$variant" "$run" "$secs" s
    echo "$secs"
}

main() {
    bench_check
    bench_net_up
    trap 'bench_net_down' EXIT
    local first empty n tree run t_tree t_empty t_git
    first=$(first_variant)
    empty=$(bench_dir)
    : >"$BENCH_RESULTS"
    for n in $SIZES; do
        tree=$BENCH_ROOT/trees/$n
        make_tree "$tree" "$n"
        # warm-up, not recorded: the page cache, the rootless network namespace
        session "$first" "$tree" true
        session "$first" "$empty" true
        git -C "$tree" status >/dev/null
        log "workspace check, $n files: $BENCH_RUNS rounds"
        for ((run = 1; run <= BENCH_RUNS; run++)); do
            t_tree=$(timed "session, $n files" "$first" "$run" session "$first" "$tree" true)
            t_empty=$(timed "session, $n files" "empty directory" "$run" session "$first" "$empty" true)
            # shellcheck disable=SC2034  # timed records the round; the seconds it prints are not needed
            t_git=$(timed "check, $n files" "git status" "$run" git -C "$tree" status)
            record "check, $n files" "added by the check" "$run" \
                "$(echo "$t_tree - $t_empty" | bc -l | xargs printf '%.3f')" s
        done
        compare "session, $n files" "$first" "empty directory" diff
        compare "check, $n files" "added by the check" "git status" ratio
        printf 'G\t%s\t%s\t%s\t%s\t%s\t%s\n' "check, $n files" "added by the check" "git status" ratio '<=' 1 \
            >>"$BENCH_RESULTS"
    done
    bench_rm "$empty"
    note "trees: git checkouts of empty files, 1,000 to a directory, committed, index fresh; sessions: \`agent-sandbox --exec true\`; \"added by the check\" is the tree's session minus the empty directory's, round by round"
    python3 "$BENCH_TOP/bench/report.py" "$BENCH_RESULTS"
}

main "$@"
