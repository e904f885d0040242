#!/usr/bin/env bats
# The CLI's own files live where the XDG Base Directory rules say
# (lib/base/user_dirs.h): config in $XDG_CONFIG_HOME/agent-sandbox, the router's
# logs in $XDG_STATE_HOME/agent-sandbox/logs. Each test here has XDG
# directories of its own, fresh, so the first run's copy of the allowlist
# happens in it.

load helpers

setup() {
    as_setup
    XDG_CONFIG_HOME=$AS_RUN_DIR/config
    XDG_STATE_HOME=$AS_RUN_DIR/state
    # podman's own config, as the suite links it (helpers.bash)
    mkdir -p "$XDG_CONFIG_HOME"
    ln -s "$(readlink "$AS_SUITE_XDG/config/containers")" "$XDG_CONFIG_HOME/containers"
    ln -s "$(readlink "$AS_SUITE_XDG/config/cni")" "$XDG_CONFIG_HOME/cni"
    export XDG_CONFIG_HOME XDG_STATE_HOME
    CFG=$XDG_CONFIG_HOME/agent-sandbox
}

@test "config and logs follow XDG_CONFIG_HOME and XDG_STATE_HOME; the first run copies the allowlist there" {
    run_x 0 agent-sandbox --memory none --exec true
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" contains "created $CFG/allowed-hosts from " "the first run's copy"
    cmp "$CFG/allowed-hosts" "$AS_TOP/config/allowed-hosts" || die "the copy differs from the packaged allowlist"
    assert "$(stat -c %a "$CFG")" == 700 "the config directory's mode"
    local logs
    logs=$(find "$XDG_STATE_HOME/agent-sandbox/logs" -mindepth 2 -name egress.log)
    assert "$(wc -l <<<"$logs")" == 1 "one session's router logs in the state directory"
    assert "$(stat -c %a "$XDG_STATE_HOME/agent-sandbox")" == 700 "the state directory's mode"

    # every config file is read from there
    printf 'pids lots\n' >"$CFG/limits"
    run_x "$EX_CONFIG" agent-sandbox --exec true
    assert "$stderr" contains "$CFG/limits:1:" "the limits file"
    rm "$CFG/limits"

    printf 'relative/root\n' >"$CFG/allowed-paths"
    run_x "$EX_CONFIG" agent-sandbox --exec true
    assert "$stderr" contains "allowed-paths:1" "the allowed-paths file"
    rm "$CFG/allowed-paths"

    printf 'frozen/\n' >"$CFG/protected-paths"
    mkdir frozen
    run_x 0 agent-sandbox --memory none --exec sh -c '(: >frozen/x) 2>/dev/null || echo frozen-read-only'
    assert "$output" == frozen-read-only "a path the protected-paths file names"

    # and the config directory is refused as a launch directory
    cd "$CFG"
    run_x "$EX_REFUSED" agent-sandbox --exec true
    assert "$stderr" contains "agent-sandbox's config directory" "the rule"
}

@test "the settings file picks the agent; its allowed-hosts.d file is copied on first use and merged with allowed-hosts" {
    # shellcheck disable=SC2174  # 0700 for the directory named
    mkdir -m 0700 -p "$CFG"
    printf '# which agent runs\nagent codex\n' >"$CFG/settings"
    run_x 0 agent-sandbox --memory none --dry-run
    assert "$stderr" contains "created $CFG/allowed-hosts.d/codex from " "the agent's allowlist, copied"
    cmp "$CFG/allowed-hosts.d/codex" "$AS_TOP/config/allowed-hosts.d/codex" || die "the copy differs"
    assert "$output" contains $'\n  profile: codex; its state: ~/.codex; its login: in the home\n'
    assert "$output" contains $'\n    api.openai.com\n' "the agent's names"
    assert "$output" contains $'\n    api.anthropic.com\n' "the user's names, still there"
    assert "$output" !contains "login:   volume" "no shared login volume for codex"

    # the copy is the user's to edit, and is read from then on
    printf 'models.example.test\n' >>"$CFG/allowed-hosts.d/codex"
    run_x 0 agent-sandbox --memory none --dry-run
    assert "$stderr" !contains "created"
    assert "$output" contains $'\n    models.example.test\n'
    printf 'https://models.example.test/\n' >"$CFG/allowed-hosts.d/codex"
    run_x "$EX_CONFIG" agent-sandbox --memory none --dry-run
    assert "$stderr" contains "$CFG/allowed-hosts.d/codex:1:" "the agent's allowlist, by file and line"

    # --agent wins over the settings file; AGENT_SANDBOX_ALLOWLIST is used as is
    run_x 0 agent-sandbox --memory none --agent claude --dry-run
    assert "$output" contains $'\n  profile: claude;'
    assert "$output" !contains "api.openai.com"
    printf 'only.example.test\n' >"$AS_RUN_DIR/only"
    printf 'agent gemini\n' >"$CFG/settings"
    AGENT_SANDBOX_ALLOWLIST=$AS_RUN_DIR/only run_x 0 agent-sandbox --memory none --dry-run
    assert "$output" contains $'\n  profile: gemini;'
    assert "$output" contains $'allowed: 1 name,' "the named allowlist alone"
    assert "$stderr" !contains "allowed-hosts.d/gemini" "nothing of gemini's copied or read"
    [ ! -e "$CFG/allowed-hosts.d/gemini" ] || die "gemini's allowlist was copied"

    # an unknown agent: by file and line, or by option
    printf '\nagent nope\n' >"$CFG/settings"
    run_x "$EX_CONFIG" agent-sandbox --dry-run
    assert "$stderr" == "agent-sandbox: error: $CFG/settings:2: agent nope: no such agent (the agents: claude, codex, crush, gemini, opencode)"
    printf 'agent Codex\n' >"$CFG/settings"
    run_x "$EX_CONFIG" agent-sandbox --dry-run
    assert "$stderr" contains "$CFG/settings:1: agent \`Codex\` is not an agent's name"
    rm "$CFG/settings"
    run_x "$EX_USAGE" agent-sandbox --agent ../claude --dry-run
    assert "$stderr" == "agent-sandbox: error: --agent ../claude: no such agent (the agents: claude, codex, crush, gemini, opencode)"
}
