#!/usr/bin/env bats
# The sandbox image: Claude Code at the pinned version, the agent's daily
# tools, and no way to gain privileges.

load helpers

setup() {
    as_setup
    home_volume_setup
    allow_nothing
}

teardown() {
    local rc=0
    as_teardown || rc=1
    home_volume_teardown
    return $rc
}

@test "agent-sandbox -- --version prints the pinned Claude Code version, with no network" {
    local pinned
    pinned=$(sed -n 's/^version[[:space:]]*//p' "$AS_TOP/sandbox-image/agents/claude.version")
    assert "$pinned" =~ '^[0-9]+\.[0-9]+\.[0-9]+' "the pinned version"
    run_x 0 agent-sandbox -- --version
    assert "$output" == "$pinned (Claude Code)"
}

@test "the agent's tools are there" {
    run_x 0 agent-sandbox --exec sh -c '
        for t in claude git curl rg python3 make cc gcc less vi podman runc; do
            command -v "$t" >/dev/null || echo "missing: $t"
        done
        ls /etc/ssl/certs/ca-certificates.crt >/dev/null || echo "missing: ca-certificates"
        printf "int main(void) { return 3; }\n" >/tmp/t.c && cc -o /tmp/t /tmp/t.c && { /tmp/t; echo "cc: $?"; }'
    assert "$output" == "cc: 3" "missing tools, or the compiler"
}

@test "threat 20: no setuid or setgid file in the running sandbox; no capability, no new privileges" {
    # As the agent: what it can reach. Directories it cannot read (/root,
    # /etc/ssl/private) are no way up either: it cannot reach into them.
    run_x 0 agent-sandbox --exec sh -c 'find / -xdev -perm /6000 2>/dev/null; grep -E "^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs):" /proc/self/status'
    local line
    for line in "${lines[@]}"; do
        case $line in
            NoNewPrivs:*) assert "$line" =~ $'^NoNewPrivs:\t1$' ;;
            Cap*) assert "$line" =~ $'^Cap...:\t0+$' "capabilities" ;;
            *) die "setuid/setgid file in the sandbox: $line" ;;
        esac
    done
    assert "${#lines[@]}" == 6 "lines of status"

    # The whole image, as its root, which reads every directory.
    # shellcheck disable=SC2086  # $PODMAN splits, as make's $(PODMAN) does
    run_x 0 $PODMAN run --rm --network none --user 0:0 "${AGENT_SANDBOX_IMAGE:-localhost/agent-sandbox:dev}" \
        sh -c 'find / -xdev -perm /6000; echo "find: $?"'
    assert "$output" == "find: 0" "setuid/setgid files in the image"
}

@test "threat 18: the host's podman socket is nowhere inside" {
    run_x 0 agent-sandbox --exec sh -c '
        find / \( -path /proc -o -path /sys \) -prune -o \( -type s -o -name "*.sock" \) -print 2>/dev/null
        ls -d /run/user /run/podman 2>/dev/null
        grep -e "\.sock" -e "/podman " /proc/self/mountinfo
        env | grep -e ^XDG_RUNTIME_DIR= -e ^CONTAINER_HOST= -e ^DOCKER_HOST=
        echo end'
    assert "$output" == end "sockets, runtime directories, socket mounts or socket variables inside"
}
