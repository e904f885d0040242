#!/usr/bin/env bats
# Faults mid-session (threat model items 23-28; docs/faults.md): the CLI
# killed or signalled, a server in the router or a whole container killed,
# the private podman service killed, a router that cannot start, agents that
# leave processes behind or try to exhaust the host. Each test checks that
# nothing of its session is left afterwards: the snapshot taken while the
# session ran (fault-helpers.bash), then the harness's leak check.
#
# The routers' egress side is the fake internet (fake-internet.bash), an
# --internal network of this file's own: nothing can leave the machine.

load helpers
load fake-internet
load fault-helpers

setup_file() {
    fi_up
    FH_IMG_TAG=$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')
    export FH_IMG_TAG
}
teardown_file() {
    local rc=0
    fh_images_down
    fi_down || rc=1
    return $rc
}
setup() { as_setup; fi_setup; }
teardown() { as_teardown; }

# A number no other process on the machine sleeps for.
unique_secs() { echo $((300000 + RANDOM * 8 + $$ % 8)); }

# start_session [CMD...]: a background session whose agent creates .running
# and then sleeps (or runs CMD); waits until it runs and snapshots it. Sets
# SID.
start_session() {
    [ $# -gt 0 ] || set -- sh -c 'touch .running; exec sleep 1000'
    bg_start agent-sandbox --exec "$@"
    wait_for_file "$AS_DIR/.running" 120
    SID=$(fh_session_of "$AS_BG_PID")
    fh_snapshot "$SID"
}

###############################################################################
# 25: the CLI killed with SIGKILL; the private service killed

# kill_cli_mid_session: SIGKILL to the CLI while its agent sleeps; checks what
# must then be left for the next start or cleanup: the router, forwarder and
# agent still running, the pod, the network and the directory; the private
# podman service gone with the CLI.
kill_cli_mid_session() {
    SLEEP_SECS=$(unique_secs)
    start_session sh -c "touch .running; exec sleep $SLEEP_SECS"
    local svc c
    svc=$(fh_service_key)
    kill -KILL "$AS_BG_PID"
    bg_wait 30
    assert "$status" == 137 "exit status of the killed CLI"
    fh_wait_proc_gone "$svc" 15 || die "the private podman service (${svc%%:*}) outlived the killed CLI by 15 s"
    for c in router forwarder agent; do
        assert "$($PODMAN inspect "agent-sandbox-$SID-$c" --format '{{.State.Running}}' 2>&1)" == true \
            "the $c container after kill -9 of the CLI (left for the sweep)"
    done
    $PODMAN pod exists "agent-sandbox-$SID" || die "the pod is gone already"
    $PODMAN network exists "agent-sandbox-$SID-net" || die "the network is gone already"
    # (the service removes its socket as it stops: the directory is left)
    [ -e "$AS_SESSIONS_DIR/$SID/lock" ] || die "the session's directory is gone already"
    pgrep -u "$(id -u)" -fx "sleep $SLEEP_SECS" >/dev/null || die "the agent's process is not running"
    fh_assert_left
}

@test "threat 25: after kill -9 of the CLI mid-session, the next start removes the router, forwarder, agent, pod, network and session directory" {
    kill_cli_mid_session
    run_x 0 agent-sandbox --exec true
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" =~ "removed [0-9]+ leftover resources? and 1 directory of 1 earlier session " \
        "what the next start says it removed"
    fh_assert_gone "after the next start"
    assert "$(pgrep -u "$(id -u)" -fx "sleep $SLEEP_SECS")" == "" "the agent's process after the next start"
}

@test "threat 25: after kill -9 of the CLI mid-session, agent-sandbox cleanup removes everything of that session" {
    kill_cli_mid_session
    run_x 0 agent-sandbox cleanup
    assert "$stderr" =~ "removed [0-9]+ leftover resources? and 1 directory of 1 earlier session " \
        "what cleanup says it removed"
    fh_assert_gone "after cleanup"
    assert "$(pgrep -u "$(id -u)" -fx "sleep $SLEEP_SECS")" == "" "the agent's process after cleanup"
    # and cleanup started and stopped a service of its own: none is left
    run_x 0 agent-sandbox cleanup
    assert "$stderr" =~ "removed 0 leftover resources and 0 directories of 0 earlier sessions " \
        "a second cleanup"
}

@test "threat 25: kill -9 of the CLI during set-up: cleanup removes what was made, the agent never started" {
    # A router whose DNS never answers holds the CLI in set-up.
    local img router svc
    img=$(fh_broken_router_image dnsmasq-hang)
    AGENT_SANDBOX_ROUTER_IMAGE=$img bg_start agent-sandbox --exec touch started
    router=$(fh_wait_running -router$ "$AS_BG_PID" 60)
    SID=$(fh_session_of "$AS_BG_PID")
    fh_snapshot "$SID"
    svc=$(fh_service_key)
    kill -KILL "$AS_BG_PID"
    bg_wait 30
    assert "$status" == 137 "exit status of the killed CLI"
    fh_wait_proc_gone "$svc" 15 || die "the private podman service outlived the killed CLI by 15 s"
    fh_snapshot "$SID"        # what set-up had made when it was killed
    fh_assert_left
    run_x 0 agent-sandbox cleanup
    assert "$stderr" =~ "of 1 earlier session " "what cleanup says"
    fh_assert_gone "after cleanup"
    [ ! -e "$AS_DIR/started" ] || die "the agent ran"
}

@test "threat 25: cleanup leaves a live session alone" {
    start_session sh -c 'touch .running; while [ ! -e .go ]; do sleep 0.1; done; echo finished'
    run_x 0 agent-sandbox cleanup
    assert "$stderr" =~ "removed 0 leftover resources and 0 directories of 0 earlier sessions " \
        "cleanup while a session runs"
    local c
    for c in router forwarder agent; do
        assert "$($PODMAN inspect "agent-sandbox-$SID-$c" --format '{{.State.Running}}' 2>&1)" == true \
            "the live session's $c after cleanup"
    done
    [ -S "$AS_SESSIONS_DIR/$SID/podman.sock" ] || die "cleanup removed the live session's socket"
    touch "$AS_DIR/.go"
    bg_wait 60
    assert "$status" == 0 "the live session"
    assert "$output" == finished
    fh_assert_gone
}

@test "threat 25: the private podman service killed mid-session: the CLI says so, tears down with a new service, exits 75" {
    SLEEP_SECS=$(unique_secs)
    start_session sh -c "touch .running; exec sleep $SLEEP_SECS"
    local svc
    svc=$(fh_service_key)
    kill -KILL "${svc%%:*}"
    bg_wait 90
    assert "$status" == "$EX_SERVICE_LOST" "exit status when the service died"
    assert "$stderr" contains "the private podman service stopped mid-session" "what the CLI says"
    assert "$stderr" !contains "left behind" "teardown with the new service"
    assert "$stderr" !contains "could not remove" "teardown with the new service"
    fh_assert_gone "after the service died"
    assert "$(pgrep -u "$(id -u)" -fx "sleep $SLEEP_SECS")" == "" "the agent's process"
}

###############################################################################
# 26: SIGINT, SIGTERM, SIGHUP: orderly teardown, the agent's exit code

# signal_exit SIG CODE: SIG to the CLI mid-session (1) with an agent that
# traps SIG and exits CODE: the CLI exits CODE; (2) with an agent that dies of
# it: 128+N. Nothing left either time.
signal_exit() {
    local sig=$1 code=$2 num
    num=$(kill -l "$sig")
    start_session bash -c "trap 'echo got $sig; exit $code' $sig; touch .running; while :; do sleep 0.1; done"
    kill -s "$sig" "$AS_BG_PID"
    bg_wait 60
    assert "$status" == "$code" "exit status: the agent's own, after it trapped SIG$sig"
    assert "$output" == "got $sig" "the agent's output up to its end"
    assert "$stderr" !contains "left behind" "an orderly teardown"
    fh_assert_gone "after SIG$sig (trapped)"

    rm -f "$AS_DIR/.running"
    start_session sh -c 'touch .running; exec sleep 1000'
    kill -s "$sig" "$AS_BG_PID"
    bg_wait 60
    assert "$status" == $((128 + num)) "exit status: the agent died of SIG$sig"
    assert "$stderr" !contains "left behind" "an orderly teardown"
    fh_assert_gone "after SIG$sig"
}

@test "threat 26: SIGTERM: orderly teardown, the agent's exit code (trapped: 3, sleep: 143)" {
    signal_exit TERM 3
}

@test "threat 26: SIGINT: orderly teardown, the agent's exit code (trapped: 4, sleep: 130)" {
    signal_exit INT 4
}

@test "threat 26: SIGHUP: orderly teardown, the agent's exit code (trapped: 5, sleep: 129)" {
    signal_exit HUP 5
}

@test "threat 26: a second SIGTERM kills an agent that ignores the first (137)" {
    start_session bash -c "trap 'echo ignoring TERM' TERM; touch .running; while :; do sleep 0.1; done"
    kill -TERM "$AS_BG_PID"
    fh_wait_text "$AS_RUN_DIR/bg.stdout" "ignoring TERM" 30
    kill -TERM "$AS_BG_PID"
    bg_wait 60
    assert "$status" == 137 "exit status: the agent was killed"
    assert "$stderr" !contains "left behind" "an orderly teardown"
    fh_assert_gone
}

@test "threat 26: SIGTERM during set-up: the agent never starts, exit 143, at once, nothing left" {
    local img t0 took
    img=$(fh_broken_router_image dnsmasq-hang)
    AGENT_SANDBOX_ROUTER_IMAGE=$img bg_start agent-sandbox --exec touch started
    fh_wait_running -router$ "$AS_BG_PID" 60 >/dev/null
    SID=$(fh_session_of "$AS_BG_PID")
    fh_snapshot "$SID"
    t0=$SECONDS
    kill -TERM "$AS_BG_PID"
    bg_wait 60
    took=$((SECONDS - t0))
    assert "$status" == 143 "exit status after SIGTERM during set-up"
    [ ! -e "$AS_DIR/started" ] || die "the agent ran"
    fh_assert_gone "after SIGTERM during set-up"
    [ "$took" -le 10 ] || die "the CLI took ${took}s to act on SIGTERM during set-up (the router's readiness wait: 20 s)"
}

###############################################################################
# 27: the egress path killed mid-session: fails closed, and the CLI says so

# egress_fault KIND: the probe session (fault-helpers.bash), fault KIND
# between its two rounds of probes, then: every way out worked or failed as
# it should before; after, nothing connects, nothing reached the fake
# internet, the CLI said so once, the session ended normally and nothing is
# left. KIND: nginx, dnsmasq (the server killed inside the router), router,
# forwarder (the container killed).
egress_fault() {
    local kind=$1 dead
    fh_write_egress_probe
    start_session bash ./egress-probe.sh "$FI_ORIGIN_IP" "$FI_CANARY_IP" "$FI_DNS_IP"
    local router=agent-sandbox-$SID-router forwarder=agent-sandbox-$SID-forwarder
    fi_mark
    case $kind in
        nginx | dnsmasq) fh_router_kill "$router" "$kind" >/dev/null ;;
        router) $PODMAN kill "$router" >/dev/null ;;
        forwarder) $PODMAN kill "$forwarder" >/dev/null ;;
    esac
    dead=$router
    [ "$kind" = forwarder ] && dead=$forwarder
    fh_wait_not_running "$dead" 30
    fh_wait_text "$AS_RUN_DIR/bg.stderr" "the egress router stopped" 30
    touch "$AS_DIR/.go"
    bg_wait 150
    assert "$status" == 0 "the session goes on after the fault and ends with the agent's status"

    # before: the allowed ways work, the others do not
    expect "before https" "ok origin tls sni=api.allowed.test host=api.allowed.test"
    expect "before http" "ok origin http host=api.allowed.test"
    expect "before router-https" "ok origin tls sni=api.allowed.test host=api.allowed.test"
    expect "before router-http" "ok origin http host=api.allowed.test"
    expect "before getent" =~ "^ok 127\.0\.0\.2 "
    expect "before dns" =~ "^NOERROR .*127\.0\.0\.2"
    expect "before origin" =~ "^error"
    expect "before canary" =~ "^error"
    expect "before fake-dns" =~ "^(error|timeout)"

    # after: nothing
    expect "after https" =~ "^failed"
    expect "after http" =~ "^failed"
    expect "after router-https" =~ "^failed"
    expect "after router-http" =~ "^failed"
    if [ "$kind" != forwarder ]; then
        expect "after getent" =~ "^failed"
        expect "after dns" =~ "^(error|timeout)"
    fi
    expect "after origin" =~ "^error"
    expect "after canary" =~ "^error"
    expect "after fake-dns" =~ "^(error|timeout)"
    fi_assert_nothing_left

    assert "$(grep -c 'the egress router stopped' <<<"$stderr")" == 1 "the CLI's notice, once"
    assert "$stderr" contains "fails closed"
    assert "$stderr" !contains "left behind" "teardown"
    fh_assert_gone
}

