#!/usr/bin/env bash
# The allowlist at its limit: parsing an allowed-hosts file of 4,096
# entries (ALLOWLIST_MAX_ENTRIES, plus 100 repeated lines) and rendering
# every router file of it, timed inside one process per round
# (bench/allowlist-time.c), the tree's own next to each git revision given,
# interleaved round by round. No session, no podman.
#
#   bench/allowlist.sh [REV=NAME...]    e.g. bench/allowlist.sh main=before
#   BENCH_RUNS     rounds (default 10)
#   BENCH_ENTRIES  entries (default 4096)
#
# Prints a Markdown table: the median in ms, with the lowest and highest.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
runs=${BENCH_RUNS:-10} entries=${BENCH_ENTRIES:-4096}
out=$top/build/bench-allowlist
mkdir -p "$out"

# build NAME SRC: the timing program against SRC's library.
build() {
    local name=$1 src=$2
    make -C "$src" -s -j2 build/libagentsandbox.a >&2
    cc -O2 -std=gnu17 -Wall -Wextra -Werror -D_GNU_SOURCE -I"$src/lib" -o "$out/$name" \
        "$top/bench/allowlist-time.c" "$src/build/libagentsandbox.a" -lcurl -lyajl -lsystemd -pthread
}

names=(tree)
build tree "$top"
for arg in "$@"; do
    rev=${arg%%=*} name=${arg#*=}
    [[ $arg == *=* && $name =~ ^[a-z0-9][a-z0-9_.-]*$ ]] || { echo "bench: usage: $0 [REV=NAME...]" >&2; exit 2; }
    src=$out/src-$name
    rm -rf "$src"
    mkdir -p "$src"
    git -C "$top" archive "$rev" | tar -x -C "$src"
    build "$name" "$src"
    names+=("$name")
done

: >"$out/results"
for ((round = 1; round <= runs; round++)); do
    for name in "${names[@]}"; do
        read -r parse render < <("$out/$name" "$entries")
        printf '%s %s %s\n' "$name" "$parse" "$render" >>"$out/results"
    done
done

# summary COLUMN NAME: "median (lowest-highest)" of a column.
summary() {
    awk -v n="$2" '$1 == n { print $c }' c="$1" "$out/results" | sort -g |
        awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
                                 printf "%.1f (%.1f-%.1f)", m, v[1], v[NR] }'
}

echo "allowlist of $entries entries, $runs rounds, ms: median (lowest-highest)"
echo
echo "| variant | parse | render (all router files) |"
echo "| --- | --- | --- |"
for name in "${names[@]}"; do
    echo "| $name | $(summary 2 "$name") | $(summary 3 "$name") |"
done
