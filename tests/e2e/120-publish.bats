#!/usr/bin/env bats
# --publish [HOSTPORT:]PORT (docs/publish.md): a server the agent runs on PORT
# is reachable on the host at 127.0.0.1:HOSTPORT, and nowhere else: not on
# the host's other addresses, not from another session; the agent's egress
# stays the allowlist (the fake internet's canary stays silent); a host port
# that is taken refuses the session before anything starts.

load helpers
load fake-internet
load fault-helpers

setup_file() { fi_up; }
teardown_file() { fi_down; }
setup() {
    as_setup
    fi_setup
    # shellcheck disable=SC2034  # fault-helpers.bash's
    FH_BG_TAGS=()
    OTHER_DIR=
}
teardown() {
    [ -z "$OTHER_DIR" ] || touch "$OTHER_DIR/.stop"
    [ -z "${AS_DIR:-}" ] || touch "$AS_DIR/.stop"
    fh_bg_kill_all
    [ -z "$OTHER_DIR" ] || rm -rf "$OTHER_DIR" 2>/dev/null || $PODMAN unshare rm -rf "$OTHER_DIR"
    as_teardown
}

# free_port: a TCP port nothing on the host's loopback listens on now.
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# The servers a session runs: on the sandbox's loopback only (8000) and on
# every address (8001); each answers with what it serves from www/. Creates
# .serving once both answer inside, then waits for .stop.
SERVE='
mkdir -p /tmp/www && echo "served from the sandbox" >/tmp/www/index.html
python3 -m http.server --bind 127.0.0.1 --directory /tmp/www 8000 >/dev/null 2>>http.log &
python3 -m http.server --bind 0.0.0.0 --directory /tmp/www 8001 >/dev/null 2>>http.log &
for i in $(seq 300); do
    curl -s http://127.0.0.1:8000/ >/dev/null && curl -s http://127.0.0.1:8001/ >/dev/null && break
    sleep 0.1
done
touch .serving
for i in $(seq 1800); do [ -e .stop ] && break; sleep 0.1; done'

# serve TAG DIR ARGS...: a session in DIR running $SERVE with ARGS
# (--publish ...), until DIR/.serving exists.
serve() {
    local tag=$1 dir=$2 n
    shift 2
    fh_bg_start "$tag" "$dir" agent-sandbox "$@" --exec bash -c "$SERVE"
    for ((n = 0; n < 1800; n++)); do
        [ -e "$dir/.serving" ] && return 0
        [ -s "$AS_RUN_DIR/$tag.rc" ] && die "session $tag ended first:"$'\n'"$(cat "$AS_RUN_DIR/$tag.stderr")"
        sleep 0.1
    done
    die "session $tag does not serve after 180 s"
}

# host_get URL: the body, or "error: ..." (curl's own words).
host_get() {
    curl -sS --max-time 5 "$1" 2>&1 || true
}

@test "--publish: a server on the sandbox's loopback, and one on every address, reached at the host's 127.0.0.1 only" {
    local h1 h2 host_ip
    h1=$(free_port) h2=$(free_port)
    serve a "$AS_DIR" --publish "$h1:8000" --publish "$h2:8001"

    assert "$(host_get "http://127.0.0.1:$h1/")" == "served from the sandbox" "127.0.0.1:$h1 (a server on the sandbox's loopback)"
    assert "$(host_get "http://127.0.0.1:$h2/")" == "served from the sandbox" "127.0.0.1:$h2 (a server on every address)"
    # Nothing listens on the host's other addresses: podman's listener is
    # bound to 127.0.0.1 alone.
    assert "$(ss -Hltn "sport = :$h1" | awk '{print $4}')" == "127.0.0.1:$h1" "the host's listener"
    assert "$(host_get "http://127.0.0.2:$h1/")" =~ "Failed to connect|Couldn't connect" "127.0.0.2:$h1"
    host_ip=$(hostname -I | awk '{print $1}')
    [ -n "$host_ip" ] || die "the host has no address besides loopback to try"
    assert "$(host_get "http://$host_ip:$h1/")" =~ "Failed to connect|Couldn't connect" "$host_ip:$h1"
    assert "$(host_get "http://$host_ip:$h2/")" =~ "Failed to connect|Couldn't connect" "$host_ip:$h2"

    touch "$AS_DIR/.stop"
    fh_bg_wait a 60
    assert "$status" == 0 "the session's exit status"
    fi_assert_no_hit
    # gone with the session, before its prompt (its removals run before it,
    # lib/session/session_finish.c: the next session may publish the same port)
    assert "$(host_get "http://127.0.0.1:$h1/")" =~ "Failed to connect|Couldn't connect" "127.0.0.1:$h1 after the session"
}