@test "threat 27: killing nginx mid-session closes egress and says so" {
    egress_fault nginx
}

@test "threat 27: killing dnsmasq mid-session closes egress and says so" {
    egress_fault dnsmasq
}

@test "threat 27: killing the router container mid-session closes egress and says so" {
    egress_fault router
}

@test "threat 27: killing the forwarder container mid-session closes egress and says so" {
    egress_fault forwarder
}

###############################################################################
# 28: the router cannot start: the agent never starts, the error says why

@test "threat 28: a missing router image: exit 66, the message names it, the agent never started" {
    AGENT_SANDBOX_ROUTER_IMAGE=localhost/nope:x run_x "$EX_NOIMAGE" agent-sandbox --exec touch started
    assert "$stderr" contains "localhost/nope:x" "the message names the image"
    assert "$stderr" =~ "router image .* is missing" "the message says what is missing"
    [ ! -e "$AS_DIR/started" ] || die "the agent ran"
}

@test "threat 28: a router whose nginx cannot start: exit 71, the error says why, the agent never started" {
    local img
    img=$(fh_broken_router_image nginx-exit)
    AGENT_SANDBOX_ROUTER_IMAGE=$img run_x "$EX_SETUP" agent-sandbox --exec touch started
    [ ! -e "$AS_DIR/started" ] || die "the agent ran"
    assert "$stderr" =~ "setting up the sandbox: .*router (stopped|exited)" "the error says why: the router stopped"
    # logs it points at exist after the CLI is gone
    local logs
    logs=$(grep -o 'logs are in [^ ]*' <<<"$stderr" | head -1 | cut -d' ' -f4)
    logs=${logs%[.;,]}
    [ -z "$logs" ] || [ -e "$logs" ] || die "the error points at $logs, which is gone when the CLI has exited"
}

