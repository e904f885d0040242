#!/usr/bin/env bats
# The suite spares the user's own sessions (issue 29, "make check ends the
# user's own running sessions"): a session launched outside the suite's root
# ($AS_E2E_ROOT), with a config of its own and no mark of the suite's, runs
# while the tests around it start, stop, kill and leak sessions, and is
# counted by no leak check, listed by no `ps` and ended by no `stop --all`
# of the suite's; it ends with its own exit code.

load helpers

# The "user's" session: started once for the whole file, as the user would
# start one in another project (its own launch directory under $HOME but
# outside $AS_E2E_ROOT, its own config and state, git's global config as the
# user has it, no AGENT_SANDBOX_TEST_ROOT). It keeps the suite's egress
# network and resolver: no test sends anything off the machine.
setup_file() {
    OWN_TOP=$(mktemp -d "$HOME/as-e2e-own-XXXXXXXX")
    OWN_DIR=$(cd "$OWN_TOP" && mkdir work && cd work && pwd -P)
    mkdir -m 0700 "$OWN_TOP/config" "$OWN_TOP/config/agent-sandbox" "$OWN_TOP/state"
    # podman's own config, as the user has it (the suite's links to it)
    ln -s "$XDG_CONFIG_HOME/containers" "$OWN_TOP/config/containers"
    ln -s "$XDG_CONFIG_HOME/cni" "$OWN_TOP/config/cni"
    printf 'notifications off\n' >"$OWN_TOP/config/agent-sandbox/settings"
    # shellcheck disable=SC2018,SC2019  # ASCII on purpose: a podman name
    OWN_VOLUME=as-e2e-own-$(basename "$OWN_TOP" | tr 'A-Z' 'a-z' | tr -cd 'a-z0-9-')
    export OWN_TOP OWN_DIR OWN_VOLUME
    (
        cd "$OWN_DIR" || exit 1
        rc=0
        setsid --wait env -u AGENT_SANDBOX_TEST_ROOT -u GIT_CONFIG_GLOBAL \
            XDG_CONFIG_HOME="$OWN_TOP/config" XDG_STATE_HOME="$OWN_TOP/state" \
            AGENT_SANDBOX_HOME_VOLUME="$OWN_VOLUME" \
            "$AGENT_SANDBOX_BIN" --memory none --exec sh -c \
            'touch .running; while [ ! -e .stop ]; do sleep 0.2; done; exit 23' \
            </dev/null >"$OWN_TOP/stdout" 2>"$OWN_TOP/stderr" || rc=$?
        echo "$rc" >"$OWN_TOP/rc"
    ) </dev/null >/dev/null 2>&1 3>&- &
    local n
    for ((n = 0; n < 1200; n++)); do
        [ -e "$OWN_DIR/.running" ] && break
        [ -s "$OWN_TOP/rc" ] && break
        sleep 0.1
    done
}

teardown_file() {
    [ -n "${OWN_TOP:-}" ] || return 0
    # A failed test may leave it running: end it as the user would.
    touch "$OWN_DIR/.stop"
    local n
    for ((n = 0; n < 600; n++)); do [ -s "$OWN_TOP/rc" ] && break; sleep 0.1; done
    $PODMAN volume rm -f "$OWN_VOLUME" >/dev/null 2>&1 || true
    rm -rf "$OWN_TOP" 2>/dev/null || $PODMAN unshare rm -rf "$OWN_TOP"
}

# The user's session's ID (from the registry, as `ps` reads it).
own_id() {
    local f
    for f in "$AS_SESSIONS_DIR"/*/session.json; do
        grep -qF "\"launch_dir\":\"$OWN_DIR\"" "$f" 2>/dev/null && { basename "$(dirname "$f")"; return 0; }
    done
    die "the user's session is not running:"$'\n'"$(cat "$OWN_TOP/stderr" 2>/dev/null)"
}

# own_running: its agent's container and its podman service still run.
own_running() {
    local id
    id=$(own_id) || return 1
    [ ! -s "$OWN_TOP/rc" ] || die "the user's session ended ($(<"$OWN_TOP/rc")): $(cat "$OWN_TOP/stderr")"
    assert "$($PODMAN ps --filter "label=$AS_LABEL=$id" --format '{{.Names}}' | grep -c .)" != 0 \
        "the user's session's containers"
    pgrep -u "$(id -u)" -f "$AS_SESSIONS_DIR/$id/podman.sock" >/dev/null || die "the user's podman service is gone"
}

@test "a session of the user's, launched elsewhere: no leak, not in the suite's ps" {
    [ -e "$OWN_DIR/.running" ] || die "the user's session did not start:"$'\n'"$(cat "$OWN_TOP/stderr")"
    own_running
    local id
    id=$(own_id)
    leak_check "while the user's session runs" || die "the leak check counted the user's session"
    run_x 0 agent-sandbox ps -q
    assert "$output" == "" "the suite's ps"
    run_x 0 env -u AGENT_SANDBOX_TEST_ROOT "$AGENT_SANDBOX_BIN" ps -q
    assert "$output" contains "$id" "the user's own ps"
    own_running
}

@test "the suite's stop --all and its leaks are its own; the user's session runs on" {
    bg_start agent-sandbox --memory none --exec sh -c 'touch .running; exec sleep 100000'
    wait_for_file "$AS_DIR/.running" 120
    run_x 0 agent-sandbox stop --all
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" !contains "$(own_id)" "stop --all"
    bg_wait 30
    assert "$status" == 143 "the suite's session, stopped"
    own_running

    # a suite session whose CLI is killed leaves all of it behind
    bg_start agent-sandbox --memory none --exec sh -c 'touch .running2; exec sleep 100000'
    wait_for_file "$AS_DIR/.running2" 120
    kill -KILL "$AS_BG_PID"
    bg_wait 30
    if leak_check "after kill -9" 2>"$AS_RUN_DIR/leaks"; then
        die "the leak check found nothing of the killed session"
    fi
    cat "$AS_RUN_DIR/leaks"
    assert "$(cat "$AS_RUN_DIR/leaks")" contains "containers:"
    assert "$(cat "$AS_RUN_DIR/leaks")" !contains "$(own_id)" "what the leak check removed"
    own_running
}

@test "the user's session ends with its own exit code, as it would without the suite" {
    own_running
    touch "$OWN_DIR/.stop"
    local n
    for ((n = 0; n < 600; n++)); do [ -s "$OWN_TOP/rc" ] && break; sleep 0.1; done
    cat "$OWN_TOP/stderr"
    assert "$(cat "$OWN_TOP/rc")" == 23 "the user's session's exit code"
    assert "$(cat "$OWN_TOP/stderr")" !contains "error" "the user's session's messages"
}
