# Helpers of the fault tests (400-faults.bats, 410-concurrency.bats;
# docs/faults.md): what a session is made of while it runs, proof that all of
# it is gone afterwards, background sessions, and faults inside the router.
#
# Load after helpers (and fake-internet, which gives every session an
# --internal egress network and a resolver on it; fh_egress_up is the
# fallback when the fake internet is not loaded).

FH_LABEL_PID=agent-sandbox.pid
FH_E2E_LABEL=agent-sandbox-e2e.faults

###############################################################################
# Network safety without the fake internet

# fh_egress_up: when nothing set the routers' egress side yet, an --internal
# network of this file's own (label $FH_E2E_LABEL) and a resolver address on
# it where nothing answers. setup_file; fh_egress_down in teardown_file.
fh_egress_up() {
    [ -n "${AGENT_SANDBOX_EGRESS_NETWORK:-}" ] && [ -n "${AGENT_SANDBOX_RESOLVER:-}" ] && return 0
    FH_EGRESS_NET=as-e2e-faults-$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')
    $PODMAN network create --internal --disable-dns --label "$FH_E2E_LABEL=1" "$FH_EGRESS_NET" >/dev/null ||
        die "creating the egress network $FH_EGRESS_NET failed"
    local subnet
    subnet=$($PODMAN network inspect "$FH_EGRESS_NET" --format '{{range .Subnets}}{{.Subnet}} {{end}}')
    subnet=${subnet%% *}
    [[ $subnet =~ ^([0-9]+\.[0-9]+\.[0-9]+)\.0/24$ ]] || die "unexpected subnet '$subnet' of $FH_EGRESS_NET"
    export FH_EGRESS_NET
    export AGENT_SANDBOX_EGRESS_NETWORK=$FH_EGRESS_NET
    export AGENT_SANDBOX_RESOLVER=${BASH_REMATCH[1]}.254
}

fh_egress_down() {
    [ -n "${FH_EGRESS_NET:-}" ] || return 0
    $PODMAN network rm -f "$FH_EGRESS_NET" >/dev/null 2>&1
    ! $PODMAN network exists "$FH_EGRESS_NET" || die "network $FH_EGRESS_NET is left"
}

###############################################################################
# What a session is made of