@test "threat 28: a router whose DNS never answers: exit 71 after the readiness timeout, the agent never started" {
    local img
    img=$(fh_broken_router_image dnsmasq-hang)
    AGENT_SANDBOX_ROUTER_IMAGE=$img run_x --timeout 90 "$EX_SETUP" agent-sandbox --exec touch started
    [ ! -e "$AS_DIR/started" ] || die "the agent ran"
    assert "$stderr" =~ "setting up the sandbox: .*egress path" "the error says what failed"
    assert "$stderr" contains "api.allowed.test" "the error says what is missing: the allowed name does not resolve"
}

@test "threat 28: a router whose nginx never listens: exit 71, the agent never started" {
    local img
    img=$(fh_broken_router_image nginx-hang)
    AGENT_SANDBOX_ROUTER_IMAGE=$img run_x --timeout 90 '?' agent-sandbox --exec touch started
    [ ! -e "$AS_DIR/started" ] || die "the agent ran with a router that serves nothing (exit $status)"
    assert "$status" == "$EX_SETUP" "exit status"
    assert "$stderr" =~ "setting up the sandbox: .*egress path" "the error says why"
}

@test "threat 28: a forwarder whose relay cannot start: exit 71, the error says so, the agent never started" {
    local img
    img=$(fh_broken_router_image forwarder-exit)
    AGENT_SANDBOX_ROUTER_IMAGE=$img run_x "$EX_SETUP" agent-sandbox --exec touch started
    [ ! -e "$AS_DIR/started" ] || die "the agent ran"
    assert "$stderr" contains "agent-sandbox-forwarder: not ready: nginx stopped" "the error says why"
}

