#!/usr/bin/env bash
# shellcheck disable=SC2317  # functions run through check() look unreachable
# Acceptance test of the RPM packaging and versioning (docs/packaging.md).
# Run from anywhere: `make check-rpm` or tests/packaging/test-rpm.sh.
#
#  - `make rpm` builds the RPM and SRPM of the VERSION file's version;
#  - the RPM holds the CLI, the default config, both image build contexts
#    (modes kept), license, README and docs/*.md (where the CLI's messages
#    name them), man page/completions when the tree has them, and nothing
#    else; its Requires are podman plus the C libraries;
#  - the package file names README.md and docs/packaging.md give are what
#    `make rpm` wrote;
#  - the SRPM's BuildRequires are complete and it rebuilds on its own;
#  - rpmlint finds no errors;
#  - the RPM unpacked into a scratch root runs: `agent-sandbox --version`;
#  - in a scratch copy of the tree: `make install`/`uninstall` with DESTDIR
#    and PREFIX install what the RPM holds and remove it all again, and
#    `make patch|minor|major` change the version everywhere it is used.
#
# Needs rpm, rpmbuild, rpm2cpio and cpio (or rpm2archive); rpmlint is
# skipped when absent. Output is TAP, closed by "N passed, N failed".
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT" || exit 1
# Keep a caller's make variables (RELEASE=1, ...) out of the sub-makes.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES

TMP=$(mktemp -d "${TMPDIR:-/tmp}/test-rpm.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

n=0 passed=0 failed=0 skipped=0
echo "TAP version 13"
diag() { sed 's/^/#   /'; }
pass() { n=$((n + 1)); passed=$((passed + 1)); echo "ok $n - $1"; }
fail() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
skip() { n=$((n + 1)); skipped=$((skipped + 1)); echo "ok $n - $1 # SKIP $2"; }
# check DESC CMD...: passes when CMD succeeds; shows its output when it fails.
check() {
    local desc=$1 out; shift
    if out=$("$@" 2>&1); then pass "$desc"; else fail "$desc"; [ -z "$out" ] || printf '%s\n' "$out" | diag; fi
}
finish() {
    echo "1..$n"
    if [ "$skipped" -gt 0 ]; then
        echo "$passed passed, $failed failed, $skipped skipped"
    else
        echo "$passed passed, $failed failed"
    fi
    [ "$failed" -eq 0 ]
    exit
}
# Files of a directory of the tree as `make rpm` packs them (git's view).
# Outside a git checkout (CI copies the files without .git) every file but
# build/, dist/ and .git/ counts, as packaging/make-tarball.sh does.
tree_list() {   # NUL-separated, below "$@" (default: everything)
    if git rev-parse --git-dir >/dev/null 2>&1; then
        git ls-files -z -co --exclude-standard -- "$@"
    else
        find "${@:-.}" \( -path ./build -o -path ./dist -o -path ./.git \) -prune -o \
            ! -type d -printf '%P\0' 2>/dev/null | sed -z "s,^,${1:+$1/},"
    fi
}
tree_files() { tree_list "$1" | while IFS= read -r -d '' f; do [ -e "$f" ] && echo "$f"; done; }

VERSION=$(cat VERSION)
ARCH=$(rpm --eval '%{_arch}' 2>/dev/null)

# --- tools ----------------------------------------------------------------
missing_tools=()
for t in rpm rpmbuild rpm2cpio; do command -v "$t" >/dev/null || missing_tools+=("$t"); done
command -v cpio >/dev/null || command -v rpm2archive >/dev/null || missing_tools+=(cpio)
if [ ${#missing_tools[@]} -gt 0 ]; then
    fail "packaging tools present"; echo "missing: ${missing_tools[*]}" | diag; finish
fi
pass "packaging tools present (rpm, rpmbuild, rpm2cpio, cpio)"

# --- build ----------------------------------------------------------------
if make rpm >"$TMP/make-rpm.log" 2>&1; then
    pass "make rpm"
else
    fail "make rpm"; tail -n 40 "$TMP/make-rpm.log" | diag; finish
fi
mapfile -t paths < <(make -s rpm-paths)
RPM=${paths[0]:-} SRPM=${paths[1]:-}
case $RPM in
    dist/agent-sandbox-"$VERSION"-*."$ARCH".rpm) check "RPM written: $RPM" test -f "$RPM" ;;
    *) fail "RPM path is dist/agent-sandbox-$VERSION-RELEASE.$ARCH.rpm"; echo "got '$RPM'" | diag ;;
esac
check "SRPM written: $SRPM" test -f "$SRPM"
if [ ! -f "$RPM" ] || [ ! -f "$SRPM" ]; then finish; fi

nv=$(rpm -qp --qf '%{NAME} %{VERSION}' "$RPM" 2>/dev/null)
check "RPM is agent-sandbox $VERSION (got '$nv')" test "$nv" = "agent-sandbox $VERSION"
nv=$(rpm -qp --qf '%{NAME} %{VERSION}' "$SRPM" 2>/dev/null)
check "SRPM is agent-sandbox $VERSION (got '$nv')" test "$nv" = "agent-sandbox $VERSION"

# --- contents -------------------------------------------------------------
rpm -qlp "$RPM" 2>/dev/null | sort >"$TMP/rpm-files"
has() { grep -qxF "$1" "$TMP/rpm-files" || { echo "not in the RPM: $1"; return 1; }; }
check "RPM has /usr/bin/agent-sandbox" has /usr/bin/agent-sandbox
check "RPM has the default config /usr/share/agent-sandbox/allowed-hosts" has /usr/share/agent-sandbox/allowed-hosts
check "RPM has the license" has /usr/share/licenses/agent-sandbox/LICENSE
for f in config/agents/* config/allowed-hosts.d/*; do
    check "RPM has the agent file /usr/share/agent-sandbox/${f#config/}" has "/usr/share/agent-sandbox/${f#config/}"
done
lic=$(rpm -qLp "$RPM" 2>/dev/null)
check "LICENSE is marked %license" test "$lic" = /usr/share/licenses/agent-sandbox/LICENSE
rpm -qdp "$RPM" 2>/dev/null >"$TMP/rpm-docs"
check "RPM has the README as %doc" grep -qx /usr/share/doc/agent-sandbox/README.md "$TMP/rpm-docs"
# every docs/*.md, where the README's links and the CLI's messages find them
missing=$(for f in docs/*.md; do grep -qxF "/usr/share/doc/agent-sandbox/$f" "$TMP/rpm-docs" || echo "$f"; done)
check "RPM has all $(find docs -maxdepth 1 -name '*.md' | wc -l) docs/*.md as %doc under /usr/share/doc/agent-sandbox/docs/" test -z "$missing"
[ -z "$missing" ] || echo "$missing" | diag
check "the CLI names installed docs by /usr/share/doc/agent-sandbox/docs/" \
    bash -c "rpm2cpio '$RPM' | cpio -i --quiet --to-stdout ./usr/bin/agent-sandbox | grep -aq /usr/share/doc/agent-sandbox/docs/allowlist.md"

# The package file names the README and docs/packaging.md give are the ones
# `make rpm` wrote: VERSION, RELEASE and ARCH stand for this build's, * for
# anything, and fcNN (fc40) for this host's dist tag (none on Debian).
dist=$(rpm --eval '%{?dist}' 2>/dev/null)
for doc in README.md docs/packaging.md; do
    names=$(grep -oE 'agent-sandbox-[][A-Za-z0-9.*_-]*\.rpm' "$doc" | sort -u)
    bad=''
    while IFS= read -r name; do
        [ -n "$name" ] || continue
        pat=${name//VERSION/$VERSION}
        pat=${pat//.fcNN/$dist}
        pat=${pat//.fc40/$dist}
        pat=${pat//RELEASE/*}
        pat=${pat//ARCH/$ARCH}
        # shellcheck disable=SC2053  # $pat is a glob on purpose
        [[ ${RPM##*/} == $pat || ${SRPM##*/} == $pat ]] || bad+="$name"$'\n'
    done <<<"$names"
    check "$doc's package file names match what make rpm wrote (${RPM##*/}, ${SRPM##*/})" \
        test -n "$names" -a -z "$bad"
    [ -z "$bad" ] || printf '%s' "$bad" | diag
done
opt=()
[ -f docs/agent-sandbox.1 ] && opt+=(/usr/share/man/man1/agent-sandbox.1.gz)
[ -f completions/agent-sandbox.bash ] && opt+=(/usr/share/bash-completion/completions/agent-sandbox)
[ -f completions/_agent-sandbox ] && opt+=(/usr/share/zsh/site-functions/_agent-sandbox)
[ -f completions/agent-sandbox.fish ] && opt+=(/usr/share/fish/vendor_completions.d/agent-sandbox.fish)
if [ ${#opt[@]} -gt 0 ]; then
    for f in "${opt[@]}"; do check "RPM has $f" has "$f"; done
else
    skip "RPM has the man page and completions" "the tree has none yet"
fi

for img in sandbox router; do
    tree_files "$img-image" >"$TMP/$img-files"
    if [ ! -s "$TMP/$img-files" ]; then
        fail "image context $img-image/ is in the tree"; continue
    fi
    missing=$(while IFS= read -r f; do
        grep -qxF "/usr/share/agent-sandbox/images/$img/${f#"$img"-image/}" "$TMP/rpm-files" || echo "$f"
    done <"$TMP/$img-files")
    check "RPM has all $(wc -l <"$TMP/$img-files") files of $img-image/ under /usr/share/agent-sandbox/images/$img/" test -z "$missing"
    [ -z "$missing" ] || echo "$missing" | diag
done

unexpected=$(grep -vE '^(/usr/bin/agent-sandbox|/usr/share/agent-sandbox(/.*)?|/usr/share/(licenses|doc)/agent-sandbox(/.*)?|/usr/share/man/man1/agent-sandbox\.1\.gz|/usr/share/bash-completion/completions/agent-sandbox|/usr/share/zsh/site-functions/_agent-sandbox|/usr/share/fish/vendor_completions\.d/agent-sandbox\.fish|/usr/lib/\.build-id(/.*)?)$' "$TMP/rpm-files")
check "RPM has no other files" test -z "$unexpected"
[ -z "$unexpected" ] || echo "$unexpected" | diag

# --- dependencies ---------------------------------------------------------
rpm -qRp "$RPM" 2>/dev/null >"$TMP/requires"
for dep in podman 'libcurl\.so\.4' 'libyajl\.so\.2' 'libsystemd\.so\.0' 'libcrypto\.so\.3'; do
    check "RPM requires ${dep//\\/}" grep -qE "^$dep(\(|$)" "$TMP/requires"
done
extra=$(grep -vE '^(podman|(libc|libm|libcurl|libyajl|libsystemd|libcrypto)\.so\.[0-9]+(\(.*\))*|rtld\(GNU_HASH\)|rpmlib\(.*) *(<=.*)?$' "$TMP/requires")
check "RPM requires nothing else (host tools, interpreters, ...)" test -z "$extra"
[ -z "$extra" ] || echo "$extra" | diag
rpm -qRp "$SRPM" 2>/dev/null >"$TMP/buildrequires"
for dep in gcc make 'pkgconfig(libcurl)' 'pkgconfig(yajl)' 'pkgconfig(libcrypto)' 'pkgconfig(libsystemd)' libcmocka-devel 'pkgconfig(libpcre2-8)'; do
    check "SRPM BuildRequires $dep" grep -qxF "$dep" "$TMP/buildrequires"
done

# --- lint -----------------------------------------------------------------
if command -v rpmlint >/dev/null; then
    make -s rpmlint >"$TMP/rpmlint.log" 2>&1
    summary=$(grep -E '[0-9]+ errors?, [0-9]+ warnings?' "$TMP/rpmlint.log" | tail -n 1)
    if [[ $summary =~ (^|[^0-9])0\ errors ]]; then
        pass "rpmlint: no errors"
    else
        fail "rpmlint: no errors"
    fi
    grep -E ': [EW]: ' "$TMP/rpmlint.log" | diag
    echo "$summary" | diag
else
    skip "rpmlint: no errors" "rpmlint not installed"
fi

# --- the SRPM alone -------------------------------------------------------
if make rebuild-srpm >"$TMP/rebuild.log" 2>&1 && ls build/rpm-rebuild/RPMS/*/agent-sandbox-"$VERSION"-*.rpm >/dev/null 2>&1; then
    pass "SRPM rebuilds on its own"
else
    fail "SRPM rebuilds on its own"; tail -n 20 "$TMP/rebuild.log" | diag
fi

# --- install into a scratch root and run ----------------------------------
root="$TMP/root"; mkdir -p "$root"
if command -v cpio >/dev/null; then
    unpack() { rpm2cpio "$ROOT/$RPM" | (cd "$root" && cpio -idm --quiet); }
else
    unpack() { rpm2archive - <"$ROOT/$RPM" | tar -xzf - -C "$root"; }
fi
check "RPM unpacks into a scratch root" unpack
check "unpacked agent-sandbox is executable" test -x "$root/usr/bin/agent-sandbox"
# its first line is the tool's; the images' and the agents' pins follow
out=$("$root/usr/bin/agent-sandbox" --version 2>&1); rc=$?
check "agent-sandbox --version prints 'agent-sandbox $VERSION' first (got '$out', exit $rc)" \
    test "$rc:${out%%$'\n'*}" = "0:agent-sandbox $VERSION"
modes=$(for img in sandbox router; do
    while IFS= read -r f; do
        dst="$root/usr/share/agent-sandbox/images/$img/${f#"$img"-image/}"
        if [ -x "$f" ] && [ ! -x "$dst" ]; then echo "lost +x: $dst"; fi
        if [ ! -x "$f" ] && [ -x "$dst" ]; then echo "gained +x: $dst"; fi
    done <"$TMP/$img-files"
done)
check "image context files keep their executable bits" test -z "$modes"
[ -z "$modes" ] || echo "$modes" | diag

# --- a scratch copy of the tree: make install/uninstall, version bumps ----
copy="$TMP/copy"; mkdir -p "$copy"
tree_list | while IFS= read -r -d '' f; do
    [ -e "$f" ] && printf '%s\0' "$f"
done | tar -cf - --null -T - | tar -xf - -C "$copy"
# Its builds use every core (the RPM's builds do too: %make_build).
mk() { make -C "$copy" -j"$(nproc)" "$@"; }

dest="$TMP/destdir"
if mk install DESTDIR="$dest" PREFIX=/usr >"$TMP/install.log" 2>&1; then
    pass "make install DESTDIR=... PREFIX=/usr"
    (cd "$dest" && find . ! -type d | sed 's,^\.,,' | sort) >"$TMP/installed"
    # The RPM compresses the man page and adds build-id links; else the same.
    grep -vE '^/usr/lib/\.build-id' "$TMP/rpm-files" | sed 's,\(/man/.*\)\.gz$,\1,' |
        while IFS= read -r f; do [ -d "$root$f" ] || echo "$f"; done | sort >"$TMP/rpm-plain"
    check "make install installs the files the RPM holds" diff "$TMP/rpm-plain" "$TMP/installed"
    check "installed binary is under PREFIX/bin" test -x "$dest/usr/bin/agent-sandbox"
    missing=$(for f in README.md docs/*.md; do [ -f "$dest/usr/share/doc/agent-sandbox/$f" ] || echo "$f"; done)
    check "make install puts README.md and docs/*.md under PREFIX/share/doc/agent-sandbox/" test -z "$missing"
    [ -z "$missing" ] || echo "$missing" | diag
    mk uninstall DESTDIR="$dest" PREFIX=/usr >>"$TMP/install.log" 2>&1
    left=$(cd "$dest" && find . ! -type d)
    check "make uninstall removes every installed file" test -z "$left"
    [ -z "$left" ] || echo "$left" | diag
else
    fail "make install DESTDIR=... PREFIX=/usr"; tail -n 20 "$TMP/install.log" | diag
fi

check "make -s version prints VERSION" test "$(mk -s version)" = "$VERSION"
check "IMAGE_TAG is dev in development builds" test "$(mk -s image-tag)" = dev
check "IMAGE_TAG is $VERSION with RELEASE=1" test "$(mk -s image-tag RELEASE=1)" = "$VERSION"
bin=build/agent-sandbox
mk -n -B RELEASE=1 "$bin" 2>&1 | grep -E -- ' -c -o ' >"$TMP/compile-cmds"
all_compiles_have() { [ -s "$TMP/compile-cmds" ] && ! grep -vF -- "$1" "$TMP/compile-cmds"; }
check "RELEASE=1 passes -DAS_IMAGE_TAG='\"$VERSION\"' -DAS_RELEASE_BUILD=1 to every compile" \
    all_compiles_have "-DAS_IMAGE_TAG='\"$VERSION\"' -DAS_RELEASE_BUILD=1"
mk "$bin" >"$TMP/copy-build.log" 2>&1
check "scratch copy builds and reports $VERSION" test "$("$copy/$bin" --version 2>&1 | head -n 1)" = "agent-sandbox $VERSION"

IFS=. read -r major minor patch <<<"$VERSION"
bump() { # PART EXPECTED
    mk -s "$1" >/dev/null 2>&1
    check "make $1 -> $2" test "$(cat "$copy/VERSION")" = "$2"
}
bump patch "$major.$minor.$((patch + 1))"
new=$(cat "$copy/VERSION")
mk "$bin" >"$TMP/copy-build.log" 2>&1
check "after make patch, make rebuilds the CLI: --version prints $new" \
    test "$("$copy/$bin" --version 2>&1 | head -n 1)" = "agent-sandbox $new"
mk -s spec >/dev/null 2>&1
check "after make patch, the generated spec has Version: $new" \
    grep -qE "^Version: +$new\$" "$copy/build/rpm/SPECS/agent-sandbox.spec"
check "after make patch, IMAGE_TAG with RELEASE=1 is $new" test "$(mk -s image-tag RELEASE=1)" = "$new"
check "after make patch, the tarball is agent-sandbox-$new.tar.gz" \
    bash -c "make -C '$copy' -s tarball >/dev/null 2>&1 && tar -tzf '$copy/build/rpm/SOURCES/agent-sandbox-$new.tar.gz' | grep -qx 'agent-sandbox-$new/VERSION'"
# No other file of the build, packaging, code or images spells the version.
stale=$(cd "$copy" && grep -rlwF --exclude-dir=build --exclude-dir=.git -e "$VERSION" \
    Makefile mk packaging cmd lib sandbox-image router-image config 2>/dev/null)
check "no file but VERSION hard-codes the version ($VERSION)" test -z "$stale"
[ -z "$stale" ] || echo "$stale" | diag
bump minor "$major.$((minor + 1)).0"
bump major "$((major + 1)).0.0"

finish
