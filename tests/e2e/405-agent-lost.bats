#!/usr/bin/env bats
# The agent's container ended by something other than the agent (issue 17
# bug 8): its monitor (conmon) killed, or the container removed from outside
# the session. Each gets a sentence and a documented exit code (docs/usage.md), and
# nothing of the session is left. An agent that kills itself with SIGTERM is
# not mistaken for either.

load helpers
load fault-helpers

# start_agent: a background session whose agent sleeps; sets SID and AGENT.
start_agent() {
    bg_start agent-sandbox --memory none --exec sh -c 'touch .running; exec sleep 100000'
    wait_for_file "$AS_DIR/.running" 120
    SID=$(fh_session_of "$AS_BG_PID")
    AGENT=agent-sandbox-$SID-agent
}

@test "bug 8: the agent's conmon killed: the CLI says its monitor died, exit 75" {
    start_agent
    local conmon
    conmon=$($PODMAN inspect "$AGENT" --format '{{.State.ConmonPid}}')
    [ "$conmon" -gt 0 ] || die "no conmon pid for $AGENT"
    kill -KILL "$conmon"
    bg_wait 90          # podman waits 20 s for a dead conmon's exit file
    assert "$status" == "$EX_SERVICE_LOST" "exit status"
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" contains "agent-sandbox: error: the agent's monitor (conmon) died mid-session; the agent's exit status is lost"
    assert "$stderr" !contains "HTTP 500" "podman's raw answer"
}

@test "bug 8: the agent's container removed from outside: the CLI says so, exit 76" {
    start_agent
    $PODMAN rm -f "$AGENT" >/dev/null
    bg_wait 60
    assert "$status" == "$EX_REMOVED" "exit status"
    assert "$stderr" contains "agent-sandbox: error: the agent's container was removed from outside the session (podman rm); the agent did not finish"
}

@test "bug 8: an agent that ends itself with SIGTERM or SIGKILL gets its own status, and no such sentence" {
    run_x 143 agent-sandbox --memory none --exec sh -c 'kill -TERM $$'
    assert "$stderr" !contains "removed from outside"
    run_x 137 agent-sandbox --memory none --exec sh -c 'kill -KILL $$'
    assert "$stderr" !contains "removed from outside"
}