@test "threat 28: a forwarder that cannot bind its listeners says why at once and never says ready" {
    # no NET_BIND_SERVICE: nginx cannot bind 443; the reason is nginx's own
    local image=${AGENT_SANDBOX_ROUTER_IMAGE:-localhost/agent-sandbox-router:dev}
    # shellcheck disable=SC2086  # $PODMAN splits, as make's $(PODMAN) does
    run_x --timeout 15 3 $PODMAN run --rm --read-only --cap-drop all --user 0:0 --network none \
        --tmpfs /run/agent-sandbox:rw,size=1m,mode=0700 --entrypoint '[]' "$image" \
        /usr/local/bin/agent-sandbox-forwarder --probe denied.invalid -- 127.0.0.2:443=127.0.0.1:9
    assert "$output" contains "agent-sandbox-forwarder: not ready: nginx stopped: bind() to 127.0.0.2:443 failed (13: Permission denied)"
    assert "$output" !contains "agent-sandbox-forwarder: ready" "no ready line"
}

@test "the readiness probe never takes a lookup left unanswered for a refused name: it gives up on it in 0.5 s, never says ready" {
    # a resolver address on the network that nobody holds: every query goes
    # unanswered. Before, the probe waited out the resolver's 5 s and then
    # took that silence for "the denied name does not resolve". No DNS of
    # podman's own on the network, as on a session's: with it, podman 5's
    # aardvark-dns would answer for the address given (NXDOMAIN on an
    # --internal network) instead of leaving the query unanswered.
    local image=${AGENT_SANDBOX_ROUTER_IMAGE:-localhost/agent-sandbox-router:dev} net=as-e2e-probe-$$ t0
    $PODMAN network create --internal --disable-dns --subnet 10.251.77.0/24 --label "$AS_LABEL=probe" "$net" >/dev/null
    t0=$SECONDS
    # shellcheck disable=SC2086  # $PODMAN splits, as make's $(PODMAN) does
    run_x --timeout 15 '?' $PODMAN run --rm --read-only --cap-drop all --network "$net" --dns 10.251.77.200 \
        --entrypoint '[]' "$image" /usr/local/bin/agent-sandbox-probe denied.invalid --
    $PODMAN network rm -f "$net" >/dev/null
    assert "$status" == 7 "the probe's status for a lookup cut short"
    assert "$stderr" contains "probe: no answer for denied.invalid within 0.5s"
    [ $((SECONDS - t0)) -lt 4 ] || die "the probe took $((SECONDS - t0)) s: the lookup was not cut short"
}

