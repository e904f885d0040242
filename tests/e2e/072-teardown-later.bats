#!/usr/bin/env bats
# The prompt back before the removals (issue 28, cmd/teardown.c): once the
# agent has exited and the workspace is checked, a child that keeps the
# session's locks removes the router, the pod and the networks. A session
# in the same tree waits for that lock instead of refusing (exit 77);
# `ps` no longer lists the ended session; a killed child leaves its
# resources to the next start's sweep.

load helpers

teardown() {
    [ -z "${CHILD:-}" ] || kill -CONT "$CHILD" 2>/dev/null || true
    as_teardown
}

# ended_child: after a session in $AS_DIR returned, stop the child doing its
# removals; sets SID and CHILD (0 when the removals were over before it
# was found).
ended_child() {
    local f d pid n
    SID='' CHILD=''
    for ((n = 0; n < 50; n++)); do
        for f in "$AS_SESSIONS_DIR"/*/session.ended; do
            grep -qF "\"launch_dir\":\"$AS_DIR\"" "$f" 2>/dev/null || continue
            d=${f%/session.ended}
            for pid in $(pgrep -u "$(id -u)" -x agent-sandbox); do
                [ -n "$(find /proc/"$pid"/fd -maxdepth 1 -lname "$d/lock" -print -quit 2>/dev/null)" ] ||
                    continue
                kill -STOP "$pid" && SID=${d##*/} CHILD=$pid
            done
        done
        [ -z "$CHILD" ] || break
    done
    [ -n "$CHILD" ] || CHILD=0
}

# session_then_stopped_child: a session in $AS_DIR, then its child stopped
# (SID, CHILD) with its pod or network still there; again when its
# removals were over first.
session_then_stopped_child() {
    local tries
    for ((tries = 0; tries < 5; tries++)); do
        run_x 0 agent-sandbox --memory none --exec true
        ended_child
        [ "$CHILD" != 0 ] || continue
        # stopped before the removals' end: something is left to remove
        $PODMAN pod exists "agent-sandbox-$SID" || $PODMAN network exists "agent-sandbox-$SID-net" &&
            return 0
        kill -CONT "$CHILD"
    done
    die "the removals were over before the test could find their child, 5 times"
}

@test "issue 28: the removals after the prompt: a session in the tree waits for them; killed, the next start's sweep removes what they left" {
    session_then_stopped_child
    run_x 0 agent-sandbox ps -q
    assert "$output" !contains "$SID" "ps lists the ended session"
    # the next session waits for the lock (here, until the child goes on)
    (sleep 1 && kill -CONT "$CHILD") &
    run_x 0 agent-sandbox --memory none --exec true
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" !contains "rule: one-session-per-tree" "the next session was refused"
    wait

    # killed: nothing is lost, the next start removes what it left
    session_then_stopped_child
    kill -KILL "$CHILD"
    CHILD=
    run_x 0 agent-sandbox --memory none --exec true
    assert "$stderr" =~ "removed [0-9]+ leftover resources? and 1 directory of 1 earlier session " \
        "what the next start says it removed"
}
