#!/usr/bin/env bats
# Stopping a session (docs/faults.md, "Stopping a session"): the stopped
# session says who stopped it and how its agent ended; 143 after the stop,
# 137 only after a kill; `stop --now` kills without the grace; with a
# terminal, the stop reaches an interactive shell as SIGHUP (it ignores
# SIGTERM), `~.` typed at the start of a line stops the session from its own
# terminal and a second `~.` kills at once; the start line (on a terminal
# only) names the session and how to stop it.

load helpers
load tmux

setup() {
    as_setup
    tmux_setup
}

teardown() {
    local rc=0
    tmux_teardown "^$AGENT_SANDBOX_BIN --memory none --exec " || rc=1
    "$AGENT_SANDBOX_BIN" stop --all >/dev/null 2>&1 || true
    as_teardown || rc=1
    return $rc
}

# tty_session ARGS...: a host shell in a 200x30 tmux pane runs the CLI with
# ARGS and then prints "status=N" with its exit status.
tty_session() {
    "${AS_TMUX[@]}" new-session -d -s as -x 200 -y 30 \
        "cd '$AS_DIR' && exec env PS1='host\$ ' bash --norc --noprofile -i"
    wait_pane '^host\$$' 10
    keys "'$AGENT_SANDBOX_BIN' --memory none $*; echo \"status=\$?\""
}

# The running session's ID (there is one).
session_id() {
    run_x 0 agent-sandbox ps -q
    assert "$output" =~ '^[0-9a-f]{12}$' "one running session"
    echo "$output" >"$AS_RUN_DIR/id"
}

@test "stop: the stopped session says who stopped it, exit 143; --now kills an agent that ignores SIGTERM at once, 137" {
    bg_start agent-sandbox --memory none --exec sh -c 'touch .running; exec sleep 1000'
    wait_for_file "$AS_DIR/.running" 120
    session_id
    local id t0
    id=$(<"$AS_RUN_DIR/id")
    run_x 0 agent-sandbox stop "$id"
    bg_wait 30
    assert "$status" == 143 "the stopped session's exit status"
    # shellcheck disable=SC2154  # stderr: set by bg_wait (helpers.bash)
    assert "$stderr" =~ "agent-sandbox: session stopped by \`agent-sandbox stop\` \(PID [0-9]+\); the agent ended after SIGTERM \(exit 143\)" \
        "the stopped session's line"
    assert "$stderr" !contains "; stop:" "no start line without a terminal"

    rm -f "$AS_DIR/.running"
    bg_start agent-sandbox --memory none --exec sh -c 'trap "" TERM; touch .running; while :; do sleep 1; done'
    wait_for_file "$AS_DIR/.running" 120
    session_id
    id=$(<"$AS_RUN_DIR/id")
    t0=$SECONDS
    run_x 0 agent-sandbox stop --now "$id"
    assert "$stderr" contains "stopped session $id"
    bg_wait 30
    assert "$status" == 137 "killed"
    [ $((SECONDS - t0)) -lt 8 ] || die "stop --now took $((SECONDS - t0)) s: it waited for the grace"
    assert "$stderr" contains "the agent was killed at once (a second request; exit 137)"
}

@test "stop: an interactive bash on a terminal ends at once on the SIGHUP the stop sends it: 143, and the terminal says why" {
    tty_session --exec bash
    wait_pane "@agent-sandbox-[0-9a-f]{12}:.*\\\$\$" 60
    session_id
    local id t0
    id=$(<"$AS_RUN_DIR/id")
    # the start line, on the terminal
    wait_pane "^agent-sandbox: session $id \(--exec\) in .*; stop: ~\. or agent-sandbox stop $id\$" 5
    t0=$SECONDS
    run_x 0 agent-sandbox stop "$id"
    wait_pane '^status=143$' 10
    [ $((SECONDS - t0)) -lt 8 ] || die "bash took $((SECONDS - t0)) s to stop: SIGTERM is ignored by an interactive bash"
    wait_pane "^agent-sandbox: session stopped by \`agent-sandbox stop\` \(PID [0-9]+\); the agent ended after SIGHUP \(exit 143\)\$" 5
}

@test "~.: an interactive bash stopped from its own terminal, 143; ~~ sends one ~" {
    tty_session --exec bash
    wait_pane "@agent-sandbox-[0-9a-f]{12}:.*\\\$\$" 60
    # ~~ at the start of a line is one ~; ~/ is both
    keys "echo ok"
    wait_pane '^ok$' 10
    "${AS_TMUX[@]}" send-keys -t as -l '~~'
    keys "x"
    wait_pane 'bash: ~x: command not found$' 10
    # shellcheck disable=SC2088  # typed, for the sandbox's bash to expand
    keys "~/y"
    wait_pane 'bash: /[^ ~]*/y: No such file or directory$' 10
    "${AS_TMUX[@]}" send-keys -t as -l '~.'
    wait_pane '^agent-sandbox: ~\. heard: stopping the session \(~\. again kills the agent at once\)$' 10
    wait_pane '^status=143$' 10
    wait_pane '^agent-sandbox: session stopped by ~\. on its terminal; the agent ended after SIGHUP \(exit 143\)$' 5
}

@test "~.: an agent that ignores every key and signal: Ctrl-C does nothing, ~. stops, ~. again kills at once, 137" {
    cat >"$AS_DIR/deaf.sh" <<'EOF'
trap "" INT TERM HUP QUIT
stty raw -echo
echo deaf
exec sleep 1000
EOF
    tty_session --exec sh deaf.sh
    wait_pane '^deaf' 60
    "${AS_TMUX[@]}" send-keys -t as C-c C-c
    sleep 1
    pane | grep -q '^status=' && die "Ctrl-C ended the session: $(pane)"
    "${AS_TMUX[@]}" send-keys -t as -l '~.'
    wait_pane 'agent-sandbox: ~\. heard: stopping the session' 10
    sleep 1
    pane | grep -q '^status=' && die "an agent that ignores SIGHUP ended: $(pane)"
    "${AS_TMUX[@]}" send-keys -t as -l '~.'
    wait_pane 'agent-sandbox: ~\. again: killing the agent' 10
    wait_pane '^status=137$' 15
    wait_pane '^agent-sandbox: session stopped by ~\. on its terminal; the agent was killed at once \(a second request; exit 137\)$' 5
}

@test "--autonomy and --no-autonomy are the agent's: refused with --exec" {
    run_x "$EX_USAGE" agent-sandbox --autonomy --exec true
    assert "$stderr" == "agent-sandbox: error: --autonomy is the agent's mode; --exec runs no agent"
    run_x "$EX_USAGE" agent-sandbox --no-autonomy --exec true
    assert "$stderr" == "agent-sandbox: error: --no-autonomy is the agent's mode; --exec runs no agent"
}