###############################################################################
# 23: processes the agent leaves running

@test "threat 23: processes left running by the agent are gone after the session" {
    local n
    n=$(unique_secs)
    # daemonised (setsid), nohup, one that ignores TERM and HUP, a
    # double-forked orphan; then the agent's own process exits at once
    start_session bash -c "
        setsid sleep $n </dev/null >/dev/null 2>&1 &
        nohup sleep $((n + 1)) </dev/null >/dev/null 2>&1 &
        (trap '' TERM HUP INT; exec sleep $((n + 2))) </dev/null >/dev/null 2>&1 &
        bash -c 'sleep $((n + 3)) </dev/null >/dev/null 2>&1 & disown' &
        sleep 0.5; touch .running; while [ ! -e .go ]; do sleep 0.1; done; exit 0"
    local pat="^sleep ($n|$((n + 1))|$((n + 2))|$((n + 3)))\$"
    assert "$(pgrep -u "$(id -u)" -f "$pat" | wc -l)" == 4 "the agent's left-behind processes, seen from the host"
    touch "$AS_DIR/.go"
    bg_wait 60
    assert "$status" == 0
    assert "$(pgrep -u "$(id -u)" -f "$pat" | xargs -r ps -o pid=,args= -p)" == "" "processes left after the session"
    fh_assert_gone
}

###############################################################################
# 24: fork bomb, memory hog
#
# Run only against a limit the product sets on the agent (its container's
# HostConfig) and that is in force inside; otherwise skipped with the reason.
# The ulimit -u an agent sees without one is not a session limit: it is
# podman's default, per uid, and on this VM equal to the machine-wide
# pid_max (32768), so a fork bomb against it would take every PID of the
# machine. Each bomb is also capped, so that an unenforced limit fails the
# test instead of reaching the host.
FH_MAX_PIDS_TESTED=4096
FH_MAX_MEM_TESTED=$((4 << 30))

