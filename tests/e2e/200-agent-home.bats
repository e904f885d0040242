#!/usr/bin/env bats
# The agent's home, mounted at /home/agent, owned by the caller's uid inside
# and kept after the session: by default each launch directory's own volume,
# with Claude's login apart in one volume every project shares (threat 33);
# a volume named by AGENT_SANDBOX_HOME_VOLUME is used as is, by every
# session. The per-project tests name their volumes with a prefix of their
# own (AGENT_SANDBOX_VOLUME_PREFIX), so the user's are never touched.

load helpers
load fault-helpers

setup() {
    as_setup
    home_volume_setup
    # shellcheck disable=SC2018,SC2019  # ASCII on purpose: a podman name
    AS_PREFIX=as-e2e-$(basename "$AS_DIR" | tr 'A-Z' 'a-z')
    AS_OTHER_DIR=
}

teardown() {
    local rc=0
    [ -n "$AS_OTHER_DIR" ] && { rm -rf "$AS_OTHER_DIR" 2>/dev/null || $PODMAN unshare rm -rf "$AS_OTHER_DIR"; }
    as_teardown || rc=1
    home_volume_teardown
    # shellcheck disable=SC2086  # $PODMAN splits, as make's $(PODMAN) does
    $PODMAN volume ls -q | grep "^$AS_PREFIX-" | xargs -r $PODMAN volume rm -f >/dev/null 2>&1 || true
    return $rc
}

# per_project: sessions get per-project homes named with the test's prefix.
per_project() {
    unset AGENT_SANDBOX_HOME_VOLUME
    export AGENT_SANDBOX_VOLUME_PREFIX=$AS_PREFIX
}

# A login as Claude Code stores it (its access token never leaves this test).
FAKE_LOGIN='{"claudeAiOauth":{"accessToken":"sk-ant-oat01-e2e","refreshToken":"sk-ant-ort01-e2e","expiresAt":4102444800000,"scopes":["user:inference","user:profile"],"subscriptionType":"pro"}}'

@test "threat 33: a file left in the home in one tree is absent in another; the login is in both, and Claude Code reads it" {
    per_project
    run_x 0 agent-sandbox --exec bash -c '
        mkdir -p ~/.claude/projects/secret && echo transcript >~/.claude/projects/secret/t.jsonl
        echo "echo planted" >>~/.bashrc
        umask 077; printf "%s" "$1" >"$CLAUDE_SECURESTORAGE_CONFIG_DIR/.credentials.json"
        echo "$CLAUDE_SECURESTORAGE_CONFIG_DIR"' sh "$FAKE_LOGIN"
    assert "$output" == /var/lib/agent-sandbox-login "where the login lives"
    # the same tree again: its home is kept
    run_x 0 agent-sandbox --exec cat /home/agent/.claude/projects/secret/t.jsonl
    assert "$output" == transcript

    AS_OTHER_DIR=$(cd "$(mktemp -d "$AS_E2E_ROOT/XXXXXXXX")" && pwd -P)
    cd "$AS_OTHER_DIR"
    run_x 0 agent-sandbox --exec bash -c '
        ls -A ~; ls ~/.claude/projects 2>&1 | head -1
        stat -c "%a %u" "$CLAUDE_SECURESTORAGE_CONFIG_DIR/.credentials.json"
        timeout 60 claude auth status'
    assert "$output" !contains "secret" "the other tree's transcripts"
    assert "$output" !contains ".bashrc" "the other tree's shell files"
    assert "${lines[1]}" == "600 $(id -u)" "the login file, as the agent owns it"
    assert "$output" contains '"loggedIn": true' "the pinned Claude Code reads the shared login"
    assert "$output" contains '"subscriptionType": "pro"'
    # two homes and one login volume, each labelled
    # shellcheck disable=SC2086  # $PODMAN splits, as make's $(PODMAN) does
    run_x 0 $PODMAN volume ls --format '{{.Name}} {{index .Labels "agent-sandbox.home-for"}}' --filter "label=agent-sandbox.home-for"
    assert "$output" contains "$AS_DIR" "the first tree's home"
    assert "$output" contains "$AS_OTHER_DIR" "the second tree's home"
    # shellcheck disable=SC2086  # $PODMAN splits, as make's $(PODMAN) does
    run_x 0 $PODMAN volume exists "$AS_PREFIX-login"
}

