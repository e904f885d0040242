#!/usr/bin/env bats
# The image a session runs (docs/images.md): --toolchain and --image, images
# the user derives from a Containerfile in the config directory (`image
# build`), chosen per launch root by the settings file, and the image check
# every session's image passes, whatever its origin.

# shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
load helpers

BASE=localhost/agent-sandbox:dev

# A derived image NAME from a Containerfile with the instructions given
# after FROM $BASE; removed (image and folder) by drop_derived.
derive() {
    local name=$1
    shift
    mkdir -p "$AS_CONFIG_DIR/images/$name"
    { echo "FROM $BASE"; printf '%s\n' "$@"; } >"$AS_CONFIG_DIR/images/$name/Containerfile"
}
drop_derived() {
    local name
    for name in "$@"; do
        $PODMAN rmi -f "localhost/agent-sandbox-user/$name:dev" >/dev/null 2>&1 || true
        rm -rf "${AS_CONFIG_DIR:?}/images/$name"
    done
    rmdir "$AS_CONFIG_DIR/images" 2>/dev/null || true
}

@test "a derived image is built, not rebuilt unchanged, chosen per launch root, runs the session and verify" {
    local name=e2e-marker-$$
    derive "$name" "RUN echo derived-$$ >/etc/e2e-marker"
    run_x 0 agent-sandbox image build "$name"
    assert "$output" contains "images: localhost/agent-sandbox-user/$name:dev (podman build)"
    assert "$output" contains "images: localhost/agent-sandbox-user/$name:dev: done in"
    [ -s "$XDG_STATE_HOME/agent-sandbox/image-builds/$name.log" ] || die "no build log"
    run_x 0 agent-sandbox image build "$name"
    assert "$output" contains "up to date"
    run_x 0 agent-sandbox image list
    assert "$output" contains "$name"
    assert "$output" contains "built"

    # chosen for this launch root only: the longest DIR wins over a global line
    mkdir -p web website
    printf 'image nosuch-%s\nin %s/web image %s\n' "$$" "$AS_DIR" "$name" >>"$AS_CONFIG_DIR/settings"
    cd web
    run_x 0 env -u AGENT_SANDBOX_IMAGE "$AGENT_SANDBOX_BIN" --agent claude --exec cat /etc/e2e-marker
    assert "$output" == "derived-$$" "the file the derived image added"
    run_x 0 env -u AGENT_SANDBOX_IMAGE "$AGENT_SANDBOX_BIN" --agent claude --dry-run
    assert "$output" contains "image localhost/agent-sandbox-user/$name:dev, chosen by $AS_CONFIG_DIR/settings:"
    # /src/web is not a parent of /src/website: the global line applies there
    cd ../website
    run_x "$EX_NOIMAGE" env -u AGENT_SANDBOX_IMAGE "$AGENT_SANDBOX_BIN" --exec true
    assert "$stderr" contains "localhost/agent-sandbox-user/nosuch-$$:dev"
    assert "$stderr" contains "agent-sandbox image build nosuch-$$"
    # the command line wins over the file
    run_x 0 env -u AGENT_SANDBOX_IMAGE "$AGENT_SANDBOX_BIN" --agent claude --image "$name" --exec cat /etc/e2e-marker
    assert "$output" == "derived-$$"
    # verify proves the confinement in that image (its check is cached by now)
    run_x 0 env -u AGENT_SANDBOX_IMAGE "$AGENT_SANDBOX_BIN" verify --agent claude --image "$name"
    assert "$output" !contains "FAIL"
    drop_derived "$name"
}

@test "threat 20: a derived image with a setuid file is refused at build and, smuggled in, at session start" {
    local name=e2e-suid-$$ smuggled=localhost/as-e2e-suid:$$
    derive "$name" "RUN cp /usr/bin/true /usr/local/bin/e2e-true && chmod u+s /usr/local/bin/e2e-true"
    run_x "$EX_NOIMAGE" agent-sandbox image build "$name"
    assert "$stderr" contains "image localhost/agent-sandbox-user/$name:dev: /usr/local/bin/e2e-true is setuid: refused"
    run_x 1 "$PODMAN" image exists "localhost/agent-sandbox-user/$name:dev"

    # the same, built behind the CLI's back and named by AGENT_SANDBOX_IMAGE
    run_x 0 "$PODMAN" build -q -t "$smuggled" "$AS_CONFIG_DIR/images/$name"
    run_x "$EX_NOIMAGE" env AGENT_SANDBOX_IMAGE="$smuggled" "$AGENT_SANDBOX_BIN" --exec true
    assert "$stderr" contains "image $smuggled: /usr/local/bin/e2e-true is setuid: refused (AGENT_SANDBOX_IMAGE"
    # refused again: only a pass is remembered
    run_x "$EX_NOIMAGE" env AGENT_SANDBOX_IMAGE="$smuggled" "$AGENT_SANDBOX_BIN" --exec true
    assert "$stderr" contains "is setuid: refused"
    $PODMAN rmi -f "$smuggled" >/dev/null
    drop_derived "$name"
}

@test "a Containerfile not FROM a shipped image is refused, naming the file and line" {
    local name=e2e-from-$$
    mkdir -p "$AS_CONFIG_DIR/images/$name"
    printf '# mine\nFROM docker.io/library/debian:bookworm\n' >"$AS_CONFIG_DIR/images/$name/Containerfile"
    run_x "$EX_CONFIG" agent-sandbox image build "$name"
    assert "$stderr" contains "$AS_CONFIG_DIR/images/$name/Containerfile:2: FROM docker.io/library/debian:bookworm: the first instruction must be FROM one of the shipped images"
    ln -s /etc/passwd "$AS_CONFIG_DIR/images/$name/passwd"
    printf 'FROM %s\n' "$BASE" >"$AS_CONFIG_DIR/images/$name/Containerfile"
    run_x "$EX_CONFIG" agent-sandbox image build "$name"
    assert "$stderr" contains "$AS_CONFIG_DIR/images/$name/passwd: a symbolic link: refused"
    drop_derived "$name"
}

@test "--toolchain: an unknown one is 64 with the known ones; a missing image is 66 with what builds it" {
    run_x "$EX_USAGE" agent-sandbox --toolchain cobol --exec true
    assert "$stderr" contains "--toolchain cobol: no such toolchain (the toolchains: "
    run_x "$EX_USAGE" agent-sandbox --toolchain cobol --image x --exec true
    [ -f "$AS_TOP/sandbox-image/toolchains/go.toolchain" ] || skip "no go toolchain in this tree"
    run_x "$EX_USAGE" agent-sandbox --toolchain go --image x --exec true
    assert "$stderr" contains "--image and --toolchain cannot go together"
    # an agent with toolchains no test builds: the image is missing
    if $PODMAN image exists localhost/agent-sandbox-claude-go-java:dev; then skip "the image exists here"; fi
    run_x "$EX_NOIMAGE" env -u AGENT_SANDBOX_IMAGE "$AGENT_SANDBOX_BIN" --agent claude --toolchain java \
        --toolchain go --toolchain java --exec true
    assert "$stderr" contains "the image localhost/agent-sandbox-claude-go-java:dev (--toolchain java --toolchain go --toolchain java) is missing"
    assert "$stderr" contains 'make images AGENTS=claude TOOLCHAINS="go java"'
}
