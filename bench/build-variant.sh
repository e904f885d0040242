#!/usr/bin/env bash
# Builds the CLI and the router image of a git revision, to measure it next
# to the tree's own in one run (BENCH_VARIANTS of bench/egress.sh):
#
#   bench/build-variant.sh REV NAME
#
# prints NAME=CLI,ROUTER_IMAGE. The CLI goes to build/bench-variants/NAME/,
# the image is localhost/agent-sandbox-router:bench-NAME, built on the base
# `make images` made (no registry, no network).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
rev=${1:?usage: $0 REV NAME} name=${2:?usage: $0 REV NAME}
[[ $name =~ ^[a-z0-9][a-z0-9_.-]*$ ]] || { echo "bench: NAME: lower-case letters, digits, ._-" >&2; exit 2; }
dir=$top/build/bench-variants/$name
image=localhost/agent-sandbox-router:bench-$name
base=${ROUTER_BASE_IMAGE:-localhost/agent-sandbox-router-base:bookworm}

rm -rf "$dir"
mkdir -p "$dir/src"
git -C "$top" archive "$rev" | tar -x -C "$dir/src"
make -C "$dir/src" -s -j2 build/agent-sandbox >&2
podman build -q --layers=false --pull=never --build-arg BASE_IMAGE="$base" -t "$image" \
    "$dir/src/router-image" >/dev/null
echo "$name=$dir/src/build/agent-sandbox,$image"