@test "--publish: another session reaches neither the published port nor the pod behind it" {
    local h pod_ip
    h=$(free_port)
    serve a "$AS_DIR" --publish "$h:8001"
    # shellcheck disable=SC2086  # $PODMAN splits, as make's $(PODMAN) does
    pod_ip=$($PODMAN ps --filter label=agent-sandbox.session --filter name='-forwarder$' --format '{{.Pod}}' |
        head -1 | xargs -r $PODMAN pod inspect --format '{{.InfraContainerID}}' |
        xargs -r $PODMAN inspect --format '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}')
    [[ $pod_ip =~ ^[0-9.]+$ ]] || die "no address of the publishing session's pod: '$pod_ip'"

    local seen
    seen=$(grep -c 'GET /' "$AS_DIR/http.log")
    OTHER_DIR=$(cd "$(mktemp -d "$AS_E2E_ROOT/XXXXXXXX")" && pwd -P)
    cp "$AS_DIR/netprobe" "$OTHER_DIR/"
    cd "$OTHER_DIR"
    run_x 0 agent-sandbox --exec bash -c "
        for t in $pod_ip:61000 $pod_ip:8001 127.0.0.1:$h 10.0.2.2:$h 10.0.2.100:$h; do
            echo \"\$t: \$(./netprobe tcp \${t%:*} \${t#*:} 'GET / HTTP/1.0\r\n\r\n' | head -c 60)\"
        done"
    local t
    for t in "$pod_ip:61000" "$pod_ip:8001" "127.0.0.1:$h" "10.0.2.2:$h" "10.0.2.100:$h"; do
        expect "$t" =~ '^error: '
    done
    cd "$AS_DIR"
    touch "$AS_DIR/.stop"
    fh_bg_wait a 60
    assert "$status" == 0 "the publishing session's exit status"
    assert "$(grep -c 'GET /' "$AS_DIR/http.log")" == "$seen" "requests the servers saw after the other session's"
    fi_assert_no_hit
}

@test "--publish: egress unchanged: the allowlist still decides, the canary stays silent" {
    local h
    h=$(free_port)
    run_x 0 agent-sandbox --publish "$h:8000" --exec bash -c "
        echo \"allowed: \$(curl -sS --max-time 10 --cacert ca.pem https://api.allowed.test/ 2>&1)\"
        echo \"denied: \$(curl -sS --max-time 10 https://canary.test/ 2>&1 | head -c 60)\"
        for p in 22 80 443 8080; do echo \"canary tcp/\$p: \$(./netprobe tcp $FI_CANARY_IP \$p x)\"; done
        echo \"via the relay: \$(./netprobe tcp 127.0.0.1 61000 'GET / HTTP/1.0\r\n\r\n' | head -c 40)\"
        echo \"routes: \$(awk 'NR > 1 {print \$1, \$2, \$3}' /proc/net/route | sort -u | xargs)\""
    expect allowed "origin tls sni=api.allowed.test host=api.allowed.test"
    expect denied =~ "Could not resolve host"
    local p
    for p in 22 80 443 8080; do expect "canary tcp/$p" =~ '^error: '; done
    # the relay reaches the pod's own loopback (nothing listens there): no further
    expect "via the relay" =~ '^connected'
    # the pod's one route: its own subnet, no gateway
    expect routes =~ '^eth0 [0-9A-F]{8} 00000000$'
    fi_assert_no_hit
    fi_assert_no_query canary.test
}

@test "--publish: a host port in use refuses the session before anything starts" {
    local h
    h=$(free_port)
    python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen()
print("listening", flush=True); time.sleep(120)' "$h" >"$AS_RUN_DIR/holder" &
    local holder=$! n
    for ((n = 0; n < 100; n++)); do [ -s "$AS_RUN_DIR/holder" ] && break; sleep 0.1; done
    run_x 71 agent-sandbox --publish "$h:8000" --exec touch started
    kill "$holder"
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" contains "--publish $h:8000: port $h on 127.0.0.1 is in use by another program" "the reason"
    assert "$stderr" contains "(--publish HOSTPORT:8000)" "what to do"
    assert "$(ls "$AS_DIR")" !contains started "the command ran"
    assert "$($PODMAN ps -a --filter label=agent-sandbox.session --format '{{.Names}}')" == "" "containers made"

    # bad specs are usage errors
    run_x 64 agent-sandbox --publish 0 --exec true
    assert "$stderr" contains '"0" is not [HOSTPORT:]PORT'
    run_x 64 agent-sandbox --publish 9000:1 --publish 9000:2 --exec true
    assert "$stderr" contains "host port 9000 is published twice"
}
