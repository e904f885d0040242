#!/usr/bin/env bats
# The protected set from the user's file (global lines and per-directory
# sections) and the project's own file, the refusals for bad files, and one
# session per tree (docs/workspace-protection.md).

load helpers

# The suite's config directory, never the user's (helpers.bash).
WS_USER_FILE=$AS_CONFIG_DIR/protected-paths

setup() {
    as_setup
    mkdir -p "$AS_CONFIG_DIR"
}

teardown() {
    rm -rf "$WS_USER_FILE"
    as_teardown
}

# PATH as the CLI shows it: ~ for $HOME.
shown() {
    local home
    home=$(cd "$HOME" && pwd -P)
    case $1 in
        "$home" | "$home"/*) echo "~${1#"$home"}" ;;
        *) echo "$1" ;;
    esac
}

@test "the user's file adds and removes paths, everywhere and for one directory" {
    cat >"$WS_USER_FILE" <<EOF
# e2e
build-hooks/
!.idea/

[$(shown "$AS_DIR")]
!.vscode/
extra.sh

[$AS_E2E_ROOT/elsewhere]
!.envrc
EOF
    mkdir build-hooks
    run_x 0 agent-sandbox --exec sh -c '
        mkdir .idea && : >.idea/x && echo idea-writable
        mkdir .vscode && : >.vscode/x && echo vscode-writable
        (: >build-hooks/x) 2>/dev/null || echo build-hooks-frozen
        (: >extra.sh) 2>/dev/null || echo extra-frozen
        (: >.envrc) 2>/dev/null || echo envrc-frozen'
    assert "$output" == $'idea-writable\nvscode-writable\nbuild-hooks-frozen\nextra-frozen\nenvrc-frozen'
    [ -f .idea/x ] && [ -f .vscode/x ] || die "what the sandbox wrote into .idea and .vscode is not on the host"
    [ ! -e extra.sh ] || die "the placeholder extra.sh was left behind"
}

@test "the project's own file adds paths and is itself frozen" {
    mkdir -p .agent-sandbox scripts
    printf '# ours\nscripts/deploy.sh\n' >.agent-sandbox/protected-paths
    echo 'echo deploying' >scripts/deploy.sh
    run_x 0 agent-sandbox --exec sh -c '
        (echo evil >>scripts/deploy.sh) 2>/dev/null && echo "WROTE deploy.sh"
        (echo "!scripts/deploy.sh" >.agent-sandbox/protected-paths) 2>/dev/null && echo "WROTE the project file"
        rm -f .agent-sandbox/protected-paths 2>/dev/null && echo "REMOVED the project file"
        mv .agent-sandbox .x 2>/dev/null && echo "MOVED .agent-sandbox"
        echo done'
    assert "$output" == "done"
    assert "$(cat scripts/deploy.sh)" == "echo deploying"
    assert "$(cat .agent-sandbox/protected-paths)" == $'# ours\nscripts/deploy.sh'
}

@test "a project's file cannot remove protection: refused, naming the file, line and rule" {
    mkdir .agent-sandbox
    printf '# the agent wrote this\n!.git/hooks/\n' >.agent-sandbox/protected-paths
    run_x "$EX_CONFIG" agent-sandbox --exec true
    local dir
    dir=$(shown "$AS_DIR")
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" contains "refusing to launch from $dir: $dir/.agent-sandbox/protected-paths:2: \"!.git/hooks/\": a ! line; the project's own file can only add paths [rule: project-file-adds-only]."
    assert "$stderr" contains "add a section \"[$dir]\" with your lines to $(shown "$WS_USER_FILE")."
    assert "$(ls -A)" == .agent-sandbox "nothing created in the launch directory"

    # The same line in a section of the user's file is how to do it.
    rm -r .agent-sandbox
    printf '[%s]\n!.git/hooks/\n' "$dir" >"$WS_USER_FILE"
    git init -q .
    run_x --warns "$WARN_DISABLED" 0 agent-sandbox --exec sh -c ': >.git/hooks/x && echo hooks-writable'
    assert "$output" == hooks-writable
}

@test "a malformed or unreadable user file refuses, naming the file, line and rule" {
    printf 'fine/\n\n/etc/passwd   # absolute\n' >"$WS_USER_FILE"
    run_x "$EX_CONFIG" agent-sandbox --exec true
    assert "$stderr" contains "$(shown "$WS_USER_FILE"):3: \"/etc/passwd\": an absolute path; protected paths are relative to the launch directory [rule: protected-paths-syntax]."
    assert "$stderr" contains "fix or remove that line in $(shown "$WS_USER_FILE")"

    printf '[~/src/p\n' >"$WS_USER_FILE"
    run_x "$EX_CONFIG" agent-sandbox --exec true
    assert "$stderr" contains "protected-paths:1: \"[~/src/p\": a section header without its closing ] [rule: protected-paths-syntax]"

    printf '.claude/settings*.json\n' >"$WS_USER_FILE"
    run_x "$EX_CONFIG" agent-sandbox --exec true
    assert "$stderr" contains "wildcards are not supported, list each path [rule: protected-paths-syntax]"

    rm "$WS_USER_FILE"
    mkdir "$WS_USER_FILE"
    run_x "$EX_CONFIG" agent-sandbox --exec true
    assert "$stderr" contains "cannot read $(shown "$WS_USER_FILE"): Is a directory [rule: protected-paths-unreadable]"
    assert "$(ls -A)" == "" "nothing created in the launch directory"
}

@test "two sessions cannot overlap on one tree" {
    mkdir sub
    bg_start agent-sandbox --exec sh -c 'touch .running; while [ ! -e .stop ]; do sleep 0.1; done'
    wait_for_file "$AS_DIR/.running" 120

    run_x "$EX_REFUSED" agent-sandbox --exec true
    assert "$stderr" contains "another agent-sandbox session is running in this directory or in one below it [rule: one-session-per-tree]"
    cd sub
    run_x "$EX_REFUSED" agent-sandbox --exec true
    assert "$stderr" contains "refusing to launch from $(shown "$AS_DIR")/sub: another agent-sandbox session is running in $(shown "$AS_DIR"), which holds this directory [rule: one-session-per-tree]"
    cd "$AS_DIR"

    touch .stop
    bg_wait 60
    assert "$status" == 0 "the first session"
    run_x 0 agent-sandbox --exec true
}

@test "the config files are outside the sandbox: not readable, not writable" {
    local marker=marker-$RANDOM$RANDOM
    printf '# %s\n' "$marker" >"$WS_USER_FILE"
    local before
    before=$(cat "$WS_USER_FILE")
    run_x 0 agent-sandbox --exec sh -c '
        cat "$1" 2>/dev/null
        ls -A "$(dirname "$1")" 2>/dev/null
        (mkdir -p "$(dirname "$1")" && echo "!.git/config" >>"$1") 2>/dev/null
        echo done' sh "$WS_USER_FILE"
    assert "$output" !contains "$marker" "the user's file, read from inside"
    assert "$output" !contains "protected-paths" "the config directory, listed from inside"
    assert "$(cat "$WS_USER_FILE")" == "$before" "the user's file on the host"
}

@test "--dry-run lists the protected paths and changes nothing" {
    git init -q .
    run_x 0 agent-sandbox --dry-run --exec true
    assert "$output" contains "protect: .git/config (read-only)"
    assert "$output" contains "protect: .git/hooks/ (read-only)"
    assert "$output" contains "pin:     .git/ (read-write, cannot be renamed or removed)"
    assert "$output" contains "protect: .envrc/ (missing: an empty directory stands in for the session)"
    assert "$output" contains "protect: .git/config.worktree (missing: an empty file stands in for the session)"
    assert "$output" contains "protect: .vscode/ (missing: an empty directory stands in for the session)"
    assert "$(ls -A)" == .git "the launch directory after --dry-run"
}