@test "threat 33: an existing user's login is copied once from the old shared home, and nothing else of it" {
    # the old shared home, as a session of the previous release left it
    AGENT_SANDBOX_HOME_VOLUME=$AS_PREFIX-home run_x 0 agent-sandbox --exec bash -c '
        mkdir -p ~/.claude/projects/old && echo transcript >~/.claude/projects/old/t.jsonl
        umask 077; printf "%s" "$1" >~/.claude/.credentials.json' sh "$FAKE_LOGIN"
    per_project
    run_x 0 agent-sandbox --exec bash -c '
        cat "$CLAUDE_SECURESTORAGE_CONFIG_DIR/.credentials.json"; echo
        stat -c "%a %u" "$CLAUDE_SECURESTORAGE_CONFIG_DIR/.credentials.json"
        ls -A ~/.claude 2>&1 | head -1'
    assert "${lines[0]}" == "$FAKE_LOGIN" "the login, copied"
    assert "${lines[1]}" == "600 $(id -u)"
    assert "$output" !contains "projects" "nothing else of the old home"
    # once: a later change in the old home is not copied again
    AGENT_SANDBOX_HOME_VOLUME=$AS_PREFIX-home run_x 0 agent-sandbox --exec sh -c 'echo changed >~/.claude/.credentials.json'
    per_project
    run_x 0 agent-sandbox --exec cat /var/lib/agent-sandbox-login/.credentials.json
    assert "$output" == "$FAKE_LOGIN"
    # the copy ran in a container of the session: nothing of it is left
    # shellcheck disable=SC2086  # $PODMAN splits, as make's $(PODMAN) does
    run_x 0 $PODMAN ps -a --format '{{.Names}}' --filter name=login-copy
    assert "$output" == ""
}

@test "a symlink in the old shared home is not followed when the login is copied" {
    AGENT_SANDBOX_HOME_VOLUME=$AS_PREFIX-home run_x 0 agent-sandbox --exec sh -c \
        'mkdir -p ~/.claude && ln -s /etc/passwd ~/.claude/.credentials.json'
    per_project
    run_x 0 agent-sandbox --exec sh -c 'ls -A "$CLAUDE_SECURESTORAGE_CONFIG_DIR"'
    assert "$output" == "" "the login volume stays empty"
}

@test "cleanup --homes removes the homes of launch directories that are gone, and nothing else" {
    per_project
    AS_OTHER_DIR=$(cd "$(mktemp -d "$AS_E2E_ROOT/XXXXXXXX")" && pwd -P)
    (cd "$AS_OTHER_DIR" && run_x 0 agent-sandbox --exec touch /home/agent/x)
    run_x 0 agent-sandbox --exec touch /home/agent/x
    local gone_home
    gone_home=$($PODMAN volume ls --format '{{.Name}} {{index .Labels "agent-sandbox.home-for"}}' | awk -v d="$AS_OTHER_DIR" '$2 == d {print $1}')
    assert -n "$gone_home" "the other tree's home"
    rm -rf "$AS_OTHER_DIR"
    AS_OTHER_DIR=
    run_x 0 agent-sandbox cleanup --homes
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" contains "removed the home $gone_home of $AS_E2E_ROOT/" "the report names it"
    run $PODMAN volume exists "$gone_home"
    assert "$status" == 1 "the gone tree's home"
    run_x 0 agent-sandbox --exec ls /home/agent/x
    # shellcheck disable=SC2086  # $PODMAN splits, as make's $(PODMAN) does
    run_x 0 $PODMAN volume exists "$AS_PREFIX-login"
    # cleanup alone keeps its meaning: the homes stay
    run_x 0 agent-sandbox cleanup
    assert "$stderr" !contains "home"
    run_x "$EX_USAGE" agent-sandbox cleanup --bogus
}

@test "HOME is the home volume, owned by the caller's uid on the first run and later ones" {
    run $PODMAN volume exists "$AS_HOME_VOLUME"
    assert "$status" == 1 "the volume before the first run"

    run_x 0 agent-sandbox --exec sh -c 'echo "$HOME"; stat -c %u:%g "$HOME"; touch "$HOME/probe" && echo writable'
    assert "${lines[0]}" == /home/agent "HOME"
    assert "${lines[1]}" == "$(id -u):$(id -g)" "owner of HOME inside, first run"
    assert "${lines[2]}" == writable

    # Made by the CLI, and not a session resource: no session label.
    # shellcheck disable=SC2086  # $PODMAN splits, as make's $(PODMAN) does
    run_x 0 $PODMAN volume inspect --format '{{index .Labels "agent-sandbox.session"}}|{{index .Labels "agent-sandbox.home"}}' "$AS_HOME_VOLUME"
    assert "$output" == "|1" "the volume's labels (session|home)"

    run_x 0 agent-sandbox --exec sh -c 'stat -c %u:%g "$HOME" "$HOME/probe"'
    assert "${lines[0]}" == "$(id -u):$(id -g)" "owner of HOME inside, second run"
    assert "${lines[1]}" == "$(id -u):$(id -g)" "owner of a file from the first run"
}

