#!/usr/bin/env bats
# The prompt back before the removals (issue 28, lib/session/session_finish.c): once the
# agent has exited and the workspace is checked, a child that keeps the
# session directory's lock removes the router, the pod and the networks
# through the CLI's service, which its keeper keeps for it
# (lib/podman/service_keeper.h). The tree's lock is the child's no more:
# a session in the same tree starts at once; `ps` no longer lists the
# ended session; a killed child leaves its resources to the next start's
# sweep, and its service is stopped.

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

@test "issue 28: the removals after the prompt: a session in the tree starts beside them; killed, the service stops and the next start's sweep removes what they left" {
    session_then_stopped_child
    run_x 0 agent-sandbox ps -q
    assert "$output" !contains "$SID" "ps lists the ended session"
    # the next session starts while they are stopped, and leaves them alone
    run_x 0 agent-sandbox --memory none --exec true
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" !contains "rule: one-session-per-tree" "the next session was refused"
    pgrep -u "$(id -u)" -f -- "$AS_SESSIONS_DIR/$SID/podman.sock" >/dev/null ||
        die "the stopped removals' service is gone"
    $PODMAN pod exists "agent-sandbox-$SID" || $PODMAN network exists "agent-sandbox-$SID-net" ||
        die "the next session's sweep removed what the stopped removals hold"
    kill -CONT "$CHILD"
    CHILD=
    wait_teardowns
    ! $PODMAN pod exists "agent-sandbox-$SID" || die "the pod is left after the removals went on"

    # killed: nothing is lost; its service stops, the next start removes what it left
    session_then_stopped_child
    kill -KILL "$CHILD"
    CHILD=
    local n
    for ((n = 0; n < 100; n++)); do
        pgrep -u "$(id -u)" -f -- "$AS_SESSIONS_DIR/$SID/podman.sock" >/dev/null || break
        sleep 0.1
    done
    [ "$n" -lt 100 ] || die "the killed removals' service still runs after 10 s"
    run_x 0 agent-sandbox --memory none --exec true
    assert "$stderr" =~ "removed [0-9]+ leftover resources? and 1 directory of 1 earlier session " \
        "what the next start says it removed"
}