# agent_limits: the limits of the agent: its container's HostConfig, and
# what it sees inside (cgroup files, RLIMIT_NPROC). Sets LIM_*.
agent_limits() {
    start_session bash -c '
        echo "nproc: $(ulimit -u)"
        echo "pids.max: $(cat /sys/fs/cgroup/pids.max /sys/fs/cgroup/pids/pids.max 2>/dev/null | head -1)"
        echo "memory.max: $(cat /sys/fs/cgroup/memory.max 2>/dev/null)"
        touch .running; while [ ! -e .go ]; do sleep 0.1; done'
    local agent=agent-sandbox-$SID-agent
    LIM_SPEC_PIDS=$($PODMAN inspect "$agent" --format '{{.HostConfig.PidsLimit}}')
    LIM_SPEC_MEM=$($PODMAN inspect "$agent" --format '{{.HostConfig.Memory}}')
    LIM_SPEC_NPROC=$($PODMAN inspect "$agent" --format '{{range .HostConfig.Ulimits}}{{if eq .Name "RLIMIT_NPROC"}}{{.Soft}}{{end}}{{end}}')
    touch "$AS_DIR/.go"
    bg_wait 60
    assert "$status" == 0
    rm -f "$AS_DIR/.go" "$AS_DIR/.running"
    fh_assert_gone
    LIM_NPROC=$(sed -n 's/^nproc: //p' <<<"$output")
    LIM_PIDS_CG=$(sed -n 's/^pids.max: //p' <<<"$output")
    LIM_MEM_CG=$(sed -n 's/^memory.max: //p' <<<"$output")
    LIM_TEXT="agent container: PidsLimit=${LIM_SPEC_PIDS:-0} Memory=${LIM_SPEC_MEM:-0} nproc ulimit=${LIM_SPEC_NPROC:-none}; inside: pids.max=${LIM_PIDS_CG:-none} memory.max=${LIM_MEM_CG:-none} ulimit -u=$LIM_NPROC"
    echo "# $LIM_TEXT"
}

@test "threat 24: a fork bomb hits the session's limit, not the host" {
    agent_limits
    local limit=
    if [ "${LIM_SPEC_PIDS:-0}" -gt 0 ] 2>/dev/null && [ "$LIM_PIDS_CG" = "$LIM_SPEC_PIDS" ]; then
        limit=$LIM_SPEC_PIDS
    elif [ -n "$LIM_SPEC_NPROC" ] && [ "$LIM_NPROC" = "$LIM_SPEC_NPROC" ]; then
        limit=$LIM_SPEC_NPROC
    fi
    [ -n "$limit" ] ||
        skip "the product sets no process limit on the agent that is in force ($LIM_TEXT; docs/faults.md)"
    [ "$limit" -le "$FH_MAX_PIDS_TESTED" ] ||
        skip "the agent's process limit $limit is above what this test may try on a shared machine ($FH_MAX_PIDS_TESTED)"
    # Processes until fork fails, each sleeping, at most limit + 100 of them.
    run_x --timeout 180 '?' agent-sandbox --exec perl -e '
        my ($n, $max) = (0, $ARGV[0] + 100);
        while ($n < $max) {
            my $p = fork();
            if (!defined $p) { print "fork failed after $n: $!\n"; exit 0 }
            if ($p == 0) { sleep 600; exit 0 }
            $n++;
        }
        print "no limit after $n\n"; exit 1' "$limit"
    assert "$status" == 0 "the agent"
    assert "$output" =~ "^fork failed after [0-9]+" "the agent hit a limit"
    local n=${output#fork failed after }
    n=${n%%:*}
    [ "$n" -le "$limit" ] || die "the agent made $n processes, more than its limit $limit"
    # the host survived: the same user can still start processes and sessions
    run_x 0 bash -c 'for i in 1 2 3 4 5; do /bin/true & done; wait; echo ok'
    run_x 0 agent-sandbox --exec echo alive
    assert "$output" == alive
}

@test "threat 24: a memory hog hits the session's limit, not the host" {
    agent_limits
    local limit=
    if [ "${LIM_SPEC_MEM:-0}" -gt 0 ] 2>/dev/null && [[ $LIM_MEM_CG =~ ^[0-9]+$ ]] && [ "$LIM_MEM_CG" -le "$LIM_SPEC_MEM" ]; then
        limit=$LIM_SPEC_MEM
    fi
    [ -n "$limit" ] ||
        skip "the product sets no memory limit on the agent that is in force ($LIM_TEXT; docs/faults.md)"
    [ "$limit" -le "$FH_MAX_MEM_TESTED" ] ||
        skip "the agent's memory limit $limit is above what this test may try on a shared machine ($FH_MAX_MEM_TESTED)"
    # 16 MiB more, touched, every step, until the limit ends it; at most
    # the limit + 512 MiB.
    run_x --timeout 180 '?' agent-sandbox --exec perl -e '
        my (@a, $mb); my $max = int($ARGV[0] / 1048576) + 512;
        for ($mb = 0; $mb < $max; $mb += 16) { push @a, "x" x (16 << 20); }
        print "no limit after $mb MiB\n"; exit 1' "$limit"
    assert "$status" != 0 "the agent"
    assert "$status" != 1 "the agent was stopped, it did not run out of its loop"
    assert "$output" !contains "no limit"
    run_x 0 agent-sandbox --exec echo alive
    assert "$output" == alive
}
