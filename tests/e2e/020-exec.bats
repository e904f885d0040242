#!/usr/bin/env bats
# agent-sandbox --exec CMD...: CMD runs in the sandbox, in the launch
# directory; its exit status and byte streams come back unchanged.

load helpers

@test "runs as the caller's uid in the launch directory" {
    run_x 0 agent-sandbox --exec sh -c 'id -u; pwd'
    assert "${lines[0]}" == "$(id -u)" "uid inside"
    assert "${lines[1]}" == "$AS_DIR" "working directory inside (resolved path)"
    assert "${#lines[@]}" == 2 "no other output on stdout"
}

@test "the launch directory is shared read-write with the host" {
    echo from-host >host-file
    run_x 0 agent-sandbox --exec sh -c 'cat host-file; echo from-sandbox >sandbox-file'
    assert "$output" == from-host
    assert "$(cat sandbox-file)" == from-sandbox
    assert "$(stat -c %u sandbox-file)" == "$(id -u)" "owner of a file the sandbox made"
}

@test "threat 15: no host path other than the launch directory is visible" {
    # A sibling of the launch directory, with a marker file.
    local sibling=$AS_RUN_DIR marker=$AS_RUN_DIR/marker-$RANDOM$RANDOM
    echo secret >"$marker"

    run_x 2 agent-sandbox --exec ls "$sibling"
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" contains "No such file or directory" "ls of the sibling inside"
    run_x 0 agent-sandbox --exec sh -c 'if [ -e "$1" ]; then echo visible; else echo absent; fi' sh "$marker"
    assert "$output" == absent "the sibling's marker file, seen from inside"

    run_x 0 agent-sandbox --exec ls -A "$AS_E2E_ROOT"
    assert "$output" == "$(basename "$AS_DIR")" "the launch directory's parent, seen from inside"

    run_x 0 agent-sandbox --exec cat /proc/self/mountinfo
    local mountinfo=$output
    assert "$mountinfo" !contains "$sibling" "mountinfo mentions the sibling"

    # The launch directory is a mount point; no other mount point lies under
    # $HOME, and no mount's source (field 4: its root within its file system)
    # lies under $HOME except the launch directory and podman's own storage.
    local graphroot home root point found='' bad=()
    graphroot=$($PODMAN info --format '{{.Store.GraphRoot}}')
    home=$(cd "$HOME" && pwd -P)
    while read -r _ _ _ root point _; do
        case $point in
            "$AS_DIR") found=1; continue ;;
            "$AS_DIR"/*) continue ;;
            "$home" | "$home"/*) bad+=("mount point $point") ;;
        esac
        case $root in
            "$AS_DIR" | "$AS_DIR"/* | "$graphroot"/*) ;;
            "$home" | "$home"/*) bad+=("source $root at $point") ;;
        esac
    done <<<"$mountinfo"
    assert "$found" == 1 "the launch directory is a mount point"
    assert "${bad[*]}" == "" "host paths under \$HOME mounted into the sandbox"
}

@test "the exit status of the command is the CLI's exit status" {
    run_x 42 agent-sandbox --exec sh -c 'exit 42'
    run_x 0 agent-sandbox --exec true
    run_x 1 agent-sandbox --exec false
}

@test "50 MB of binary data pass through stdin and stdout byte-exact" {
    head -c 50M /dev/urandom >"$AS_RUN_DIR/in"
    run_x --stdin "$AS_RUN_DIR/in" --stdout "$AS_RUN_DIR/out" 0 agent-sandbox --exec cat
    assert "$(stat -c %s "$AS_RUN_DIR/out")" == 52428800 "size of the output"
    assert "$(sha256sum <"$AS_RUN_DIR/out")" == "$(sha256sum <"$AS_RUN_DIR/in")" "sha256 of the output"
}

@test "stdout and stderr stay separate" {
    run_x 0 agent-sandbox --exec sh -c 'echo out; echo err >&2'
    assert "$output" == out "stdout"
    assert "$stderr" =~ "(^|"$'\n'")err($|"$'\n'")" "stderr has the command's line"
    assert "$stderr" !contains out "stderr"
}

@test "stdin reaches the command and EOF ends it" {
    run_x --input $'b\na' 0 agent-sandbox --exec sort
    assert "$output" == $'a\nb'
}
