#!/usr/bin/env bats
# Each session has its own /tmp: a tmpfs, empty at the start, gone at the
# end, not shared with the host nor with another session.

load helpers

@test "threat 19: /tmp is a private, bounded tmpfs, empty at the start" {
    run_x 0 agent-sandbox --exec sh -c '
        ls -A /tmp | wc -l
        grep " /tmp " /proc/self/mountinfo
        echo data >/tmp/file && cat /tmp/file
        stat -c %a /tmp'
    assert "${lines[0]}" == 0 "entries in /tmp at the start"
    assert "${lines[1]}" =~ " /tmp rw,nosuid,nodev[, ].* - tmpfs " "the /tmp mount"
    assert "${lines[1]}" =~ "size=1048576k" "the size bound of /tmp"
    assert "${lines[2]}" == data
    assert "${lines[3]}" == 1777 "mode of /tmp"
}

@test "threat 19: nothing written to /tmp survives the session or reaches the host" {
    local marker=as-e2e-tmp-$RANDOM$RANDOM
    run_x 0 agent-sandbox --exec sh -c 'echo secret >/tmp/$1 && mkdir /tmp/$1.d && ls /tmp' sh "$marker"
    assert "$output" contains "$marker"
    [ ! -e "/tmp/$marker" ] || die "the sandbox's /tmp file is in the host's /tmp"
    local graphroot
    graphroot=$($PODMAN info --format '{{.Store.GraphRoot}}')
    assert "$($PODMAN unshare find "$graphroot" -name "$marker*" 2>/dev/null)" == "" "the file in podman's storage"
    run_x 0 agent-sandbox --exec ls -A /tmp
    assert "$output" == "" "/tmp of the next session"
}

@test "threat 19: two concurrent sessions do not see each other's /tmp" {
    local other=$AS_RUN_DIR/other      # removed with the harness's files
    mkdir "$other"
    # The first session writes its marker, then waits for the second.
    bg_start agent-sandbox --exec sh -c '
        echo a >/tmp/from-a; touch .a-ready
        while [ ! -e .b-done ]; do sleep 0.1; done
        ls -A /tmp'
    wait_for_file "$AS_DIR/.a-ready" 120

    cd "$other"
    run_x 0 agent-sandbox --exec sh -c 'ls -A /tmp; echo b >/tmp/from-b'
    local seen_by_b=$output
    cd "$AS_DIR"
    touch .b-done
    bg_wait 60

    assert "$status" == 0 "the first session"
    assert "$seen_by_b" == "" "/tmp of the second session while the first runs"
    assert "$output" == from-a "/tmp of the first session after the second wrote its own"
}
