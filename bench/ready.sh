#!/usr/bin/env bash
# Time to a ready shell: from the start of the command until a command
# inside has fetched an allowed HTTPS URL on the fake internet (curl, the
# fake internet's CA), against a bare `podman run --rm` of the same image
# directly on the fake internet fetching the same URL; and five sessions
# started at once, until the last of them has fetched it, against one.
# Interleaved round by round.
#
#   bench/ready.sh             (as the rootless user; see bench/lib.bash)
set -euo pipefail
source "$(dirname "$0")/lib.bash"

FETCH='curl -sS -o /dev/null --cacert ca.pem https://'$BENCH_ORIGIN_NAME'/small && date +%s.%N'
N_AT_ONCE=${BENCH_AT_ONCE:-5}

# ready_after T0 OUTPUT: seconds from T0 to the time the command printed.
ready_after() {
    local ts
    ts=$(tail -n 1 <<<"$2")
    [[ $ts =~ ^[0-9]+\.[0-9]+$ ]] || die "no time stamp in the output: $2"
    echo "$ts - $1" | bc -l | xargs printf '%.3f'
}

# at_once VARIANT DIR...: one session per DIR, all started at once; prints
# the time until the last one fetched.
at_once() {
    local variant=$1 t0 d i=0 last=0 s
    shift
    t0=$(now)
    for d in "$@"; do
        session "$variant" "$d" sh -c "$FETCH" >"$d.out" &
    done
    wait || true
    for d in "$@"; do
        s=$(ready_after "$t0" "$(cat "$d.out")")
        last=$(echo "if ($s > $last) $s else $last" | bc -l)
        i=$((i + 1))
    done
    printf '%.3f' "$last"
}

main() {
    bench_check
    bench_net_up
    trap 'bench_net_down' EXIT
    local dirs=() d run name t0 out i
    for ((i = 0; i < N_AT_ONCE; i++)); do
        d=$(bench_dir)
        bench_tools "$d"
        dirs+=("$d")
    done
    d=${dirs[0]}
    for name in $(variant_names); do session "$name" "$d" sh -c "$FETCH" >/dev/null; done
    direct "$d" sh -c "$FETCH" >/dev/null
    log "ready: $BENCH_RUNS rounds of: $(variant_names | xargs), podman run --rm, $N_AT_ONCE sessions at once"
    for ((run = 1; run <= BENCH_RUNS; run++)); do
        for name in $(variant_names); do
            t0=$(now)
            out=$(session "$name" "$d" sh -c "$FETCH") || die "session $name failed: $out"
            record ready "$name" "$run" "$(ready_after "$t0" "$out")" s
            record ready-at-once "$name (1 session)" "$run" "$(ready_after "$t0" "$out")" s
            record ready-at-once "$name ($N_AT_ONCE at once, last ready)" "$run" "$(at_once "$name" "${dirs[@]}")" s
        done
        t0=$(now)
        out=$(direct "$d" sh -c "$FETCH") || die "podman run failed: $out"
        record ready "podman run --rm" "$run" "$(ready_after "$t0" "$out")" s
    done
    for d in "${dirs[@]}"; do bench_rm "$d"; rm -f "$d.out"; done
    local first
    first=$(first_variant)
    for name in $(variant_names); do
        [ "$name" = "$first" ] || compare ready "$name" "$first" ratio
        compare ready "$name" "podman run --rm" ratio
        compare ready-at-once "$name ($N_AT_ONCE at once, last ready)" "$name (1 session)" ratio
    done
    compare_steps ready ratio
}

main "$@"; exit
