#!/usr/bin/env bash
# Start-up cost of a session against the baseline of a bare `podman run --rm`
# of the same image, measured side by side (interleaved, same machine, same
# minute), so the ratio means something on a noisy machine.
#
#   bench/startup.sh [RUNS]     (as the rootless user, from a launchable dir)
#
# Prints per-variant median and p90 wall times and the ratio of medians.
set -euo pipefail

runs=${1:-15}
bin=${AGENT_SANDBOX_BIN:-$(dirname "$0")/../build/agent-sandbox}
image=${AGENT_SANDBOX_IMAGE:-localhost/agent-sandbox:dev}

now() { date +%s.%N; }
stats() {   # reads seconds, one per line; prints median and p90
    sort -g | awk '{a[NR]=$1} END {m=a[int((NR+1)/2)]; p=a[int(NR*0.9+0.5)]; printf "median %.3f s  p90 %.3f s", m, p}'
}

sandbox=$(mktemp) baseline=$(mktemp)
trap 'rm -f "$sandbox" "$baseline"' EXIT

# warm both paths once (rootless network namespace, page cache)
"$bin" --exec true >/dev/null
podman run --rm "$image" true >/dev/null

for ((i = 0; i < runs; i++)); do
    t0=$(now); "$bin" --exec true >/dev/null; t1=$(now)
    podman run --rm "$image" true >/dev/null; t2=$(now)
    echo "$t1 - $t0" | bc >>"$sandbox"
    echo "$t2 - $t1" | bc >>"$baseline"
done

s=$(stats <"$sandbox"); b=$(stats <"$baseline")
printf 'runs: %d, image %s\n' "$runs" "$image"
printf 'agent-sandbox --exec true : %s\n' "$s"
printf 'podman run --rm IMG true  : %s\n' "$b"
sm=$(sort -g "$sandbox" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
bm=$(sort -g "$baseline" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
printf 'ratio of medians: %.2f\n' "$(echo "$sm / $bm" | bc -l)"
