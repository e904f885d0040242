#!/usr/bin/env bash
# Sessions in a row: the wall time of BENCH_LOOP (default 20) `agent-sandbox
# --exec true` sessions one after the other in one launch directory, so
# that whatever a session leaves to do after its prompt (its removals, in
# the background since issue 28) is paid by the next one, against as many
# bare `podman run --rm` of the same image; interleaved round by round.
#
#   bench/loop.sh           (as the rootless user; see bench/lib.bash)
set -euo pipefail
source "$(dirname "$0")/lib.bash"

BENCH_LOOP=${BENCH_LOOP:-20}

# loop VARIANT RUN CMD...: CMD $BENCH_LOOP times in a row, their total time.
loop() {
    local variant=$1 run=$2 t0 t1 i
    shift 2
    t0=$(now)
    for ((i = 0; i < BENCH_LOOP; i++)); do
        "$@" >/dev/null </dev/null || die "$variant failed (run $run, session $((i + 1))): $*"
    done
    t1=$(now)
    record loop "$variant" "$run" "$(echo "$t1 - $t0" | bc -l | xargs printf '%.3f')" s
}

main() {
    bench_check
    bench_net_up
    trap 'bench_net_down' EXIT
    local run name
    local -A dirs=()     # a tree per variant, as in startup.sh
    for name in $(variant_names); do dirs[$name]=$(bench_dir); done
    for name in $(variant_names); do session "$name" "${dirs[$name]}" true; done   # warm-up
    $PODMAN run --rm "$BENCH_IMAGE" true
    log "loop: $BENCH_RUNS rounds of $BENCH_LOOP sessions in a row: $(variant_names | xargs), podman run --rm"
    for ((run = 1; run <= BENCH_RUNS; run++)); do
        for name in $(variant_names); do loop "$name" "$run" session "$name" "${dirs[$name]}" true; done
        # shellcheck disable=SC2086  # $PODMAN is a command line, split as make splits $(PODMAN)
        loop "podman run --rm" "$run" $PODMAN run --rm "$BENCH_IMAGE" true
    done
    for name in $(variant_names); do bench_rm "${dirs[$name]}"; done
    local first
    first=$(first_variant)
    for name in $(variant_names); do
        [ "$name" = "$first" ] || compare loop "$name" "$first" ratio
        compare loop "$name" "podman run --rm" ratio
    done
    compare_steps loop ratio
}

main "$@"; exit
