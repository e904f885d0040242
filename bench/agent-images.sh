#!/usr/bin/env bash
# The two shapes of agent images (docs/agents.md), built from the same
# inputs in the same machine state, interleaved round by round:
#   layers  the shared image (sandbox-image/Containerfile, AGENTS empty) on
#           the mmdebstrap base, then one thin layer per agent on it (what
#           `make images AGENTS=...` does)
#   one     one image holding every agent, on the same base
# It prints each build's wall time per round and each image's size, and the
# storage each shape takes (shared layers counted once).
#
#   bench/agent-images.sh [AGENT...]   (as the rootless user, after
#                                       `make images AGENTS="AGENT..."`, which
#                                       leaves the base and the tarballs)
# Environment: BENCH_RUNS (rounds, default 3), PODMAN.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
PODMAN=${PODMAN:-podman}
runs=${BENCH_RUNS:-3}
base=localhost/agent-sandbox-base:bookworm
cache=$top/build/images/agents
tag=localhost/agent-sandbox-bench
agents=("$@")
[ ${#agents[@]} -gt 0 ] || agents=(claude codex gemini opencode)

die() { echo "agent-images: error: $*" >&2; exit 1; }
$PODMAN image exists "$base" || die "no $base: run make images first"
for a in "${agents[@]}"; do
    "$top/sandbox-image/agent-fetch" "$top/sandbox-image/agents/$a.version" "$cache" >/dev/null
done

# build TAG FROM AGENTS: wall seconds of one `podman build` as make runs it.
build() {
    local t0 t1
    t0=$(date +%s.%N)
    $PODMAN build -q --layers=false --pull=never --build-arg BASE_IMAGE="$2" --build-arg AGENTS="$3" \
        --volume "$cache:/var/cache/agent-sandbox/agents:ro,z" \
        -t "$1" -f "$top/sandbox-image/Containerfile" "$top/sandbox-image" >/dev/null
    t1=$(date +%s.%N)
    printf '%.1f' "$(echo "$t1 - $t0" | bc -l)"
}

# shellcheck disable=SC2046  # one argument per image ID
cleanup() { $PODMAN rmi -f $($PODMAN images -q --filter reference="$tag*") >/dev/null 2>&1 || true; }
trap cleanup EXIT
printf 'round\tshape\tstep\tseconds\n'
for ((run = 1; run <= runs; run++)); do
    cleanup
    total=$(build "$tag-common:r" "$base" "")
    printf '%d\tlayers\tcommon\t%s\n' "$run" "$total"
    for a in "${agents[@]}"; do
        s=$(build "$tag-$a:r" "$tag-common:r" "$a")
        printf '%d\tlayers\t%s\t%s\n' "$run" "$a" "$s"
        total=$(echo "$total + $s" | bc -l)
    done
    printf '%d\tlayers\ttotal\t%s\n' "$run" "$total"
    printf '%d\tone\tall\t%s\n' "$run" "$(build "$tag-all:r" "$base" "${agents[*]}")"
done

# Sizes: each image whole, and what it adds to the shared one (its own
# layer; the shared layers are stored once however many agents use them).
size() { echo $(( $($PODMAN image inspect --format '{{.Size}}' "$1") / 1000000 )); }
common=$(size "$tag-common:r")
stored=$common
printf '\nimage\tMB\tadds MB\n'
printf 'common\t%d\t-\n' "$common"
for a in "${agents[@]}"; do
    s=$(size "$tag-$a:r")
    printf '%s\t%d\t%d\n' "$a" "$s" $((s - common))
    stored=$((stored + s - common))
done
printf 'layers, all agents\t%d\t-\n' "$stored"
printf 'one image, all agents\t%d\t-\n' "$(size "$tag-all:r")"
