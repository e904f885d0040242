#!/usr/bin/env bats
# The agent's home: the podman volume named by AGENT_SANDBOX_HOME_VOLUME
# (default agent-sandbox-home), mounted at /home/agent, owned by the caller's
# uid inside, shared by every session and kept after them.

load helpers

setup() {
    as_setup
    AS_HOME_VOLUME=as-e2e-home-$(basename "$AS_DIR" | tr 'A-Z' 'a-z')
    export AGENT_SANDBOX_HOME_VOLUME=$AS_HOME_VOLUME
}

teardown() {
    local rc=0
    as_teardown || rc=1
    # The home volume outlives sessions by design; the test's own goes now.
    $PODMAN volume rm -f "$AS_HOME_VOLUME" >/dev/null 2>&1 || true
    return $rc
}

@test "HOME is the home volume, owned by the caller's uid on the first run and later ones" {
    run $PODMAN volume exists "$AS_HOME_VOLUME"
    assert "$status" == 1 "the volume before the first run"

    run_x 0 agent-sandbox --exec sh -c 'echo "$HOME"; stat -c %u:%g "$HOME"; touch "$HOME/probe" && echo writable'
    assert "${lines[0]}" == /home/agent "HOME"
    assert "${lines[1]}" == "$(id -u):$(id -g)" "owner of HOME inside, first run"
    assert "${lines[2]}" == writable

    # Made by the CLI, and not a session resource: no session label.
    run_x 0 $PODMAN volume inspect --format '{{index .Labels "agent-sandbox.session"}}|{{index .Labels "agent-sandbox.home"}}' "$AS_HOME_VOLUME"
    assert "$output" == "|1" "the volume's labels (session|home)"

    run_x 0 agent-sandbox --exec sh -c 'stat -c %u:%g "$HOME" "$HOME/probe"'
    assert "${lines[0]}" == "$(id -u):$(id -g)" "owner of HOME inside, second run"
    assert "${lines[1]}" == "$(id -u):$(id -g)" "owner of a file from the first run"
}

@test "a file written to home in one session is there in the next" {
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

@test "cleanup and the stale sweep leave the home volume alone" {
    run_x 0 agent-sandbox --exec true
    run_x 0 agent-sandbox cleanup
    run_x 0 $PODMAN volume exists "$AS_HOME_VOLUME"
}

@test "AGENT_SANDBOX_HOME_VOLUME must be a valid volume name" {
    AGENT_SANDBOX_HOME_VOLUME='../x' run_x $EX_USAGE agent-sandbox --exec true
    assert "$stderr" contains "home volume name" "the error names the setting"
}

@test "a home volume that is not the caller's is refused, with the fix" {
    # Podman chowns a fresh volume to the user of the first container that
    # mounts it; here a uid other than the caller's.
    run_x 0 $PODMAN volume create "$AS_HOME_VOLUME"
    run_x 0 $PODMAN run --rm --network none -v "$AS_HOME_VOLUME:/v" --user 4321:4321 \
        "${AGENT_SANDBOX_IMAGE:-localhost/agent-sandbox:dev}" stat -c %u /v
    assert "$output" == 4321 "owner of the volume inside the helper container"

    run_x $EX_SETUP agent-sandbox --exec true
    assert "$stderr" contains "home volume $AS_HOME_VOLUME belongs to uid" "the error names the volume"
    assert "$stderr" contains "podman unshare chown 0:0 " "the error gives the fix"

    # The fix it names works.
    local mountpoint
    mountpoint=$($PODMAN volume inspect --format '{{.Mountpoint}}' "$AS_HOME_VOLUME")
    run_x 0 $PODMAN unshare chown 0:0 "$mountpoint"
    run_x 0 agent-sandbox --exec sh -c 'stat -c %u "$HOME"'
    assert "$output" == "$(id -u)"
}
