#!/usr/bin/env bats
# Running sessions seen and steered from outside (issue 15, "Sessions"):
# `ps` and `stop` with two sessions at once, from the registry each one
# writes in its session directory (lib/session/session_registry.h); the refusal of
# a second session in a tree names the first (exit 77); the limits this
# host cannot enforce: a note once per host, an error when you set one.

load helpers

AS_OTHER_DIR=

teardown() {
    rm -f "$AS_CONFIG_DIR/limits"
    [ -z "$AS_OTHER_DIR" ] || rm -rf "$AS_OTHER_DIR" 2>/dev/null || $PODMAN unshare rm -rf "$AS_OTHER_DIR"
    # a failed test's sessions end as stop ends them, not by SIGKILL
    "$AGENT_SANDBOX_BIN" stop --all >/dev/null 2>&1 || true
    as_teardown
}

# start_in NAME DIR: a session in DIR whose agent runs until it is ended;
# waits until the agent runs.
start_in() {
    cd "$2" || return
    bg_start --as "$1" agent-sandbox --memory none --exec sh -c 'touch .running; exec sleep 100000'
    wait_for_file "$2/.running" 120
    cd "$AS_DIR" || return
}

# The ps row of the session whose CLI is PID.
ps_row() {
    awk -v pid="$1" '$2 == pid' <<<"$output"
}

