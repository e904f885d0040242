#!/usr/bin/env bats
# Several sessions at once (threat model item 29; docs/faults.md): five
# sessions from five directories get their own names, networks, subnets,
# directories and services; none can reach another's router or pod, directly
# or through its own router; none sees another's files or /tmp.
#
# The routers' egress side is the fake internet (fake-internet.bash), an
# --internal network of this file's own.

load helpers
load fake-internet
load fault-helpers

N_SESSIONS=5

setup_file() { fi_up; }
teardown_file() { fi_down; }
setup() {
    as_setup
    fi_setup
    # shellcheck disable=SC2034  # fault-helpers.bash's
    FH_BG_TAGS=()
    DIRS=("$AS_DIR")
}
teardown() {
    fh_bg_kill_all
    fi_dns_reset >/dev/null 2>&1 || true
    local d
    for d in "${DIRS[@]:1}"; do
        rm -rf "$d" 2>/dev/null || $PODMAN unshare rm -rf "$d"
    done
    as_teardown
}

# five_dirs: DIRS[0..4], launch directories side by side (never one inside
# another), each with the test's tools.
five_dirs() {
    local i d
    for ((i = 1; i < N_SESSIONS; i++)); do
        d=$(cd "$(mktemp -d "$AS_E2E_ROOT/XXXXXXXX")" && pwd -P)
        cp "$AS_DIR/ca.pem" "$AS_DIR/netprobe" "$d/"
        DIRS+=("$d")
    done
}

# start_five SCRIPT: the five sessions, session i running `bash SCRIPT i` in
# DIRS[i] (SCRIPT must create .running, then wait for .go); waits until all
# run. Sets IDS[i], CLI_PIDS[i].
start_five() {
    local script=$1 i
    IDS=() CLI_PIDS=()
    for ((i = 0; i < N_SESSIONS; i++)); do
        [ "$i" = 0 ] || cp "$AS_DIR/$script" "${DIRS[$i]}/$script"
        fh_bg_start "s$i" "${DIRS[$i]}" agent-sandbox --exec bash "./$script" "$i"
    done
    for ((i = 0; i < N_SESSIONS; i++)); do
        local n
        for ((n = 0; n < 1800; n++)); do
            [ -e "${DIRS[$i]}/.running" ] && break
            [ -s "$AS_RUN_DIR/s$i.rc" ] && die "session $i ended before it ran:"$'\n'"$(cat "$AS_RUN_DIR/s$i.stderr")"
            sleep 0.1
        done
        [ -e "${DIRS[$i]}/.running" ] || die "session $i did not run within 180 s"
        CLI_PIDS[i]=$(fh_bg_cli_pid "s$i")
        IDS[i]=$(fh_session_of "${CLI_PIDS[$i]}")
    done
}

# finish_five: releases the five sessions and waits for them; OUT[i] is the
# output of session i; each exited 0.
finish_five() {
    local i
    for ((i = 0; i < N_SESSIONS; i++)); do touch "${DIRS[$i]}/.go"; done
    OUT=()
    for ((i = 0; i < N_SESSIONS; i++)); do
        fh_bg_wait "s$i" 180
        assert "$status" == 0 "exit status of session $i"
        OUT[i]=$output
    done
}

# five_gone: nothing of the five sessions is left (besides the harness's
# own leak check): containers, pods, networks, directories, services.
five_gone() {
    local i id left=
    wait_teardowns
    for ((i = 0; i < N_SESSIONS; i++)); do
        id=${IDS[$i]}
        left+=$($PODMAN ps -a --filter "label=$AS_LABEL=$id" --format "container {{.Names}}")
        left+=$($PODMAN pod ps --filter "label=$AS_LABEL=$id" --format "pod {{.Name}}")
        $PODMAN network exists "agent-sandbox-$id-net" && left+="network agent-sandbox-$id-net"$'\n'
        [ -e "$AS_SESSIONS_DIR/$id" ] && left+="directory $AS_SESSIONS_DIR/$id"$'\n'
        left+=$(pgrep -u "$(id -u)" -f -- "$AS_SESSIONS_DIR/$id/" | sed 's/^/process /')
    done
    [ -z "$left" ] || die "left of the five sessions:"$'\n'"$left"
}