@test "a home named by AGENT_SANDBOX_HOME_VOLUME is used as is: a file written in one session is there in the next, in any tree" {
    local secret=persist-$RANDOM$RANDOM
    run_x 0 agent-sandbox --exec sh -c 'mkdir -p ~/.config/t && echo "$1" >~/.config/t/file' sh "$secret"
    # A new session in another launch directory sees it too.
    local other
    other=$(cd "$(mktemp -d "$AS_E2E_ROOT/XXXXXXXX")" && pwd -P)
    cd "$other"
    run_x 0 agent-sandbox --exec cat /home/agent/.config/t/file
    cd "$AS_DIR"
    rm -rf "$other"
    assert "$output" == "$secret"
}

@test "the stale sweep of a CLI killed with SIGKILL removes that session and keeps its home and the login" {
    per_project
    local sid home kept=kept-$RANDOM$RANDOM
    bg_start agent-sandbox --exec sh -c 'echo "$1" >~/from-killed; touch .running; exec sleep 1000' sh "$kept"
    wait_for_file "$AS_DIR/.running" 120
    sid=$(fh_session_of "$AS_BG_PID")
    fh_snapshot "$sid"
    home=$($PODMAN volume ls --filter "label=agent-sandbox.home-for=$AS_DIR" --format '{{.Name}}')
    assert "$home" =~ "^$AS_PREFIX-" "the launch directory's home"
    # shellcheck disable=SC2086  # $PODMAN splits, as make's $(PODMAN) does
    run_x 0 $PODMAN volume exists "$AS_PREFIX-login"
    kill -KILL "$AS_BG_PID"
    bg_wait 30
    assert "$status" == 137 "exit status of the killed CLI"
    # a stale session: its containers, pod, network and directory are left
    $PODMAN pod exists "agent-sandbox-$sid" || die "the killed session's pod is gone already"
    [ -e "$AS_SESSIONS_DIR/$sid/lock" ] || die "the killed session's directory is gone already"
    fh_assert_left

    run_x 0 agent-sandbox cleanup
    assert "$stderr" =~ "removed [1-9][0-9]* leftover resources? and 1 directory of 1 earlier session " \
        "what the sweep says it removed"
    fh_assert_gone "after the sweep"
    # kept: the home (with what the killed session wrote) and the login
    # shellcheck disable=SC2086  # $PODMAN splits, as make's $(PODMAN) does
    run_x 0 $PODMAN volume inspect --format '{{index .Labels "agent-sandbox.session"}}|{{index .Labels "agent-sandbox.home-for"}}' "$home"
    assert "$output" == "|$AS_DIR" "the home's labels (session|home-for) after the sweep"
    # shellcheck disable=SC2086  # $PODMAN splits, as make's $(PODMAN) does
    run_x 0 $PODMAN volume exists "$AS_PREFIX-login"
    run_x 0 agent-sandbox --exec cat /home/agent/from-killed
    assert "$output" == "$kept" "the killed session's file in its home"
    # and the start of that session swept nothing more
    assert "$stderr" !contains "leftover resource" "the next start"
}

@test "AGENT_SANDBOX_HOME_VOLUME must be a valid volume name" {
    AGENT_SANDBOX_HOME_VOLUME='../x' run_x "$EX_USAGE" agent-sandbox --exec true
    assert "$stderr" contains "home volume name" "the error names the setting"
}

@test "a home volume that is not the caller's is refused, with the fix" {
    # Podman chowns a fresh volume to the user of the first container that
    # mounts it; here a uid other than the caller's.
    # shellcheck disable=SC2086  # $PODMAN splits, as make's $(PODMAN) does
    run_x 0 $PODMAN volume create "$AS_HOME_VOLUME"
    # shellcheck disable=SC2086  # $PODMAN splits, as make's $(PODMAN) does
    run_x 0 $PODMAN run --rm --network none -v "$AS_HOME_VOLUME:/v" --user 4321:4321 \
        "${AGENT_SANDBOX_IMAGE:-localhost/agent-sandbox:dev}" stat -c %u /v
    assert "$output" == 4321 "owner of the volume inside the helper container"

    run_x "$EX_SETUP" agent-sandbox --exec true
    assert "$stderr" contains "home volume $AS_HOME_VOLUME belongs to uid" "the error names the volume"
    assert "$stderr" contains "podman unshare chown 0:0 " "the error gives the fix"

    # The fix it names works.
    local mountpoint
    mountpoint=$($PODMAN volume inspect --format '{{.Mountpoint}}' "$AS_HOME_VOLUME")
    # shellcheck disable=SC2086  # $PODMAN splits, as make's $(PODMAN) does
    run_x 0 $PODMAN unshare chown 0:0 "$mountpoint"
    run_x 0 agent-sandbox --exec sh -c 'stat -c %u "$HOME"'
    assert "$output" == "$(id -u)"
}
