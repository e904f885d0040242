#!/usr/bin/env bash
# Prepares a Debian 12 machine for building agent-sandbox and running it
# rootless as USER. Run as root; idempotent. Every machine quirk is detected,
# never assumed: the fix is applied only where the symptom exists.
#
#   scripts/setup-host.sh USER              install packages and prepare USER
#   scripts/setup-host.sh --packages        install packages only
#   scripts/setup-host.sh --user-only USER  prepare USER only, on a machine
#                                           whose packages are in place (the
#                                           podman 5 test bed: tests/podman5)
#   scripts/setup-host.sh --print-packages  the packages a fresh machine gets,
#                                           one a line (no root needed;
#                                           tests/host/test-setup-packages.sh
#                                           checks them)
set -euo pipefail

# Installed without their Recommends, so whatever the product runs is named
# here, Recommends included: catatonit (podman's init, which the CLI asks
# for), ca-certificates (curl to the npm registry), mount (mmdebstrap).
PACKAGES=(
    podman runc crun uidmap slirp4netns fuse-overlayfs netavark aardvark-dns
    catatonit iptables dnsmasq-base nginx-light libnginx-mod-stream socat
    build-essential pkg-config libcurl4-openssl-dev libssl-dev libyajl-dev libsystemd-dev libcmocka-dev
    # the unit test that runs the router's request checks with nginx's regex library
    libpcre2-dev
    mmdebstrap mount bats openssl curl ca-certificates rpm valgrind tmux strace git
    clang libclang-rt-14-dev cpio rpmlint bc rsync
    python3 procps
    # the desktop notification test: a private session bus and a listener on it
    dbus-daemon python3-dbus python3-gi
    # host tools the workspace-protection tests run on the tree afterwards
    cargo mercurial yarnpkg
    # make bench: the process-level peer it compares with (srt) needs them
    bubblewrap ripgrep
    # the completions' tests run each shell; the man page's renders it
    bash-completion zsh fish man-db groff-base
    # make check-conventions: every shell script through shellcheck
    shellcheck
)
# npm: agent-fetch asks it which registry to download from. Any npm on
# PATH does; Debian's is installed only where there is none, since a newer
# Node.js from elsewhere (NodeSource's nodejs package, say) ships its own npm
# and conflicts with Debian's.
OPTIONAL_COMMANDS=(npm)