# line_of TEXT LABEL: the value of the line "LABEL: VALUE" of TEXT.
line_of() {
    local line
    while IFS= read -r line; do
        [[ $line == "$2: "* ]] && { echo "${line#"$2: "}"; return 0; }
    done <<<"$1"
    echo "<no line '$2:'>"
}

@test "threat 29: five sessions at once: unique names and subnets, none reaches another's router or pod" {
    five_dirs
    cat >"$AS_DIR/cross-net.sh" <<'EOF'
#!/bin/bash
# Session $1: from here, try every other session's router and pod (targets:
# "LABEL IP" lines), and the names the fake DNS points at them through the
# own router (names: one per line). One "LABEL ...: RESULT" line each.
own=$(awk '/^nameserver/ {print $2; exit}' /etc/resolv.conf)
touch .running
for ((i = 0; i < 1800; i++)); do [ -e .go ] && break; sleep 0.1; done
d=/tmp/cross
mkdir -p $d
echo "own https: $(curl -sS --max-time 10 --cacert ca.pem https://api.allowed.test/ 2>&1 | head -1)" >$d/00 &
echo "own router: $(./netprobe tcp "$own" 80 'GET / HTTP/1.0\r\nHost: api.allowed.test\r\n\r\n' | head -c 60)" >$d/01 &
k=100
while read -r label ip; do
    for p in 53 80 443; do
        k=$((k + 1))
        echo "$label tcp/$p: $(./netprobe tcp "$ip" $p x)" >$d/$k &
    done
    k=$((k + 1))
    echo "$label udp/53: $(./netprobe dns "$ip" A api.allowed.test)" >$d/$k &
done <targets
while read -r name; do
    k=$((k + 1))
    echo "via $name https: $(curl -sS --max-time 10 --cacert ca.pem "https://$name/" 2>&1 | head -1)" >$d/$k &
    k=$((k + 1))
    echo "via $name http: $(curl -sS --max-time 10 -o /dev/null -w '%{http_code}' "http://$name/" 2>&1 | head -1)" >$d/$k &
done <names
wait
cat $d/*
EOF
    start_five cross-net.sh

    # Unique: ids, networks and subnets, directories, services; every
    # session on its own network, not on the egress one.
    local i j id net infra
    local -a NETS SUBNETS ROUTERS ROUTERS_EGRESS PODS SERVICES
    for ((i = 0; i < N_SESSIONS; i++)); do
        id=${IDS[$i]}
        net=agent-sandbox-$id-net
        # shellcheck disable=SC2034  # read below, through the nameref of "distinct $what"
        NETS[i]=$net
        SUBNETS[i]=$($PODMAN network inspect "$net" --format '{{range .Subnets}}{{.Subnet}} {{end}}')
        SUBNETS[i]=${SUBNETS[$i]% }
        ROUTERS[i]=$($PODMAN inspect "agent-sandbox-$id-router" --format "{{(index .NetworkSettings.Networks \"$net\").IPAddress}}")
        ROUTERS_EGRESS[i]=$($PODMAN inspect "agent-sandbox-$id-router" --format "{{(index .NetworkSettings.Networks \"$FI_NET\").IPAddress}}")
        infra=$($PODMAN pod inspect "agent-sandbox-$id" --format '{{.InfraContainerID}}')
        PODS[i]=$($PODMAN inspect "$infra" --format "{{(index .NetworkSettings.Networks \"$net\").IPAddress}}")
        SERVICES[i]=$(pgrep -u "$(id -u)" -f -- "$AS_SESSIONS_DIR/$id/podman.sock" | xargs)
        echo "# session $i: $id ${SUBNETS[$i]} router ${ROUTERS[$i]} (egress ${ROUTERS_EGRESS[$i]}) pod ${PODS[$i]} service ${SERVICES[$i]} dir ${DIRS[$i]}"
        [ -n "${ROUTERS[$i]}" ] && [ -n "${ROUTERS_EGRESS[$i]}" ] && [ -n "${PODS[$i]}" ] ||
            die "session $i: an address is missing"
        [[ ${SUBNETS[$i]} =~ ^[0-9.]+/[0-9]+$ ]] || die "session $i: subnet '${SUBNETS[$i]}'"
        assert "${SUBNETS[$i]}" != "$FI_SUBNET" "session $i's subnet is not the egress network's"
        [[ ${SERVICES[$i]} =~ ^[0-9]+$ ]] || die "session $i: not exactly one podman service: '${SERVICES[$i]}'"
        [ -d "$AS_SESSIONS_DIR/$id" ] || die "session $i: no directory"
        assert "$($PODMAN inspect "agent-sandbox-$id-agent" --format '{{range .Mounts}}{{if eq .Destination "'"${DIRS[$i]}"'"}}{{.Source}}{{end}}{{end}}')" \
            == "${DIRS[$i]}" "session $i mounts its own directory"
    done
    local what
    for what in IDS NETS SUBNETS ROUTERS ROUTERS_EGRESS PODS SERVICES CLI_PIDS; do
        local -n arr=$what
        assert "$(printf '%s\n' "${arr[@]}" | sort -u | wc -l)" == "$N_SESSIONS" "distinct $what: ${arr[*]}"
        unset -n arr
    done
    # no two subnets overlap (podman hands out whole networks: compare them
    # as address ranges)
    local -a lo hi
    for ((i = 0; i < N_SESSIONS; i++)); do
        local a b c d p n
        IFS=./ read -r a b c d p <<<"${SUBNETS[$i]}"
        n=$(((a << 24) | (b << 16) | (c << 8) | d))
        lo[i]=$n hi[i]=$((n + (1 << (32 - p)) - 1))
    done
    for ((i = 0; i < N_SESSIONS; i++)); do
        for ((j = i + 1; j < N_SESSIONS; j++)); do
            [ "${hi[$i]}" -lt "${lo[$j]}" ] || [ "${hi[$j]}" -lt "${lo[$i]}" ] ||
                die "subnets of sessions $i and $j overlap: ${SUBNETS[$i]} ${SUBNETS[$j]}"
        done
    done

    # Targets for each session: every other session's router (its session
    # address and its egress address) and pod; and names the fake DNS points
    # at them, for the own router to try.
    for ((j = 0; j < N_SESSIONS; j++)); do
        fi_dns_add "${ROUTERS[$j]}" "cross-router-$j.wild.test"
        fi_dns_add "${ROUTERS_EGRESS[$j]}" "cross-egress-$j.wild.test"
        fi_dns_add "${PODS[$j]}" "cross-pod-$j.wild.test"
    done
    for ((i = 0; i < N_SESSIONS; i++)); do
        : >"${DIRS[$i]}/targets"
        : >"${DIRS[$i]}/names"
        for ((j = 0; j < N_SESSIONS; j++)); do
            [ "$i" = "$j" ] && continue
            printf '%s %s\n' "router-$j" "${ROUTERS[$j]}" "router-egress-$j" "${ROUTERS_EGRESS[$j]}" \
                "pod-$j" "${PODS[$j]}" >>"${DIRS[$i]}/targets"
            printf '%s\n' "cross-router-$j.wild.test" "cross-egress-$j.wild.test" \
                "cross-pod-$j.wild.test" >>"${DIRS[$i]}/names"
        done
    done
    fi_mark
    finish_five

    local out label p kind
    for ((i = 0; i < N_SESSIONS; i++)); do
        out=${OUT[$i]}
        # controls: this session's own way out works, and a probe of a
        # router's address does reach its own router
        assert "$(line_of "$out" "own https")" == "origin tls sni=api.allowed.test host=api.allowed.test" "session $i: its own egress"
        assert "$(line_of "$out" "own router")" =~ "^connected: HTTP/1\.[01] 200" "session $i: its own router, probed by address"
        for ((j = 0; j < N_SESSIONS; j++)); do
            [ "$i" = "$j" ] && continue
            for kind in router router-egress pod; do
                for p in 53 80 443; do
                    assert "$(line_of "$out" "$kind-$j tcp/$p")" =~ "^error" "session $i -> $kind of session $j, tcp/$p"
                done
                assert "$(line_of "$out" "$kind-$j udp/53")" =~ "^(error|timeout)" "session $i -> $kind of session $j, DNS"
            done
            for kind in router egress pod; do
                label="via cross-$kind-$j.wild.test"
                assert "$(line_of "$out" "$label https")" =~ "^curl: \((35|56)\) " "session $i -> its router -> $kind of session $j (HTTPS)"
                assert "$(line_of "$out" "$label http")" =~ "^5[0-9][0-9]$" "session $i -> its router -> $kind of session $j (HTTP status)"
            done
        done
    done
    fi_assert_no_hit
    five_gone
}

@test "threat 29: five sessions at once: none sees another's files, /tmp or processes" {
    five_dirs
    cat >"$AS_DIR/cross-files.sh" <<'EOF'
#!/bin/bash
# Session $1: a file of its own in its directory and in /tmp; then what it
# can see of the others (others: their launch directories, one per line).
i=$1
echo "secret of session $i" >"secret-$i.txt"
echo "tmp of session $i" >"/tmp/tmp-$i.txt"
touch .running
for ((n = 0; n < 1800; n++)); do [ -e .go ] && break; sleep 0.1; done
echo "own: $(cat "secret-$i.txt") / $(cat "/tmp/tmp-$i.txt")"
while read -r d; do echo "dir $d: $(ls -A "$d" 2>&1 | head -1)"; done <others
echo "parent: $(ls -A "$(dirname "$PWD")" | tr '\n' ' ')"
echo "tmp: $(ls -A /tmp | tr '\n' ' ')"
echo "found: $(find / \( -path /proc -o -path /sys -o -path /dev \) -prune -o \
    \( -name 'secret-*.txt' -o -name 'tmp-*.txt' \) -print 2>/dev/null | sort | tr '\n' ' ')"
# (a pid pgrep matched may have exec'd something else since: look again)
echo "processes: $(pgrep -f 'cross-files[.]sh' | while read -r p; do
    c=$(tr '\0' ' ' </proc/$p/cmdline 2>/dev/null)
    case $c in *cross-files.sh*) echo "$c" ;; esac
done | awk 'NF {print $NF}' | sort -u | tr '\n' ' ')"
EOF
    local i j
    for ((i = 0; i < N_SESSIONS; i++)); do
        for ((j = 0; j < N_SESSIONS; j++)); do
            [ "$i" = "$j" ] || echo "${DIRS[$j]}"
        done >"${DIRS[$i]}/others"
    done
    start_five cross-files.sh
    finish_five

    local out
    for ((i = 0; i < N_SESSIONS; i++)); do
        out=${OUT[$i]}
        assert "$(line_of "$out" own)" == "secret of session $i / tmp of session $i" "session $i: its own files"
        for ((j = 0; j < N_SESSIONS; j++)); do
            [ "$i" = "$j" ] && continue
            assert "$(line_of "$out" "dir ${DIRS[$j]}")" =~ "No such file or directory" "session $i: the directory of session $j"
        done
        assert "$(line_of "$out" parent)" == "$(basename "${DIRS[$i]}") " "session $i: what is beside its directory"
        assert "$(line_of "$out" tmp)" == "tmp-$i.txt " "session $i: /tmp"
        assert "$(line_of "$out" found)" == "${DIRS[$i]}/secret-$i.txt /tmp/tmp-$i.txt " "session $i: every such file it can find"
        assert "$(line_of "$out" processes)" == "$i " "session $i: the sessions whose processes it sees"
        # and the host sees each session's file in its own directory only
        assert "$(cat "${DIRS[$i]}"/secret-*.txt)" == "secret of session $i" "the host: directory of session $i"
    done
    five_gone
}
