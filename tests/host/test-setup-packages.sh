#!/usr/bin/env bash
# Do the packages scripts/setup-host.sh installs give a fresh Debian 12
# machine every program the project runs? Resolves its package list
# (`setup-host.sh --print-packages`, the one source) against a machine with
# nothing but Debian's Priority: required packages (debootstrap's minbase:
# no Debian has less, and setup-host.sh itself needs their apt), and checks
# that the resolved set ships each program below, by the archive's Contents
# index. This machine's installed packages play no part: apt runs on an
# empty dpkg status with indexes of its own.
#
# Why apt-get --simulate and not a chroot made by mmdebstrap: installing the
# ~300 packages takes minutes and a gigabyte; the simulated resolution is
# the same apt decision in seconds, and Contents says which package ships
# which file. What a simulation cannot show (a postinst that fails, a
# program that runs but misbehaves) .ci/run finds on a machine set up from
# scratch.
#
# Needs Debian's mirror: DEBIAN_MIRROR (default http://deb.debian.org/debian)
# and DEBIAN_SECURITY_MIRROR (http://deb.debian.org/debian-security); this
# machine's apt.conf.d (proxies, validity) applies. The indexes are kept in
# HOST_PACKAGES_DIR (build/host-packages), so a second run downloads only
# what changed. SETUP_HOST names another setup-host.sh to check. Output:
# TAP, one line per program, then "N passed, N failed".
set -uo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
SECURITY_MIRROR=${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
SUITE=bookworm
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
WORK=${HOST_PACKAGES_DIR:-$TOP/build/host-packages}
SETUP_HOST=${SETUP_HOST:-$TOP/scripts/setup-host.sh}

log() { printf '# %s\n' "$*"; }
die() { printf 'Bail out! %s\n' "$*"; echo "0 passed, 1 failed"; exit 1; }

# What the project runs, and where: "PURPOSE|NAME|PATHS". PATHS are paths
# as Contents lists them (no leading /), any one of which will do; empty
# means NAME in usr/bin, usr/sbin, bin or sbin.
PROGRAMS='
build: make|make|
build: the C compiler (make, cc is gcc)|gcc|usr/bin/gcc
build: archives (make)|ar|
build: pkg-config (make)|pkg-config|
build: libcurl headers|curl.h|usr/include/x86_64-linux-gnu/curl/curl.h
build: libcurl for pkg-config|libcurl.pc|usr/lib/x86_64-linux-gnu/pkgconfig/libcurl.pc
build: yajl headers|yajl_tree.h|usr/include/yajl/yajl_tree.h
build: yajl for pkg-config|yajl.pc|usr/lib/x86_64-linux-gnu/pkgconfig/yajl.pc
build: sd-bus headers (the desktop notification)|sd-bus.h|usr/include/systemd/sd-bus.h
build: libsystemd for pkg-config|libsystemd.pc|usr/lib/x86_64-linux-gnu/pkgconfig/libsystemd.pc
build: cmocka (make unit)|cmocka.h|usr/include/cmocka.h
build: cmocka library (make unit)|libcmocka.so|usr/lib/x86_64-linux-gnu/libcmocka.so
build: memcheck (make unit VALGRIND=1)|valgrind|
build: the fuzzer (make fuzz)|clang|
build: the fuzzer runtime (make fuzz)|libclang_rt.fuzzer|usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a
build: the RPM (make rpm)|rpmbuild|
build: the RPM (make check-rpm)|rpm|
build: the RPM lint (make rpmlint)|rpmlint|
build: the RPM unpacked (make check-rpm)|cpio|
build: the source tarball (make tarball)|git|
build: shellcheck on every shell script (make check-conventions)|shellcheck|usr/bin/shellcheck
run time: the private service|podman|usr/bin/podman
run time: podman'"'"'s container monitor|conmon|usr/bin/conmon usr/libexec/podman/conmon
run time: OCI runtime on cgroup v1 hosts (setup-host.sh)|runc|usr/sbin/runc usr/bin/runc
run time: OCI runtime, podman'"'"'s default elsewhere|crun|usr/bin/crun
run time: podman'"'"'s init (the API'"'"'s init=true)|catatonit|usr/libexec/podman/catatonit
run time: podman'"'"'s network backend|netavark|usr/lib/podman/netavark
run time: podman'"'"'s network DNS|aardvark-dns|usr/lib/podman/aardvark-dns
run time: netavark'"'"'s firewall (iptables is an alternative)|iptables|usr/sbin/iptables-nft usr/sbin/iptables-legacy
run time: the rootless network namespace|slirp4netns|usr/bin/slirp4netns
run time: rootless user namespaces|newuidmap|usr/bin/newuidmap
run time: rootless user namespaces|newgidmap|usr/bin/newgidmap
images: root file systems (make images)|mmdebstrap|
images: mmdebstrap'"'"'s unshare mode, and tests|mount|usr/bin/mount bin/mount
images: agent-fetch asks npm for the registry|npm|usr/bin/npm
images: npm runs on node|node|usr/bin/node usr/bin/nodejs
images: agent-fetch downloads|curl|usr/bin/curl
images: TLS to the npm registry|ca-certificates|usr/sbin/update-ca-certificates
images: agent-fetch --bump, setup-host.sh, tests|python3|usr/bin/python3
images: agent-fetch digests|sha512sum|
images: agent-fetch digests|base64|
tests: the e2e suite|bats|
tests: the fake internet'"'"'s CA|openssl|
tests: a private session bus (110-egress-live)|dbus-run-session|usr/bin/dbus-run-session
tests: the session bus itself|dbus-daemon|usr/bin/dbus-daemon
tests: the notification listener'"'"'s D-Bus|python3-dbus|usr/lib/python3/dist-packages/dbus/service.py
tests: the notification listener'"'"'s main loop|python3-gi|usr/lib/python3/dist-packages/gi/__init__.py
tests: the service is the only program run|strace|
tests: the TTY tests|tmux|
tests: git on the host|git|
tests: host tools after a planted session (330-host-tools)|cargo|usr/bin/cargo
tests: host tools after a planted session (330-host-tools)|hg|usr/bin/hg
tests: host tools after a planted session (330-host-tools)|yarnpkg|usr/bin/yarnpkg
tests: processes|pgrep|
tests: process groups|setsid|
tests: user namespaces|unshare|
tests: timeouts|timeout|
tests: numbers|bc|
tests: libraries of a test image|ldd|
tests: comparisons|cmp|
tests: comparisons|diff|
tests: make check'"'"'s user-state guard|sha256sum|
tests: the TTY tests|stty|
tests: text|awk|usr/bin/mawk usr/bin/gawk usr/bin/original-awk
tests: the bash completion, loaded as bash-completion does (017-completions)|bash_completion|usr/share/bash-completion/bash_completion
tests: the zsh completion (017-completions)|zsh|usr/bin/zsh bin/zsh
tests: the fish completion (017-completions)|fish|usr/bin/fish
tests: the man page renders without warnings (015-help)|man|usr/bin/man
tests: the man page through groff (015-help)|groff|usr/bin/groff
tests: this test|apt-get|
tests: this test|apt-helper|usr/lib/apt/apt-helper
'