log() { printf 'setup-host: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

if [ "${1:-}" = --print-packages ]; then
    printf '%s\n' "${PACKAGES[@]}" "${OPTIONAL_COMMANDS[@]}"
    exit 0
fi

[ "$(id -u)" -eq 0 ] || die "run as root"

install_packages() {
    local missing=() p
    for p in "${PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
    done
    for p in "${OPTIONAL_COMMANDS[@]}"; do
        command -v "$p" >/dev/null || missing+=("$p")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        log "installing: ${missing[*]}"
        apt-get update -q
        # --no-remove: never take away a package the machine already has
        # (e.g. a Node.js that conflicts with Debian's npm); fail instead.
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends --no-remove "${missing[@]}" ||
            die "apt-get could not install ${missing[*]} without removing something; install them by hand"
    fi
}

# Give USER a subordinate id range unless it already has one.
ensure_subids() {
    local user=$1 file
    for file in /etc/subuid /etc/subgid; do
        touch "$file"
        if ! grep -q "^$user:" "$file"; then
            local start
            start=$(awk -F: 'BEGIN{m=100000} {e=$2+$3; if (e>m) m=e} END{print m}' "$file")
            echo "$user:$start:65536" >>"$file"
            log "added $user:$start:65536 to $file"
        fi
    done
}

# Write KEY = VALUE under [SECTION] of a TOML-ish containers config file,
# replacing an existing key; keeps the rest of the file as it is.
conf_set() {
    local file=$1 section=$2 key=$3 value=$4
    [ -f "$file" ] || : >"$file"
    python3 - "$file" "$section" "$key" "$value" <<'PY'
import re, sys
path, section, key, value = sys.argv[1:]
lines = open(path).read().splitlines()
out, cur, done = [], None, False
for ln in lines:
    m = re.match(r'\s*\[([^\]]+)\]\s*$', ln)
    if m:
        if cur == section and not done:
            out.append(f'{key} = {value}'); done = True
        cur = m.group(1)
    elif cur == section and re.match(rf'\s*{re.escape(key)}\s*=', ln):
        if not done:
            out.append(f'{key} = {value}'); done = True
        continue
    out.append(ln)
if not done:
    if cur != section:
        out.append(f'[{section}]')
    out.append(f'{key} = {value}')
open(path, 'w').write('\n'.join(out) + '\n')
PY
}

# A runtime dir kept from a boot that is gone (a machine restored from a
# snapshot, say) still describes that boot: its pause.pid names a dead
# process, so podman refuses to run ("invalid internal status"), and its
# "alive" file keeps podman from resetting the containers it thinks still
# run. With no process of USER alive nothing uses the dir: empty it, as a
# reboot does. Otherwise only a pause.pid naming no live process of USER goes.
clear_stale_runtime_dir() {
    local user=$1 dir=$2 pid
    if ! pgrep -u "$user" >/dev/null; then
        [ -n "$(find "$dir" -mindepth 1 -maxdepth 1 -print -quit)" ] || return 0
        find "$dir" -mindepth 1 -maxdepth 1 -exec rm -rf --one-file-system {} +
        log "$dir was left from processes of $user that are gone: emptied"
        return 0
    fi
    local pause=$dir/libpod/tmp/pause.pid
    [ -f "$pause" ] || return 0
    pid=$(cat "$pause")
    if [[ ! $pid =~ ^[0-9]+$ ]] || [ "$(stat -c %U "/proc/$pid" 2>/dev/null)" != "$user" ]; then
        rm -f "$pause"
        log "$pause named no process of $user: removed"
    fi
}

prepare_user() {
    local user=$1
    id "$user" >/dev/null 2>&1 || { useradd -m -s /bin/bash "$user"; log "created user $user"; }
    ensure_subids "$user"
    local uid home
    uid=$(id -u "$user"); home=$(getent passwd "$user" | cut -d: -f6)

    # No systemd login session here: make the runtime dir by hand.
    install -d -m 0700 -o "$user" -g "$(id -g "$user")" "/run/user/$uid"
    clear_stale_runtime_dir "$user" "/run/user/$uid"

    # slirp4netns needs /dev/net/tun; 0666 is its normal mode.
    if [ -c /dev/net/tun ] && [ "$(stat -c %a /dev/net/tun)" != 666 ]; then
        chmod 666 /dev/net/tun; log "/dev/net/tun was not 0666: fixed"
    fi

    local cfg="$home/.config/containers"
    runuser -u "$user" -- mkdir -p "$cfg"

    # crun cannot run on a hybrid cgroup hierarchy (cgroup v1 with a cgroup2
    # mount holding controllers); runc can.
    if [ "$(stat -fc %T /sys/fs/cgroup)" != cgroup2fs ]; then
        runuser -u "$user" -- bash -c "$(declare -f conf_set); conf_set '$cfg/containers.conf' engine runtime '\"runc\"'"
        log "cgroup v1/hybrid: runtime = runc for $user"
    fi

    # Debian ships no storage.conf, so rootless podman falls back to vfs,
    # which copies every image per container. Use native overlay where the
    # kernel allows unprivileged overlay mounts.
    if runuser -u "$user" -- unshare -rm sh -c 'd=$(mktemp -d) && mkdir $d/l $d/u $d/w $d/m && mount -t overlay o -o lowerdir=$d/l,upperdir=$d/u,workdir=$d/w $d/m; r=$?; umount $d/m 2>/dev/null; rm -rf $d; exit $r' 2>/dev/null; then
        local sconf="$cfg/storage.conf" before=""
        [ -f "$sconf" ] && before=$(grep -E '^\s*driver\s*=' "$sconf" || true)
        runuser -u "$user" -- bash -c "$(declare -f conf_set); conf_set '$sconf' storage driver '\"overlay\"'"
        if [ "$before" != 'driver = "overlay"' ] && [ -d "$home/.local/share/containers/storage/vfs" ]; then
            runuser -u "$user" -- env XDG_RUNTIME_DIR="/run/user/$uid" podman system reset -f >/dev/null 2>&1 || true
            log "storage was vfs for $user: reset to overlay"
        fi
    fi
    log "user $user ready (uid $uid)"
}

case "${1:-}" in
    --packages) install_packages ;;
    --user-only) [ -n "${2:-}" ] || die "usage: $0 --user-only USER"; prepare_user "$2" ;;
    "" | -*) die "usage: $0 USER | --packages | --user-only USER | --print-packages" ;;
    *) install_packages; prepare_user "$1" ;;
esac