# fh_proc_key PID: "PID:STARTTIME" of a live process (start time in clock
# ticks, so a reused PID is not taken for the same process); empty if none.
fh_proc_key() {
    local pid=$1 stat
    stat=$(cat "/proc/$pid/stat" 2>/dev/null) || return 0
    stat=${stat##*) }            # fields 3... (the command name may hold spaces)
    # shellcheck disable=SC2086  # the fields of the stat line
    set -- $stat
    echo "$pid:${20}"            # field 22: start time
}

# fh_proc_alive PID:START: the very process still runs (a zombie does not:
# on this VM, PID 1 reaps orphans late).
fh_proc_alive() {
    local pid=${1%%:*} start=${1#*:} stat
    stat=$(cat "/proc/$pid/stat" 2>/dev/null) || return 1
    stat=${stat##*) }
    # shellcheck disable=SC2086  # the fields of the stat line
    set -- $stat
    [ "$1" != Z ] && [ "${20}" = "$start" ]
}

# fh_session_of PID [SECS]: the id of the session whose CLI has PID, once its
# first container exists (default 60 s).
fh_session_of() {
    local pid=$1 secs=${2:-60} n id
    for ((n = 0; n < secs * 10; n++)); do
        id=$($PODMAN ps -a --filter "label=$FH_LABEL_PID=$pid" \
            --format "{{index .Labels \"$AS_LABEL\"}}" 2>/dev/null | head -1)
        [ -n "$id" ] && { echo "$id"; return 0; }
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    die "no container of the session of CLI $pid within ${secs}s"
}

# fh_snapshot ID: records everything of session ID that exists now, for
# fh_assert_gone: its containers (the pod's infra container too), pod,
# network, directory, socket, and processes (the private podman service,
# every container's main process and conmon). Sets FH_SNAP_* and prints it.
fh_snapshot() {
    local id=$1 c pids
    FH_SNAP_ID=$id
    FH_SNAP_DIR=$AS_SESSIONS_DIR/$id
    FH_SNAP_POD=agent-sandbox-$id
    FH_SNAP_NET=agent-sandbox-$id-net
    FH_SNAP_CONTAINERS=()
    FH_SNAP_PROCS=()
    mapfile -t FH_SNAP_CONTAINERS < <(
        {
            $PODMAN ps -a -q --no-trunc --filter "label=$AS_LABEL=$id"
            $PODMAN ps -a -q --no-trunc --filter "pod=$FH_SNAP_POD"
        } 2>/dev/null | sort -u)
    for c in "${FH_SNAP_CONTAINERS[@]}"; do
        for pids in $($PODMAN inspect "$c" --format '{{.State.Pid}} {{.State.ConmonPid}}' 2>/dev/null); do
            [ "$pids" -gt 0 ] 2>/dev/null && FH_SNAP_PROCS+=("$(fh_proc_key "$pids") container $c")
        done
    done
    for pids in $(pgrep -u "$(id -u)" -f -- "$FH_SNAP_DIR/podman.sock" || true); do
        FH_SNAP_PROCS+=("$(fh_proc_key "$pids") podman-service")
    done
    echo "# session $id: ${#FH_SNAP_CONTAINERS[@]} containers, ${#FH_SNAP_PROCS[@]} processes"
    printf '#   %s\n' "${FH_SNAP_CONTAINERS[@]}" "${FH_SNAP_PROCS[@]}"
}

# fh_left: what of the snapshot session still exists, one line each.
fh_left() {
    local id=$FH_SNAP_ID c p
    for c in "${FH_SNAP_CONTAINERS[@]}"; do
        $PODMAN container exists "$c" 2>/dev/null && echo "container $c"
    done
    $PODMAN ps -a --filter "label=$AS_LABEL=$id" --format 'container {{.ID}} {{.Names}} (labelled)'
    $PODMAN pod exists "$FH_SNAP_POD" 2>/dev/null && echo "pod $FH_SNAP_POD"
    $PODMAN pod ps --filter "label=$AS_LABEL=$id" --format 'pod {{.Name}} (labelled)'
    $PODMAN network exists "$FH_SNAP_NET" 2>/dev/null && echo "network $FH_SNAP_NET"
    $PODMAN volume ls --filter "label=$AS_LABEL=$id" --format 'volume {{.Name}}'
    [ -e "$FH_SNAP_DIR" ] && echo "directory $FH_SNAP_DIR"
    for p in "${FH_SNAP_PROCS[@]}"; do
        fh_proc_alive "${p%% *}" && echo "process ${p%%:*} (${p#* })"
    done
    pgrep -u "$(id -u)" -f -- "$FH_SNAP_DIR/" | sed 's/^/process /;s/$/ (names the session directory)/'
    true
}

# fh_assert_left: something of the snapshot session is still there (after a
# kill -9: the test is only meaningful if there is something to remove).
fh_assert_left() {
    [ -n "$(fh_left)" ] || die "nothing of session $FH_SNAP_ID is left to remove"
}

# fh_assert_gone [WHEN]: nothing of the snapshot session is left.
fh_assert_gone() {
    local left
    wait_teardowns      # the removals run after the prompt (issue 28)
    left=$(fh_left)
    [ -z "$left" ] || die "left of session $FH_SNAP_ID ${1:-after the session}:"$'\n'"$left"
}

# fh_wait_gone PROC_KEY SECS: wait until the process is gone.
fh_wait_proc_gone() {
    local key=$1 secs=$2 n
    for ((n = 0; n < secs * 10; n++)); do
        fh_proc_alive "$key" || return 0
        sleep 0.1
    done
    return 1
}

# fh_service_key: the PID:START of the snapshot session's podman service.
fh_service_key() {
    local p
    for p in "${FH_SNAP_PROCS[@]}"; do
        [[ $p == *" podman-service" ]] && { echo "${p%% *}"; return 0; }
    done
    die "no podman service in the snapshot of session $FH_SNAP_ID"
}

###############################################################################
# Waiting

# fh_wait_text FILE TEXT SECS: wait until FILE contains TEXT.
fh_wait_text() {
    local file=$1 text=$2 secs=$3 n
    for ((n = 0; n < secs * 10; n++)); do
        grep -Fq -- "$text" "$file" 2>/dev/null && return 0
        sleep 0.1
    done
    die "\"$text\" did not appear in $file within ${secs}s:"$'\n'"$(cat "$file" 2>/dev/null)"
}

# fh_wait_not_running CONTAINER SECS: wait until CONTAINER does not run.
fh_wait_not_running() {
    local c=$1 secs=$2 n state
    for ((n = 0; n < secs * 10; n++)); do
        state=$($PODMAN inspect "$c" --format '{{.State.Running}}' 2>/dev/null) || return 0
        [ "$state" = false ] && return 0
        sleep 0.1
    done
    die "container $c still runs after ${secs}s"
}

# fh_wait_running NAME_REGEX PID SECS: the name of the first running
# container of CLI PID whose name matches NAME_REGEX.
fh_wait_running() {
    local re=$1 pid=$2 secs=$3 n name
    for ((n = 0; n < secs * 10; n++)); do
        name=$($PODMAN ps --filter "label=$FH_LABEL_PID=$pid" --format '{{.Names}}' 2>/dev/null | grep -E -- "$re" | head -1)
        [ -n "$name" ] && { echo "$name"; return 0; }
        sleep 0.1
    done
    die "no running container matching $re of CLI $pid within ${secs}s"
}

###############################################################################
# Faults

# fh_router_kill CONTAINER COMM [SIGNAL]: send SIGNAL (KILL) to the server
# COMM (the nginx master, dnsmasq: a child of the entry point) inside the
# router container. The image has no pkill; its servers run as nobody, and
# container root has no CAP_KILL, so this runs as nobody too. The entry
# point then stops the whole container, which may end this exec before it
# reports: then the container must have stopped.
fh_router_kill() {
    local c=$1 comm=$2 sig=${3:-KILL} out rc=0
    out=$($PODMAN exec --user 65534:65534 "$c" sh -c '
        for d in /proc/[0-9]*; do
            [ "$(cat $d/comm 2>/dev/null)" = "$1" ] || continue
            ppid=$(sed "s/.*) //" $d/stat | cut -d" " -f2)
            [ "$ppid" = 1 ] || continue
            kill -s "$2" "${d#/proc/}" && echo "killed ${d#/proc/}" && exit 0
        done
        echo "no $1 process with parent 1" >&2; exit 1' sh "$comm" "$sig" 2>&1) || rc=$?
    [[ $out == "killed "* ]] && return 0
    if [ $rc != 0 ] && [ -z "$out" ]; then
        fh_wait_not_running "$c" 10
        return 0
    fi
    die "killing $comm in $c failed (exit $rc): $out"
}

###############################################################################
# Images made for a test

# fh_broken_router_image KIND: a throwaway image FROM the router image with
# one server broken; prints its name. KIND: nginx-exit (the router's nginx
# exits 1 at once), nginx-hang (the router's nginx runs but never listens),
# dnsmasq-hang (dnsmasq runs but never answers), forwarder-exit (the
# forwarder's nginx exits 1 at once). The forwarder runs nginx too, from
# the same image: a broken nginx breaks only the one of its KIND, and the
# other runs the real one (moved to nginx.real). Removed by fh_images_down.
fh_broken_router_image() {
    local kind=$1 base=${AGENT_SANDBOX_ROUTER_IMAGE:-localhost/agent-sandbox-router:dev}
    local name=localhost/as-e2e-broken-router-$kind:${FH_IMG_TAG:-$$} ctx script path move=true
    local exit1='echo "nginx: broken for a test" >&2; exit 1' hang='exec sleep 100000'
    # nginx_broken_for DIR WHAT: an nginx that does WHAT when its
    # configuration is under DIR (a script with \n escapes, for printf)
    nginx_broken_for() {
        printf '#!/bin/sh\\ncase "$*" in *%s*) %s ;; esac\\nexec /usr/sbin/nginx.real "$@"\\n' "$1" "$2"
    }
    if ! $PODMAN image exists "$name"; then
        case $kind in
            nginx-exit) path=/usr/sbin/nginx script=$(nginx_broken_for /etc/agent-sandbox-router/ "$exit1") ;;
            nginx-hang) path=/usr/sbin/nginx script=$(nginx_broken_for /etc/agent-sandbox-router/ "$hang") ;;
            forwarder-exit) path=/usr/sbin/nginx script=$(nginx_broken_for /run/agent-sandbox/forwarder "$exit1") ;;
            dnsmasq-hang) path=/usr/sbin/dnsmasq script='#!/bin/sh\nexec sleep 100000\n' ;;
            *) die "fh_broken_router_image: unknown kind $kind" ;;
        esac
        [ "$path" = /usr/sbin/nginx ] && move='mv /usr/sbin/nginx /usr/sbin/nginx.real'
        ctx=$(mktemp -d "$AS_E2E_ROOT/.img-XXXXXXXX")
        printf 'FROM %s\nRUN %s && printf '"'%s'"' >%s && chmod 0755 %s\n' "$base" "$move" "$script" "$path" "$path" >"$ctx/Containerfile"
        $PODMAN build --network none --label "$FH_E2E_LABEL=1" -t "$name" "$ctx" >"$ctx/build.log" 2>&1 ||
            die "building $name failed:"$'\n'"$(cat "$ctx/build.log")"
        rm -rf "$ctx"
    fi
    echo "$name"
}