# The directory as the CLI shows it: ~ for $HOME.
shown() {
    local home
    home=$(cd "$HOME" && pwd -P)
    case $1 in "$home"/*) echo "~${1#"$home"}" ;; *) echo "$1" ;; esac
}

@test "ps and stop with two sessions at once" {
    AS_OTHER_DIR=$(cd "$(mktemp -d "$AS_E2E_ROOT/XXXXXXXX")" && pwd -P)
    start_in one "$AS_DIR"
    start_in two "$AS_OTHER_DIR"
    local one=${AS_BG_PIDS[one]} two=${AS_BG_PIDS[two]} entries
    entries=$(grep -cvE '^[[:space:]]*(#|$)' "$AS_CONFIG_DIR/allowed-hosts")

    run_x 0 agent-sandbox ps
    assert "${lines[0]}" =~ "^ID +PID +AGE +ALLOWED +DENIED +DIRECTORY +COMMAND$"
    assert "${#lines[@]}" == 3 "a header and two sessions"
    local row_one row_two id_one id_two
    row_one=$(ps_row "$one") row_two=$(ps_row "$two")
    assert "$row_one" =~ "^[0-9a-f]{12} +$one +[0-9]+s +$entries +0 +$(shown "$AS_DIR") +sh -c touch .running; exec sleep 100000$"
    assert "$row_two" =~ "^[0-9a-f]{12} +$two +[0-9]+s +$entries +0 +$(shown "$AS_OTHER_DIR") "
    id_one=${row_one%% *} id_two=${row_two%% *}

    run_x 0 agent-sandbox ps -q
    assert "$(sort <<<"$output" | xargs)" == "$(printf '%s\n' "$id_one" "$id_two" | sort | xargs)"
    run_x 0 agent-sandbox ps --json
    run_x 0 python3 -c '
import json, sys
v = {s["pid"]: s for s in json.loads(sys.argv[1])}
a, b = v[int(sys.argv[2])], v[int(sys.argv[3])]
assert a["id"] == sys.argv[4] and a["launch_dir"] == sys.argv[5], a
assert a["command"] == ["sh", "-c", "touch .running; exec sleep 100000"], a
assert a["denied"] == 0 and a["allowlist"]["entries"] == int(sys.argv[6]) and a["agent"] is None, a
assert b["id"] == sys.argv[7] and len(v) == 2, v
print("ok")' "$output" "$one" "$two" "$id_one" "$AS_DIR" "$entries" "$id_two"

    # one of them, by a prefix of its ID: it ends as SIGTERM ends it
    run_x 0 agent-sandbox stop "${id_one:0:5}"
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" contains "stopping session $id_one (PID $one, in $(shown "$AS_DIR"), started "
    assert "$stderr" contains "stopped session $id_one"
    bg_wait --as one 30
    assert "$status" == 143 "the stopped session's CLI: its agent's status after SIGTERM"
    assert "$stderr" !contains "error" "the stopped session's CLI"
    run_x 0 agent-sandbox ps -q
    assert "$output" == "$id_two" "the other one runs on"

    run_x 0 agent-sandbox stop --all
    assert "$stderr" contains "stopped session $id_two"
    bg_wait --as two 30
    assert "$status" == 143
    run_x 0 agent-sandbox ps
    assert "${#lines[@]}" == 1 "the header alone"
    run_x 0 agent-sandbox ps --json
    assert "$output" == "[]"
}

@test "allow, deny, log and stop without an ID: the session of the current directory; else which one, with directories" {
    AS_OTHER_DIR=$(cd "$(mktemp -d "$AS_E2E_ROOT/XXXXXXXX")" && pwd -P)
    mkdir -p "$AS_OTHER_DIR/sub/deeper"
    start_in one "$AS_DIR"
    start_in two "$AS_OTHER_DIR"
    run_x 0 agent-sandbox ps
    local id_one id_two
    id_one=$(ps_row "${AS_BG_PIDS[one]}") id_one=${id_one%% *}
    id_two=$(ps_row "${AS_BG_PIDS[two]}") id_two=${id_two%% *}

    # below the second session's launch directory: that one
    cd "$AS_OTHER_DIR/sub/deeper" || die "cd"
    run_x 0 agent-sandbox allow db.test
    assert "$stderr" == "agent-sandbox: allowed db.test in session $id_two: the agent can reach it now"
    run_x 0 agent-sandbox log --json
    assert "$stderr" == "agent-sandbox: log of session $id_two, in $(shown "$AS_OTHER_DIR"), running" \
        "log's header, on stderr"
    run_x 0 python3 -c 'import json, sys
for l in sys.argv[1].splitlines(): json.loads(l)' "$output"
    # in the first one's: that one (db.test is not in its list)
    cd "$AS_DIR" || die "cd"
    run_x 0 agent-sandbox deny db.test
    assert "$stderr" == "agent-sandbox: db.test is not allowed in session $id_one: nothing to take off"
    run_x 0 agent-sandbox log
    assert "$stderr" == "agent-sandbox: log of session $id_one, in $(shown "$AS_DIR"), running"

    # in neither: which session?, each with its directory
    cd "$AS_E2E_ROOT" || die "cd"
    local which
    for cmd in "allow db.test" "deny db.test" "log" "stop"; do
        # shellcheck disable=SC2086
        run_x "$EX_USAGE" agent-sandbox $cmd
        which="agent-sandbox: error: ${cmd%% *}: which session? 2 are running, none started in this directory or above it; name one with its ID:"
        assert "${stderr%%$'\n'*}" == "$which" "$cmd"
        assert "$stderr" contains "agent-sandbox:   $id_one  in $(shown "$AS_DIR")" "$cmd"
        assert "$stderr" contains "agent-sandbox:   $id_two  in $(shown "$AS_OTHER_DIR")" "$cmd"
    done
    run_x 0 agent-sandbox ps -q
    assert "$(wc -l <<<"$output")" == 2 "stop without an ID stopped nothing"
    # allow --save with none here: the file of new sessions, no session changed
    export AGENT_SANDBOX_ALLOWLIST=$AS_RUN_DIR/allowed-hosts
    cp "$AS_CONFIG_DIR/allowed-hosts" "$AGENT_SANDBOX_ALLOWLIST"
    run_x 0 agent-sandbox allow saved.test --save
    assert "$stderr" contains "note: 2 sessions are running, none started in this directory or above it: none of them is changed"
    assert "$stderr" contains "saved 1 name to $AGENT_SANDBOX_ALLOWLIST"
    assert "$(tail -n 1 "$AGENT_SANDBOX_ALLOWLIST")" == "saved.test  # added by agent-sandbox allow, $(date +%F)"
    unset AGENT_SANDBOX_ALLOWLIST
    # a missing value, and an ID that names no session: 64 for all
    run_x "$EX_USAGE" agent-sandbox allow db.test --session
    assert "${stderr%%$'\n'*}" == "agent-sandbox: error: allow: --session needs a value (a session's ID)"
    run_x "$EX_USAGE" agent-sandbox allow db.test --session 000000000000

    # stop in a session's directory: that one alone, named
    cd "$AS_OTHER_DIR/sub" || die "cd"
    run_x 0 agent-sandbox stop
    assert "$stderr" contains "stopping session $id_two (PID ${AS_BG_PIDS[two]}, in $(shown "$AS_OTHER_DIR"), started "
    assert "$stderr" contains "stopped session $id_two"
    bg_wait --as two 30
    assert "$status" == 143
    cd "$AS_DIR" || die "cd"
    run_x 0 agent-sandbox ps -q
    assert "$output" == "$id_one" "the other one runs on"
    # one session running, not started here: allow takes it; stop does not
    cd "$AS_OTHER_DIR" || die "cd"
    run_x 0 agent-sandbox allow db.test
    assert "$stderr" == "agent-sandbox: allowed db.test in session $id_one: the agent can reach it now"
    run_x "$EX_USAGE" agent-sandbox stop
    assert "${stderr%%$'\n'*}" == "agent-sandbox: error: stop: which session? One is running, not started in this directory or above it; name it with its ID:"
    cd "$AS_DIR" || die "cd"
    run_x 0 agent-sandbox stop
    bg_wait --as one 30
    assert "$status" == 143
    run_x 0 agent-sandbox stop
    assert "$stderr" == "agent-sandbox: no session is running"
    # none running: log reads the kept logs of the session that ended last, and says so
    run_x 0 agent-sandbox log
    assert "$stderr" =~ "^agent-sandbox: log of session $id_one, ended \(its logs kept in [^ ]*/agent-sandbox/logs/$id_one\)$"
}

