#!/usr/bin/env bats
# `agent-sandbox doctor` (issue 15): one line per check, OK, WARN or FAIL,
# each problem with the command that fixes it; exit 1 on any FAIL. On this
# machine, as the suite runs, nothing fails; each FAIL below is made on
# purpose.

load helpers

CHECKS=(XDG_RUNTIME_DIR "subordinate ids" "user namespaces" /dev/net/tun podman cgroups storage
        "resource limits" "image router" "image claude" "egress network" "upstream resolver"
        "config allowed-hosts" "config allowed-paths" "config protected-paths" "config limits"
        "config settings" "home volume (AGENT_SANDBOX_HOME_VOLUME)" git)

teardown() {
    rm -f "$AS_CONFIG_DIR/limits"
    as_teardown     # puts the suite's settings file back
}

@test "doctor: every check, one line each, and no FAIL on the suite's machine" {
    run_x 0 agent-sandbox doctor
    local check
    for check in "${CHECKS[@]}"; do
        grep -E '^(OK|WARN|FAIL) ' <<<"$output" | grep -qF "  $check: " || die "no line for the check $check"
    done
    assert "$output" !contains "FAIL  "
    assert "${lines[-1]}" =~ "^[0-9]+ OK, [0-9]+ WARN, 0 FAIL$"
    # a WARN carries its fix on the next line
    local n
    for ((n = 0; n < ${#lines[@]}; n++)); do
        if [[ ${lines[n]} == WARN* ]]; then
            assert "${lines[n + 1]}" =~ "^      fix: ." "the fix under: ${lines[n]}"
        fi
    done
    # the suite's egress network is --internal on purpose: doctor says what that means
    assert "$output" contains "WARN  egress network: $AGENT_SANDBOX_EGRESS_NETWORK is --internal: the router reaches nothing upstream"
    assert "$output" contains "      fix: unset AGENT_SANDBOX_EGRESS_NETWORK"
    assert "$output" contains "OK    image claude: localhost/agent-sandbox:"
    # leaves nothing: the teardown's leak check
}

@test "doctor: a config file with an error is a FAIL naming its line, with the command to edit it" {
    printf 'example.test\nbad..name\n' >"$AS_RUN_DIR/allowed-hosts"
    # a session says the same of the file
    run_x "$EX_CONFIG" env AGENT_SANDBOX_ALLOWLIST="$AS_RUN_DIR/allowed-hosts" "$AGENT_SANDBOX_BIN" --exec true
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" contains "$AS_RUN_DIR/allowed-hosts:2: "
    echo "memory lots" >"$AS_CONFIG_DIR/limits"
    run_x 1 env AGENT_SANDBOX_ALLOWLIST="$AS_RUN_DIR/allowed-hosts" "$AGENT_SANDBOX_BIN" doctor
    assert "$output" =~ $'\n'"FAIL  config allowed-hosts: $AS_RUN_DIR/allowed-hosts:2: "
    assert "$output" contains $'\n'"      fix: \${EDITOR:-vi} $AS_RUN_DIR/allowed-hosts"$'\n'
    assert "$output" =~ $'\n'"FAIL  config limits: $AS_CONFIG_DIR/limits:1: "
    assert "${lines[-1]}" =~ "^[0-9]+ OK, [0-9]+ WARN, 2 FAIL$"
    # the other checks still ran
    assert "$output" =~ $'\n'"OK    podman: podman "
}

@test "doctor: the settings file, parsed as a session reads it, and the agent it names" {
    printf '# mine\nagent codex\n' >"$AS_CONFIG_DIR/settings"
    # codex's image need not be built here: a built image stands in for it
    local built
    built=${AGENT_SANDBOX_IMAGE:-$("$AGENT_SANDBOX_BIN" --version | awk '$1 == "claude" { print $3 }')}
    [ -n "$built" ] || die "--version names no image for claude"
    run_x 0 env AGENT_SANDBOX_IMAGE="$built" "$AGENT_SANDBOX_BIN" doctor
    assert "$output" contains $'\n'"OK    config settings: $AS_CONFIG_DIR/settings: agent codex"$'\n'
    # the image a session needs is that agent's (AGENT_SANDBOX_IMAGE stands in for it)
    run_x 1 env AGENT_SANDBOX_IMAGE=localhost/as-e2e-nosuch:dev "$AGENT_SANDBOX_BIN" doctor
    assert "$output" contains $'\n'"FAIL  image codex: localhost/as-e2e-nosuch:dev is missing: sessions cannot start"$'\n'"      fix: make images AGENTS=codex"
    assert "$output" !contains "FAIL  image claude" "claude's image is not the one sessions need"
    printf 'agent codex\ncolour blue\n' >"$AS_CONFIG_DIR/settings"
    run_x "$EX_CONFIG" agent-sandbox --exec true
    assert "$stderr" contains "$AS_CONFIG_DIR/settings:2: "
    run_x 1 agent-sandbox doctor
    assert "$output" =~ $'\n'"FAIL  config settings: $AS_CONFIG_DIR/settings:2: "
    assert "$output" contains $'\n'"      fix: \${EDITOR:-vi} $AS_CONFIG_DIR/settings"$'\n'
    printf 'agent nosuch\n' >"$AS_CONFIG_DIR/settings"
    run_x 1 agent-sandbox doctor
    assert "$output" contains $'\n'"FAIL  config settings: $AS_CONFIG_DIR/settings:1: agent nosuch: no such agent"
    assert "${lines[-1]}" =~ "^[0-9]+ OK, [0-9]+ WARN, 1 FAIL$"
}

@test "doctor: a runtime directory that is not yours is a FAIL with the command that makes one" {
    run_x 1 env XDG_RUNTIME_DIR=/tmp "$AGENT_SANDBOX_BIN" doctor
    assert "${lines[0]}" =~ "^FAIL  XDG_RUNTIME_DIR: "
    assert "$output" contains "      fix: sudo install -d -m 0700 -o $(id -u) -g $(id -g) /run/user/$(id -u) && export XDG_RUNTIME_DIR=/run/user/$(id -u)"
    assert "$output" =~ $'\n'"FAIL  podman: not checked"
    # the checks that need no podman still ran
    assert "$output" =~ $'\n'"(OK|WARN|FAIL) +user namespaces: "
    assert "$output" =~ $'\n'"(OK|WARN) +git: "
}

@test "doctor: git's safe.bareRepository, read from git's own files as git reads them" {
    local global=$AS_RUN_DIR/gitconfig
    printf '[safe]\n\tbareRepository = all\n' >"$global"
    run_x 0 env GIT_CONFIG_GLOBAL="$global" GIT_CONFIG_NOSYSTEM=1 "$AGENT_SANDBOX_BIN" doctor
    assert "$output" contains "WARN  git: safe.bareRepository is all in $global"
    assert "$output" contains "      fix: git config --global safe.bareRepository explicit"
    # the fix, applied as printed, turns it OK
    GIT_CONFIG_GLOBAL=$global git config --global safe.bareRepository explicit
    run_x 0 env GIT_CONFIG_GLOBAL="$global" GIT_CONFIG_NOSYSTEM=1 "$AGENT_SANDBOX_BIN" doctor
    assert "$output" contains "OK    git: safe.bareRepository is explicit ($global)"
}

@test "doctor --help, and no other argument" {
    run_x 0 agent-sandbox doctor --help
    assert "${lines[0]}" == "usage: agent-sandbox doctor"
    run_x "$EX_USAGE" agent-sandbox doctor --json
}
