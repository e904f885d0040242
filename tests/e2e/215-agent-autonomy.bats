#!/usr/bin/env bats
# Autonomy (docs/agents.md, "Autonomy"): `autonomy on`, the default, runs
# each built agent in its profile's unattended mode; 210-agents.bats checks
# that with each agent's first screen (its pinned version takes the
# option). Here: off, with --no-autonomy and with the setting, the agent
# runs in its own default mode and the start line says so. Before a login
# Claude Code shows the same first screen in both modes, so the mode is
# read from the agent's command line in its container. Skipped without
# Claude Code's image.

load helpers
load tmux
load autonomy

setup() {
    as_setup
    home_volume_setup
    allow_nothing
    tmux_setup
    unset AGENT_SANDBOX_IMAGE
}

teardown() {
    local rc=0
    tmux_teardown "^$AGENT_SANDBOX_BIN --agent " || rc=1
    as_teardown || rc=1
    home_volume_teardown
    return $rc
}

@test "autonomy off: --no-autonomy, or the setting, starts claude in its own mode; the start line says which" {
    $PODMAN image exists localhost/agent-sandbox:dev || skip "no image localhost/agent-sandbox:dev: \`make images\` builds it"
    "${AS_TMUX[@]}" new-session -d -s as -x 120 -y 30 \
        "cd '$AS_DIR' && exec '$AGENT_SANDBOX_BIN' --agent claude --no-autonomy"
    agent_has_autonomy claude no
    wait_pane '^agent-sandbox: session [0-9a-f]{12} \(claude, autonomy off\) in ' 30
    wait_pane 'Welcome to Claude Code' 60
    tmux_teardown "^$AGENT_SANDBOX_BIN --agent "

    # the setting, and --autonomy over it
    echo "autonomy off" >>"$AS_CONFIG_DIR/settings"
    "${AS_TMUX[@]}" new-session -d -s as -x 120 -y 30 \
        "cd '$AS_DIR' && exec '$AGENT_SANDBOX_BIN' --agent claude"
    agent_has_autonomy claude no
    wait_pane '\(claude, autonomy off\)' 30
    tmux_teardown "^$AGENT_SANDBOX_BIN --agent "
    "${AS_TMUX[@]}" new-session -d -s as -x 120 -y 30 \
        "cd '$AS_DIR' && exec '$AGENT_SANDBOX_BIN' --agent claude --autonomy"
    agent_has_autonomy claude yes
    wait_pane '\(claude, autonomy on\)' 30
}

@test "autonomy: on when there is no settings file (the plan's command); --no-autonomy off; --exec never" {
    $PODMAN image exists localhost/agent-sandbox:dev || skip "no image localhost/agent-sandbox:dev: \`make images\` builds it"
    rm -f "$AS_CONFIG_DIR/settings"
    run_x 0 agent-sandbox --agent claude --dry-run
    assert "$output" contains $'\n  command: claude --dangerously-skip-permissions\n'
    run_x 0 agent-sandbox --agent claude --no-autonomy --dry-run -- --continue
    assert "$output" contains $'\n  command: claude --continue\n'
    run_x 0 agent-sandbox --agent claude --dry-run --exec claude
    assert "$output" contains $'\n  command: claude\n'
}