mkdir -p "$WORK/empty" "$WORK/state/lists/partial" "$WORK/cache/archives/partial" || die "cannot create $WORK"
: >"$WORK/status"
cat >"$WORK/sources.list" <<EOF
deb [signed-by=$KEYRING] $MIRROR $SUITE main
deb [signed-by=$KEYRING] $MIRROR $SUITE-updates main
deb [signed-by=$KEYRING] $SECURITY_MIRROR $SUITE-security main
EOF
cat >"$WORK/apt.conf" <<EOF
Dir::State "$WORK/state/";
Dir::State::status "$WORK/status";
Dir::Cache "$WORK/cache/";
Dir::Etc::SourceList "$WORK/sources.list";
Dir::Etc::SourceParts "$WORK/empty/";
Dir::Etc::Preferences "$WORK/empty/none";
Dir::Etc::PreferencesParts "$WORK/empty/";
Dir::Log "$WORK/";
Debug::NoLocking "true";
Acquire::Languages "none";
APT::Install-Recommends "false";
Acquire::IndexTargets::deb::Contents-deb {
    MetaKey "\$(COMPONENT)/Contents-\$(ARCHITECTURE)";
    ShortDescription "Contents-\$(ARCHITECTURE)";
    Description "\$(RELEASE)/\$(COMPONENT) \$(ARCHITECTURE) Contents (deb)";
    KeepCompressed "true";
};
EOF
export APT_CONFIG=$WORK/apt.conf

