#!/usr/bin/env bats
# The CLI talks to podman only through the REST API of a private
# `podman system service`: that is the one program it runs.

load helpers

@test "the only program the CLI runs is podman system service" {
    # Podman joins the user's existing rootless user namespace instead of
    # creating one with newuidmap, which could not be setuid under ptrace.
    $PODMAN info >/dev/null
    local log=$AS_RUN_DIR/strace.log
    # The git identity the session passes on is read by the CLI's own parser,
    # never by host git (docs/home.md).
    printf '[user]\n\tname = Traced Identity\n' >"$AS_RUN_DIR/gitconfig"
    # LeakSanitizer cannot work under ptrace.
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 GIT_CONFIG_GLOBAL=$AS_RUN_DIR/gitconfig \
        run_x 0 strace -f -z -qq --pidns-translation -s 256 -e trace=execve,clone,clone3,fork,vfork -e signal=none \
        -o "$log" agent-sandbox --exec git config --system user.name
    assert "$output" == "Traced Identity" "the identity inside"

    run_x 0 "$AS_TOP/tests/e2e/strace-top-execs" "$log"
    assert "${#lines[@]}" == 2 "programs run outside podman's process tree: the CLI and one podman"
    assert "${lines[0]}" =~ "^[0-9]+ $AGENT_SANDBOX_BIN " "first: the CLI itself"
    assert "${lines[1]}" =~ '^[0-9]+ [^ ]*/podman .*"system", "service"' "second: podman system service"
}

@test "a socket path over 107 bytes is refused with a clear error, before anything starts" {
    local long
    long=$XDG_RUNTIME_DIR/$(printf 'r%.0s' $(seq 1 100))
    install -d -m 0700 "$long"
    XDG_RUNTIME_DIR=$long run_x 69 agent-sandbox --exec true
    rm -rf "$long"
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" contains "over the 107 a unix socket allows" "the reason"
    assert "$stderr" contains "XDG_RUNTIME_DIR" "what to change"
}

# `su -`, `sudo -i`, `runuser -l` and ssh without a systemd login leave
# XDG_RUNTIME_DIR unset. podman then uses /run/user/UID when that is the
# user's own private directory, and so does the CLI, for itself and for the
# service it starts.
@test "XDG_RUNTIME_DIR unset: /run/user/UID stands in, said in one line, for the CLI and its podman service" {
    local uid run_user
    uid=$(id -u)
    run_user=/run/user/$uid
    [ "$XDG_RUNTIME_DIR" = "$run_user" ] || skip "the suite's XDG_RUNTIME_DIR is not $run_user"

    # (--memory none: no note about limits this host cannot apply)
    bg_start env -u XDG_RUNTIME_DIR agent-sandbox --memory none --exec sh -c 'touch .running; while [ ! -e .stop ]; do sleep 0.1; done'
    wait_for_file "$AS_DIR/.running" 120
    local pids pid
    mapfile -t pids < <(service_pids)
    assert "${#pids[@]}" == 1 "podman services of this session"
    pid=${pids[0]}
    assert "$(tr '\0' '\n' <"/proc/$pid/environ" | grep '^XDG_RUNTIME_DIR=')" == "XDG_RUNTIME_DIR=$run_user" \
        "the service's environment"
    assert "$(tr '\0' ' ' <"/proc/$pid/cmdline")" =~ "unix://$run_user/agent-sandbox/[0-9a-f]{12}/podman.sock" \
        "the service's socket"
    touch .stop
    bg_wait 60
    assert "$status" == 0
    assert "$stderr" == "agent-sandbox: note: XDG_RUNTIME_DIR is not set; using $run_user, as podman does" \
        "the one line the CLI says"

    run_x 0 env -u XDG_RUNTIME_DIR agent-sandbox cleanup
    assert "$stderr" contains "note: XDG_RUNTIME_DIR is not set; using $run_user, as podman does"
}

# run_without_run_user MODE CMD...: runs CMD (the CLI under test) without
# XDG_RUNTIME_DIR, where /run/user is an empty tmpfs (and /run/user/UID, with
# MODE unless MODE is "-", the only thing in it): a user namespace mounts it,
# and a second one maps the caller's uid back, so the CLI runs as itself.
run_without_run_user() {
    local mode=$1 uid gid
    shift
    uid=$(id -u) gid=$(id -g)
    run_x '?' unshare --user --map-root-user --mount sh -c '
        mode=$1 uid=$2 gid=$3; shift 3
        mount -t tmpfs tmpfs /run/user || exit 1
        [ "$mode" = - ] || mkdir -m "$mode" "/run/user/$uid" || exit 1
        exec unshare --user --map-user="$uid" --map-group="$gid" env -u XDG_RUNTIME_DIR "$@"' \
        sh "$mode" "$uid" "$gid" "$AGENT_SANDBOX_BIN" "$@"
}

@test "XDG_RUNTIME_DIR unset and /run/user/UID unusable: exit 78 naming the variable and the fix, nothing started" {
    local run_user
    run_user=/run/user/$(id -u)
    run_without_run_user - --exec touch "$AS_DIR/started"
    assert "$status" == "$EX_NO_RUNTIME_DIR" "exit status without $run_user"
    assert "$stderr" contains "error: XDG_RUNTIME_DIR is not set, and $run_user cannot stand in for it: it does not exist."
    assert "$stderr" contains "sudo install -d -m 0700 -o $(id -u) -g $(id -g) $run_user" "the fix"

    run_without_run_user 0777 --exec touch "$AS_DIR/started"
    assert "$status" == "$EX_NO_RUNTIME_DIR" "exit status with a $run_user of mode 0777"
    assert "$stderr" contains "$run_user cannot stand in for it: it has mode 0777, not 0700."

    run_without_run_user - cleanup
    assert "$status" == "$EX_NO_RUNTIME_DIR" "cleanup without $run_user"
    [ ! -e "$AS_DIR/started" ] || die "the agent ran without a runtime directory"
}

@test "XDG_RUNTIME_DIR set to a directory that is not ours: exit 78 naming it" {
    XDG_RUNTIME_DIR=/ run_x "$EX_NO_RUNTIME_DIR" agent-sandbox --exec true
    assert "$stderr" contains "error: XDG_RUNTIME_DIR=/ belongs to uid 0, not to you (uid $(id -u))."
    assert "$stderr" contains "point it at a directory of yours (mode 0700), or unset it to use /run/user/$(id -u)"
    XDG_RUNTIME_DIR=relative/dir run_x "$EX_NO_RUNTIME_DIR" agent-sandbox --exec true
    assert "$stderr" contains "XDG_RUNTIME_DIR=relative/dir is not an absolute path"
}
