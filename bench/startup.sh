#!/usr/bin/env bash
# Session overhead: wall time of `agent-sandbox --exec true`, set-up to
# teardown, against `podman run --rm` of the same image (with its default
# network, and with --network none) and against the process-level peer
# `srt -c true` (bench/srt.bash), interleaved round by round.
#
#   bench/startup.sh           (as the rootless user; see bench/lib.bash)
set -euo pipefail
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/srt.bash"

# timed VARIANT RUN CMD...: runs CMD, records its wall time in seconds.
timed() {
    local variant=$1 run=$2 t0 t1
    shift 2
    t0=$(now)
    "$@" >/dev/null </dev/null || die "$variant failed (run $run): $*"
    t1=$(now)
    record startup "$variant" "$run" "$(echo "$t1 - $t0" | bc -l | xargs printf '%.3f')" s
}

main() {
    bench_check
    local have_srt=
    srt_ready && have_srt=1
    bench_net_up
    trap 'bench_net_down' EXIT
    local d run name
    # a directory per variant: one whose removals run after its prompt
    # holds its tree's lock meanwhile, which a variant without that wait
    # would take for a running session (exit 77)
    local -A dirs=()
    d=$(bench_dir)
    for name in $(variant_names); do dirs[$name]=$(bench_dir); done
    # warm-up, not recorded: the rootless network namespace, page cache
    for name in $(variant_names); do session "$name" "${dirs[$name]}" true; done
    $PODMAN run --rm "$BENCH_IMAGE" true
    $PODMAN run --rm --network none "$BENCH_IMAGE" true
    [ -z "$have_srt" ] || env -C "$d" "$SRT_BIN" -s "$SRT_SETTINGS" -c true
    log "startup: $BENCH_RUNS rounds of: $(variant_names | xargs), podman run --rm${have_srt:+, srt -c true}"
    for ((run = 1; run <= BENCH_RUNS; run++)); do
        for name in $(variant_names); do timed "$name" "$run" session "$name" "${dirs[$name]}" true; done
        # shellcheck disable=SC2086  # $PODMAN is a command line, split as make splits $(PODMAN)
        timed "podman run --rm" "$run" $PODMAN run --rm "$BENCH_IMAGE" true
        # shellcheck disable=SC2086  # as above
        timed "podman run --rm --network none" "$run" $PODMAN run --rm --network none "$BENCH_IMAGE" true
        if [ -n "$have_srt" ]; then
            timed "srt -c true" "$run" env -C "$d" "$SRT_BIN" -s "$SRT_SETTINGS" -c true
        fi
    done
    for name in $(variant_names); do bench_rm "${dirs[$name]}"; done
    bench_rm "$d"
    local first
    first=$(first_variant)
    for name in $(variant_names); do
        [ "$name" = "$first" ] || compare startup "$name" "$first" ratio
        compare startup "$name" "podman run --rm" ratio
        compare startup "$name" "podman run --rm --network none" ratio
        [ -z "$have_srt" ] || compare startup "$name" "srt -c true" ratio
    done
    compare_steps startup ratio
}

main "$@"; exit
