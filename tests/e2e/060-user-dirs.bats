#!/usr/bin/env bats
# The CLI's own files live where the XDG Base Directory rules say
# (lib/user_dirs.h): config in $XDG_CONFIG_HOME/agent-sandbox, the router's
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
    assert "$stderr" contains "created $CFG/allowed-hosts from " "the first run's copy"
    cmp "$CFG/allowed-hosts" "$AS_TOP/config/allowed-hosts" || die "the copy differs from the packaged allowlist"
    assert "$(stat -c %a "$CFG")" == 700 "the config directory's mode"
    local logs
    logs=$(find "$XDG_STATE_HOME/agent-sandbox/logs" -mindepth 2 -name egress.log)
    assert "$(wc -l <<<"$logs")" == 1 "one session's router logs in the state directory"
    assert "$(stat -c %a "$XDG_STATE_HOME/agent-sandbox")" == 700 "the state directory's mode"

    # every config file is read from there
    printf 'pids lots\n' >"$CFG/limits"
    run_x $EX_CONFIG agent-sandbox --exec true
    assert "$stderr" contains "$CFG/limits:1:" "the limits file"
    rm "$CFG/limits"

    printf 'relative/root\n' >"$CFG/allowed-paths"
    run_x $EX_CONFIG agent-sandbox --exec true
    assert "$stderr" contains "allowed-paths:1" "the allowed-paths file"
    rm "$CFG/allowed-paths"

    printf 'frozen/\n' >"$CFG/protected-paths"
    mkdir frozen
    run_x 0 agent-sandbox --memory none --exec sh -c '(: >frozen/x) 2>/dev/null || echo frozen-read-only'
    assert "$output" == frozen-read-only "a path the protected-paths file names"

    # and the config directory is refused as a launch directory
    cd "$CFG"
    run_x $EX_REFUSED agent-sandbox --exec true
    assert "$stderr" contains "agent-sandbox's config directory" "the rule"
}