t0=$(date +%s)
apt-get -q update >"$WORK/update.log" 2>&1 || die "apt-get update failed (is $MIRROR reachable?): $(tail -3 "$WORK/update.log" | tr '\n' ' ')"
grep -q '^E:' "$WORK/update.log" && die "apt-get update: $(grep '^E:' "$WORK/update.log" | head -3 | tr '\n' ' ')"
contents=("$WORK"/state/lists/*_main_Contents-*)
[ -e "${contents[0]}" ] || die "the mirror gave no Contents index"

mapfile -t wanted < <("$SETUP_HOST" --print-packages) || die "$SETUP_HOST --print-packages failed"
[ ${#wanted[@]} -gt 0 ] || die "setup-host.sh --print-packages printed nothing"
mapfile -t base < <(apt-cache dumpavail | awk '/^Package:/ { p = $2 } /^Priority: required$/ { print p }' | sort -u)
[ ${#base[@]} -gt 10 ] || die "no Priority: required packages in the index"
apt-get -s install --no-install-recommends "${base[@]}" "${wanted[@]}" >"$WORK/simulate.log" 2>&1 ||
    die "the packages do not resolve on a fresh $SUITE: $(grep -E '^(E:| )' "$WORK/simulate.log" | head -5 | tr '\n' ' ')"
# "Inst NAME (VERSION ...)": the whole machine, since the status is empty
declare -A installed=()
while read -r _ name _; do installed[$name]=1; done < <(grep '^Inst ' "$WORK/simulate.log")
log "setup-host.sh's ${#wanted[@]} packages on ${#base[@]} required ones: ${#installed[@]} packages in all ($(($(date +%s) - t0)) s)"

# Which packages ship each candidate path: "path<TAB>section/pkg,section/pkg".
declare -A candidates=()
while IFS='|' read -r purpose name paths; do
    [ -n "$name" ] || continue
    [ -n "$paths" ] || paths="usr/bin/$name usr/sbin/$name bin/$name sbin/$name"
    for p in $paths; do candidates[$p]=1; done
done <<<"$PROGRAMS"
declare -A shipped_by=()
while read -r path pkgs; do
    shipped_by[$path]="${shipped_by[$path]:-} ${pkgs//,/ }"
done < <(/usr/lib/apt/apt-helper cat-file "${contents[@]}" |
    awk -v list="${!candidates[*]}" 'BEGIN { n = split(list, a, " "); for (i = 1; i <= n; i++) w[a[i]] = 1 }
        ($1 in w) { print $1, $NF }')

n=0 failed=0
echo "1..$(grep -c '|' <<<"$PROGRAMS")"
while IFS='|' read -r purpose name paths; do
    [ -n "$name" ] || continue
    [ -n "$paths" ] || paths="usr/bin/$name usr/sbin/$name bin/$name sbin/$name"
    n=$((n + 1))
    found='' providers=''
    for p in $paths; do
        for sp in ${shipped_by[$p]:-}; do
            pkg=${sp##*/}
            providers="$providers $pkg"
            if [ -n "${installed[$pkg]:-}" ] && [ -z "$found" ]; then found="/$p from $pkg"; fi
        done
    done
    if [ -n "$found" ]; then
        echo "ok $n - $name ($purpose): $found"
    else
        failed=$((failed + 1))
        echo "not ok $n - $name ($purpose): not installed by setup-host.sh on a fresh $SUITE"
        if [ -n "$providers" ]; then
            echo "#   ${paths// /, } ships in:$(tr ' ' '\n' <<<"$providers" | sort -u | tr '\n' ' ')"
        else
            echo "#   no package of $SUITE ships ${paths// / or }"
        fi
    fi
done <<<"$PROGRAMS"
echo "$((n - failed)) passed, $failed failed"
[ $failed -eq 0 ]
