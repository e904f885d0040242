#!/usr/bin/env bash
# Writes the source tarball OUT (NAME-VERSION.tar.gz, every path under
# NAME-VERSION/) from the working tree of the repository at SRCDIR.
#
#   packaging/make-tarball.sh SRCDIR NAME-VERSION OUT
#
# The file list is `git ls-files -co --exclude-standard`: tracked files plus
# untracked ones that .gitignore does not exclude, as they are on disk now. So
# the same command packs a clean clone and a tree with uncommitted work, and
# never packs build/, dist/ or other ignored output. Tracked files deleted in
# the working tree are left out. Outside a git checkout (an unpacked tarball)
# every file but build/, dist/ and .git/ is packed.
set -euo pipefail

[ $# -eq 3 ] || { echo "usage: $0 SRCDIR NAME-VERSION OUT" >&2; exit 2; }
srcdir=$1 prefix=$2 out=$3

list=$(mktemp)
trap 'rm -f "$list"' EXIT

cd "$srcdir"
# Only when SRCDIR is the top of its own checkout: an unpacked tarball inside
# another repository's ignored build/ must not take that repository's list.
if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ]; then
    git ls-files -z -co --exclude-standard | while IFS= read -r -d '' f; do
        if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi
    done | LC_ALL=C sort -zu >"$list"
else
    find . \( -path ./build -o -path ./dist -o -path ./.git \) -prune -o \
        \( -type f -o -type l \) -printf '%P\0' | LC_ALL=C sort -z >"$list"
fi

[ -s "$list" ] || { echo "$0: no files to pack in $srcdir" >&2; exit 1; }

mkdir -p "$(dirname "$out")"
tmp="$out.tmp"
tar --create --format=gnu --owner=0 --group=0 --numeric-owner \
    --transform="s,^,$prefix/,S" --no-recursion --null --files-from="$list" |
    gzip -n -9 >"$tmp"
mv -f "$tmp" "$out"