# fh_images_down: remove the images fh_broken_router_image made (teardown_file).
fh_images_down() {
    local imgs
    imgs=$($PODMAN images --filter "label=$FH_E2E_LABEL=1" --format '{{.Repository}}:{{.Tag}}' | grep -v '<none>')
    # shellcheck disable=SC2086  # one argument per image
    [ -n "$imgs" ] && $PODMAN rmi -f $imgs >/dev/null 2>&1
    $PODMAN image prune -f --filter "label=$FH_E2E_LABEL=1" >/dev/null 2>&1
    true
}

###############################################################################
# Several background sessions (410-concurrency.bats)

# fh_bg_start TAG DIR COMMAND...: like bg_start, but several at once: in DIR,
# output to $AS_RUN_DIR/TAG.{stdout,stderr}, status to TAG.rc, the PID (the
# CLI's own, the leader of its process group) in TAG.pid.
fh_bg_start() {
    local tag=$1 dir=$2
    shift 2
    local cmd=("$@") i
    for i in "${!cmd[@]}"; do
        if [ "${cmd[$i]}" = agent-sandbox ]; then cmd[i]=$AGENT_SANDBOX_BIN; break; fi
    done
    local base=$AS_RUN_DIR/$tag
    rm -f "$base.pid" "$base.rc"
    (
        cd "$dir" || exit 1
        rc=0
        setsid --wait bash -c 'echo $$ >"$0"; exec env --default-signal=INT,QUIT "$@"' \
            "$base.pid" "${cmd[@]}" \
            </dev/null >"$base.stdout" 2>"$base.stderr" || rc=$?
        echo "$rc" >"$base.rc"
    ) </dev/null >/dev/null 2>&1 3>&- &
    FH_BG_TAGS+=("$tag")
    local n
    for ((n = 0; n < 100; n++)); do
        [ -s "$base.pid" ] && break
        sleep 0.05
    done
    [ -s "$base.pid" ] || die "background session $tag did not start"
}