@test "stop: an agent that ignores SIGTERM is killed after the grace, and the session still ends cleanly" {
    bg_start agent-sandbox --memory none --exec sh -c 'trap "" TERM; touch .running; while :; do sleep 1; done'
    wait_for_file "$AS_DIR/.running" 120
    run_x 0 agent-sandbox ps -q
    local id=$output
    run_x 0 agent-sandbox stop "$id"
    assert "$stderr" contains "stopped session $id"
    bg_wait 30
    assert "$status" == 137 "the agent was killed"
}

@test "stop: a session that is not running, and bad arguments" {
    run_x "$EX_USAGE" agent-sandbox stop 000000000000
    assert "$stderr" == "agent-sandbox: error: stop: no running session 000000000000 (\`agent-sandbox ps\` lists them)"
    # no ID and none running: said, as for --all
    run_x 0 agent-sandbox stop
    assert "$stderr" == "agent-sandbox: no session is running"
    run_x "$EX_USAGE" agent-sandbox stop --bogus
    run_x "$EX_USAGE" agent-sandbox ps --bogus
    run_x 0 agent-sandbox stop --all
    assert "$stderr" == "agent-sandbox: no session is running"
}

@test "exit 77: a second session in the tree is refused, naming the first one's ID, PID and directory" {
    mkdir sub
    start_in first "$AS_DIR"
    run_x 0 agent-sandbox ps -q
    local id=$output pid=${AS_BG_PIDS[first]}
    cd sub
    run_x "$EX_REFUSED" agent-sandbox --memory none --exec true
    assert "$stderr" contains "[rule: one-session-per-tree]"
    assert "$stderr" contains "agent-sandbox: it is session $id (PID $pid, in $(shown "$AS_DIR"), started "
    assert "$stderr" contains "; \`agent-sandbox stop $id\` ends it"
    cd "$AS_DIR"
    run_x 0 agent-sandbox stop "$id"
    bg_wait --as first 30
}

