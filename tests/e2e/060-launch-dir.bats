#!/usr/bin/env bats
# Launch directories podman cannot use, and the one cache the launch policy
# reads (issue 17 bugs 9, 10, 11): the private service runs from /, not from
# the launch directory; a path over PATH_MAX, a directory podman's mount
# namespace sees otherwise, and a directory the user cannot write each get a
# message naming the directory and what to do (exit 77); a wrong cached
# storage location cannot refuse a launch; a refusal the cache can answer
# starts no podman at all (issue 12).

load helpers

PODMAN_MOUNT=

teardown() {
    # a mount made in podman's own namespace outlives the test otherwise
    if [ -n "$PODMAN_MOUNT" ]; then
        $PODMAN unshare umount "$PODMAN_MOUNT" || true
    fi
    chmod -R u+w "$AS_DIR" 2>/dev/null || true
    as_teardown
}

@test "bug 9: the private podman service runs from /, not from the launch directory" {
    bg_start agent-sandbox --memory none --exec sh -c 'touch .running; exec sleep 100000'
    wait_for_file "$AS_DIR/.running" 120
    local keeper svc cwd
    keeper=$(pgrep -P "$AS_BG_PID" -x as-keeper) || die "no service keeper under CLI $AS_BG_PID"
    svc=$(pgrep -P "$keeper" -f 'podman system service') || die "no service under its keeper $keeper"
    cwd=$(readlink "/proc/$svc/cwd")
    kill -TERM "$AS_BG_PID"
    bg_wait 60
    assert "$cwd" == / "the service's working directory"
}

@test "bug 9: a launch directory whose path is longer than PATH_MAX is refused, naming it" {
    local name i
    name=$(printf 'd%.0s' {1..250})
    # shellcheck disable=SC2034  # i only counts
    for i in {1..17}; do mkdir "$name" && cd "$name"; done
    run_x "$EX_REFUSED" agent-sandbox --memory none --exec true
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" contains "error: cannot launch from $AS_DIR/$name/$name/"
    assert "$stderr" contains "its path is ${#PWD} bytes long, and the kernel takes paths of at most 4095 bytes, so podman cannot mount it"
    assert "$stderr" !contains "podman service exited"
    cd "$AS_DIR"
}

@test "bug 9: a launch directory podman's mount namespace does not see as it is is refused, naming it" {
    mkdir elsewhere
    # what a mount made on the host after podman's namespace was set up
    # looks like, the other way round: podman sees another directory there
    $PODMAN unshare mount -t tmpfs tmpfs "$AS_DIR/elsewhere"
    PODMAN_MOUNT=$AS_DIR/elsewhere
    cd elsewhere
    run_x "$EX_REFUSED" agent-sandbox --memory none --exec touch "$AS_DIR/elsewhere/started"
    assert "$stderr" contains "error: cannot launch from $AS_DIR/elsewhere: podman does not see this directory (podman's mount namespace has another directory there)"
    assert "$stderr" contains "podman system migrate"
    cd "$AS_DIR"
    [ ! -e elsewhere/started ] || die "the agent ran"
}

@test "bug 10: a launch directory the user cannot write is refused, saying so and what to do" {
    mkdir ro
    chmod a-w ro
    cd ro
    run_x "$EX_REFUSED" agent-sandbox --memory none --exec true
    assert "$stderr" contains "error: cannot launch from $AS_DIR/ro: the directory is not writable by you (Permission denied)"
    assert "$stderr" contains "Make it writable (chmod u+w $AS_DIR/ro), or launch from a directory you can write."
    cd "$AS_DIR"
}

@test "bug 11: a wrong storage location in the cache does not refuse a legitimate launch" {
    run_x 0 agent-sandbox --memory none --exec true          # fills the cache
    local cache=$AS_SESSIONS_DIR/graphroot real last
    [ -s "$cache" ] || die "no graphroot cache at $cache"
    real=$($PODMAN info --format '{{.Store.GraphRoot}}')
    # The key still matches; only the stored location is wrong: the launch
    # directory itself, with its identity where the format keeps one.
    last=$(tail -n 1 "$cache")
    head -n -1 "$cache" >"$cache.new"
    if [[ $last == /* ]]; then echo "$AS_DIR"; else echo "$(stat -c '%d %i' "$AS_DIR") $AS_DIR"; fi >>"$cache.new"
    mv "$cache.new" "$cache"
    run_x 0 agent-sandbox --memory none --exec echo ran
    assert "$output" == ran
    assert "$stderr" !contains "podman's storage"
    assert "$(tail -n 1 "$cache")" =~ " $real\$|^$real\$" "the cache holds podman's answer again"
}

@test "issue 12: a refused launch that the cached storage location can answer starts no podman" {
    run_x 0 agent-sandbox --memory none --exec true          # fills the cache
    [ -s "$AS_SESSIONS_DIR/graphroot" ] || die "no graphroot cache"
    # podman on PATH, recording each run, then the real one
    local bin=$BATS_TEST_TMPDIR/bin ran=$BATS_TEST_TMPDIR/podman-ran real
    real=$(command -v podman)
    mkdir -p "$bin"
    printf '#!/bin/sh\necho "$*" >>%s\nexec %s "$@"\n' "$ran" "$real" >"$bin/podman"
    chmod +x "$bin/podman"
    cd "$HOME"                     # the policy refuses the home itself
    PATH=$bin:$PATH run_x "$EX_REFUSED" agent-sandbox --memory none --exec true
    assert "$stderr" contains "[rule: home-or-parent]"
    cd "$AS_DIR"
    [ ! -e "$ran" ] || die "podman ran for a launch the cache could refuse: $(cat "$ran")"
    # an allowed launch starts it, through the same PATH
    PATH=$bin:$PATH run_x 0 agent-sandbox --memory none --exec true
    [ -s "$ran" ] || die "the recording podman was not the one started"
}