# fh_bg_cli_pid TAG: the CLI's PID.
fh_bg_cli_pid() {
    cat "$AS_RUN_DIR/$1.pid"
}

# fh_bg_wait TAG SECS: sets $status, $output, $stderr of background TAG.
fh_bg_wait() {
    local tag=$1 secs=$2 n base=$AS_RUN_DIR/$1
    for ((n = 0; n < secs * 10; n++)); do
        [ -s "$base.rc" ] && break
        sleep 0.1
    done
    [ -s "$base.rc" ] || die "background session $tag still running after ${secs}s"
    status=$(<"$base.rc")
    output=$(<"$base.stdout")
    stderr=$(<"$base.stderr")
    printf '%s\n' "--- $tag [exit $status]" "$output"
    [ -n "$stderr" ] && printf '%s\n' "$stderr" | sed "s/^/[$tag stderr] /"
    check_sanitizer "$base.stderr"
}

# fh_bg_kill_all: end every background session still running (teardown):
# SIGTERM, then after 30 s SIGKILL, to each one's process group.
fh_bg_kill_all() {
    local tag pid n left
    for tag in "${FH_BG_TAGS[@]}"; do
        [ -s "$AS_RUN_DIR/$tag.rc" ] && continue
        pid=$(cat "$AS_RUN_DIR/$tag.pid" 2>/dev/null) || continue
        kill -TERM -- "-$pid" 2>/dev/null || true
    done
    for ((n = 0; n < 300; n++)); do
        left=
        for tag in "${FH_BG_TAGS[@]}"; do
            [ -s "$AS_RUN_DIR/$tag.rc" ] || left=1
        done
        [ -z "$left" ] && break
        sleep 0.1
    done
    for tag in "${FH_BG_TAGS[@]}"; do
        [ -s "$AS_RUN_DIR/$tag.rc" ] && continue
        pid=$(cat "$AS_RUN_DIR/$tag.pid" 2>/dev/null) || continue
        kill -KILL -- "-$pid" 2>/dev/null || true
    done
    FH_BG_TAGS=()
}