@test "ps escapes what a launch directory's name holds" {
    local name=$'esc\e]0;owned\a-\xc2\x9b31m'
    mkdir "$name"
    start_in odd "$AS_DIR/$name"
    run_x 0 agent-sandbox ps
    assert "$output" contains 'esc\x1b]0;owned\x07-\u{009B}31m' "the name, escaped"
    [[ $output != *$'\e'* && $output != *$'\a'* && $output != *$'\xc2\x9b'* ]] || die "a control reached the output"
    run_x 0 agent-sandbox ps --json
    [[ $output != *$'\xc2\x9b'* ]] || die "a C1 control reached the JSON"
    assert "$output" contains 'esc\\x1b]0;owned\\x07-\\u{009B}31m'
    run_x 0 agent-sandbox stop --all
    bg_wait --as odd 30
}

@test "the cgroup note: once per host; a limit you set that cannot be enforced is an error" {
    host_enforces_limits && skip "this host enforces memory and CPU limits: there is no note"
    local state=$AS_RUN_DIR/state
    XDG_STATE_HOME=$state run_x 0 agent-sandbox --dry-run
    assert "$stderr" contains "note: the memory limit cannot be applied"
    assert "$stderr" contains "Said once on this host; \`agent-sandbox doctor\` repeats it."
    XDG_STATE_HOME=$state run_x 0 agent-sandbox --dry-run
    assert "$stderr" !contains "memory limit" "the second time"
    XDG_STATE_HOME=$state run_x '?' agent-sandbox doctor
    assert "$output" =~ $'\n'"WARN  resource limits: the memory limit cannot be applied"
    # fail closed: a limit you ask for is not dropped with a note
    XDG_STATE_HOME=$state run_x "$EX_SETUP" agent-sandbox --memory 2G --exec touch started
    assert "$stderr" contains "error: --memory 2G cannot be enforced here: "
    assert "$stderr" contains "run it with --memory none to go without a memory limit"
    XDG_STATE_HOME=$state run_x "$EX_SETUP" agent-sandbox --cpus 1 --dry-run
    assert "$stderr" contains "error: --cpus 1 cannot be enforced here: "
    echo "memory 2G" >"$AS_CONFIG_DIR/limits"
    XDG_STATE_HOME=$state run_x "$EX_SETUP" agent-sandbox --exec touch started
    assert "$stderr" contains "error: $AS_CONFIG_DIR/limits sets a memory limit that cannot be enforced here"
    [ ! -e started ] || die "the agent ran"
    # `memory none` there: no note, no error
    echo "memory none" >"$AS_CONFIG_DIR/limits"
    run_x 0 agent-sandbox --exec true
    assert "$stderr" !contains "memory limit"
}

@test "a session that fails for a reason of the host points to doctor" {
    run_x "$EX_SERVICE" env PATH=/nonexistent "$AGENT_SANDBOX_BIN" --memory none --exec true
    assert "$stderr" contains "\`agent-sandbox doctor\` checks what sessions need of this host"
}

@test "progress: a new home volume is announced on a terminal, on one line erased before the agent; quiet elsewhere" {
    home_volume_setup
    local cmd="$AGENT_SANDBOX_BIN --memory none --exec echo started" line=$'\r\e[Kagent-sandbox: setting up a new home volume'
    # on a terminal (script(1) gives the CLI one)
    run_x 0 script -qec "$cmd" /dev/null
    assert "$output" contains "$line" "the progress line on a terminal"
    # (script echoes the end of its empty stdin as ^@, at any moment)
    # (then the start line of a terminal session, then the agent's own)
    assert "${output//^@/}" =~ $'\(its first session\)\.\.\.\r\e\[Kagent-sandbox: session [0-9a-f]+ \(--exec\) in [^\r]*\r\nstarted' \
        "erased before the start line and the agent's output"
    run_x 0 script -qec "$cmd" /dev/null
    assert "$output" !contains "home volume" "the volume exists now: nothing to announce"
    # without a terminal: nothing, even for a new volume
    home_volume_teardown
    run_x 0 agent-sandbox --memory none --exec echo started
    assert "$stderr" !contains "home volume"
    assert "$output" == "started"
    home_volume_teardown
}
