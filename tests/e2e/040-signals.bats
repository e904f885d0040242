#!/usr/bin/env bats
# The CLI killed or signalled mid-session.

load helpers

# Starts `--exec sleep 100` in the background and waits until the command
# runs inside the sandbox.
start_sleeping_session() {
    bg_start agent-sandbox --exec sh -c 'touch .running; exec sleep 100'
    wait_for_file "$AS_DIR/.running" 120
}

@test "threat 25: after kill -9 of the CLI, the next run removes what that session left" {
    start_sleeping_session
    kill -KILL "$AS_BG_PID"
    bg_wait 30
    assert "$status" == 137 "exit status of the killed CLI"

    run_x 0 agent-sandbox --exec true
    leak_check "after the run that followed kill -9" || die "the next run did not remove the killed session's resources"
}

# signal_test SIGNAL [group]: SIGNAL to the CLI (or to its whole process
# group, as a terminal's Ctrl-C does) mid-session must tear the session down
# in order and end the CLI with the agent's status: the CLI passes the signal
# on, the agent (sleep, under the sandbox's init) dies of it, and its 128+N
# is the CLI's (docs/usage.md, "Exit codes").
signal_test() {
    local sig=$1 target
    start_sleeping_session
    target=$AS_BG_PID
    [ "${2:-}" = group ] && target=-$AS_BG_PID
    kill -s "$sig" -- "$target"
    bg_wait 60
    assert "$status" == $((128 + $(kill -l "$sig"))) "exit status after SIG$sig (128+N)"
    leak_check "after SIG$sig" || die "SIG$sig did not tear the session down"
}

@test "threat 26: SIGTERM: orderly teardown, exit 143 (128+15)" {
    signal_test TERM
}

@test "threat 26: SIGINT: orderly teardown, exit 130 (128+2)" {
    signal_test INT
}

@test "threat 26: SIGHUP: orderly teardown, exit 129 (128+1)" {
    signal_test HUP
}

@test "Ctrl-C (SIGINT to the CLI's process group): orderly teardown, exit 130 (128+2)" {
    signal_test INT group
}

@test "an agent that ignores the SIGHUP of a closed terminal is killed after a grace: no CLI waits for ever" {
    # A closed terminal sends one SIGHUP and no second signal; the CLI
    # passes it on, and kills the agent when it is still there 10 s later
    # (lib/podman/attach_stream.h ATTACH_SIGNAL_GRACE_MS).
    bg_start agent-sandbox --exec sh -c 'trap "" HUP; touch .running; exec sleep 100'
    wait_for_file "$AS_DIR/.running" 120
    local start=$SECONDS
    kill -HUP "$AS_BG_PID"
    bg_wait 60
    assert "$status" == 137 "the agent's status: killed (SIGKILL)"
    [ $((SECONDS - start)) -ge 9 ] || die "killed after $((SECONDS - start)) s, before its grace"
    leak_check "after SIGHUP" || die "the session was not torn down"
}
