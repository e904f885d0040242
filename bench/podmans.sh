#!/usr/bin/env bash
# Session start-up on both tested podmans in one run (docs/podman-versions.md):
# bench/startup.sh and bench/loop.sh on this machine's podman, as the owner
# of this checkout, then in the podman 5 test bed (tests/podman5/bed). Each
# ratio is against a bare `podman run --rm` of the same podman, paired round
# by round in the same run, so the two podmans' ratios compare even though
# their absolute times do not share a round.
#
#   sudo bench/podmans.sh          or   sudo make bench-podmans
#
# BENCH_RUNS (10) rounds each. The results: build/bench-podman4.md and
# build/podman5/bench.md (each as BENCHMARKS.md's results part), and the
# start-up lines of both at the end.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RUNS=${BENCH_RUNS:-10}
ONLY="startup loop"

die() { printf 'bench-podmans: error: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "run as root: the podman 5 bed is entered as root (the host's part runs as the checkout's owner)"
owner=$(stat -c %U "$TOP")
[ "$owner" != root ] || die "$TOP belongs to root: the host's podman is measured as the checkout's owner, a rootless user"
uid=$(id -u "$owner")
home=$(getent passwd "$owner" | cut -d: -f6)

rm -f "$TOP/build/bench-podman4.md"
runuser -u "$owner" -- env -i HOME="$home" USER="$owner" LOGNAME="$owner" PATH=/usr/local/bin:/usr/bin:/bin \
    LANG=C.UTF-8 XDG_RUNTIME_DIR="/run/user/$uid" \
    make -C "$TOP" bench BENCH_RUNS="$RUNS" BENCH_ONLY="$ONLY" BENCH_MD="$TOP/build/bench-podman4.md"
"$TOP/tests/podman5/bed" all images bench BENCH_RUNS="$RUNS" BENCH_ONLY="$ONLY" BENCH_MD=build/bench.md

# The new results' lines of both that hold a goal's figure, after the podman
# they ran on (the text above the results has older tables).
summary() {
    local file=$1
    sed -n '/^## Results of /,$p' "$file" >"$file.results"
    grep -m1 '^- machine:' "$file.results" | grep -o 'podman [0-9.]*'
    grep -E '^\| *(startup|loop)' "$file.results" || true
    rm -f "$file.results"
}
for f in "$TOP/build/bench-podman4.md" "$TOP/build/podman5/bench.md"; do
    [ -f "$f" ] || die "no results in $f"
    summary "$f"
done
