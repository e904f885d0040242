#!/usr/bin/env bats
# The CLI talks to podman only through the REST API of a private
# `podman system service`: that is the one program it runs.

load helpers

@test "the only program the CLI runs is podman system service" {
    # Podman joins the user's existing rootless user namespace instead of
    # creating one with newuidmap, which could not be setuid under ptrace.
    $PODMAN info >/dev/null
    local log=$AS_RUN_DIR/strace.log
    # LeakSanitizer cannot work under ptrace.
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
        run_x 0 strace -f -z -qq --pidns-translation -s 256 -e trace=execve,clone,clone3,fork,vfork -e signal=none \
        -o "$log" agent-sandbox --exec true

    run_x 0 "$AS_TOP/tests/e2e/strace-top-execs" "$log"
    assert "${#lines[@]}" == 2 "programs run outside podman's process tree: the CLI and one podman"
    assert "${lines[0]}" =~ "^[0-9]+ $AGENT_SANDBOX_BIN " "first: the CLI itself"
    assert "${lines[1]}" =~ '^[0-9]+ [^ ]*/podman .*"system", "service"' "second: podman system service"
}

@test "a socket path over 107 bytes is refused with a clear error, before anything starts" {
    local long=$XDG_RUNTIME_DIR/$(printf 'r%.0s' $(seq 1 100))
    install -d -m 0700 "$long"
    XDG_RUNTIME_DIR=$long run_x 69 agent-sandbox --exec true
    rm -rf "$long"
    assert "$stderr" contains "over the 107 a unix socket allows" "the reason"
    assert "$stderr" contains "XDG_RUNTIME_DIR" "what to change"
}