###############################################################################
# The egress probe of the threat-27 tests

# fh_write_egress_probe: $AS_DIR/egress-probe.sh, run in the sandbox as
#   bash ./egress-probe.sh ORIGIN_IP CANARY_IP FAKE_DNS_IP
# It probes every way out ("before ..." lines), creates .running, waits for
# .go (120 s at most), probes again ("after ..." lines) and exits 0. Each
# line: "PHASE NAME: ok FIRST-LINE", "PHASE NAME: failed RC FIRST-LINE", or
# netprobe's own verdict. Probes run in parallel, each bounded.
fh_write_egress_probe() {
    cat >"$AS_DIR/egress-probe.sh" <<'PROBE'
#!/bin/bash
origin=$1 canary=$2 fakedns=$3
router=$(awk '/^nameserver/ {print $2; exit}' /etc/resolv.conf)
one() {
    local name=$1 out rc
    shift
    out=$(timeout 15 "$@" 2>&1)
    rc=$?
    out=$(printf '%s\n' "$out" | head -1 | tr -d '\r')
    if [ $rc = 0 ]; then echo "$name: ok $out"; else echo "$name: failed $rc $out"; fi
}
probes() {
    local p=$1 d=/tmp/probe-$1
    mkdir -p "$d"
    one "$p https" curl -sS --max-time 5 --cacert ca.pem https://api.allowed.test/ >"$d/01" &
    one "$p http" curl -sS --max-time 5 http://api.allowed.test/ >"$d/02" &
    one "$p router-https" curl -sS --max-time 5 --cacert ca.pem \
        --connect-to "api.allowed.test:443:$router:443" https://api.allowed.test/ >"$d/03" &
    one "$p router-http" curl -sS --max-time 5 -H 'Host: api.allowed.test' "http://$router/" >"$d/04" &
    # after the fault, glibc's defaults (5 s, twice) would make the dead
    # resolver the slowest probe by far: one try of 3 s, netprobe's bound
    local res=
    [ "$p" = after ] && res='timeout:3 attempts:1'
    RES_OPTIONS=$res one "$p getent" getent ahostsv4 www.wild.test >"$d/05" &
    echo "$p dns: $(timeout 15 ./netprobe dns "$router" A www.wild.test)" >"$d/06" &
    echo "$p origin: $(timeout 15 ./netprobe tcp "$origin" 443)" >"$d/07" &
    echo "$p canary: $(timeout 15 ./netprobe tcp "$canary" 80)" >"$d/08" &
    echo "$p fake-dns: $(timeout 15 ./netprobe dns "$fakedns" A api.allowed.test)" >"$d/09" &
    wait
    cat "$d"/*
}
probes before
touch .running
for ((i = 0; i < 1200; i++)); do [ -e .go ] && break; sleep 0.1; done
[ -e .go ] || echo "egress-probe: no .go within 120 s" >&2
probes after
PROBE
}
