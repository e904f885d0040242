#!/usr/bin/env bats
# Threat-model items not covered by a file of their own: 21 (processes of
# the pod's other containers are out of sight and reach), 30 (a malformed
# allowlist or allowed-paths refuses the session, naming file and line), and
# `agent-sandbox verify` on this machine.

load helpers

# The suite's config directory, never the user's (helpers.bash).
AP_FILE=$AS_CONFIG_DIR/allowed-paths

teardown() {
    rm -f "$AP_FILE"
    as_teardown
}

@test "threat 21: the agent sees only its own processes, none of the router's or forwarder's" {
    run_x 0 agent-sandbox --exec sh -c \
        'for p in /proc/[0-9]*; do tr "\0" " " <"$p/cmdline"; echo; done 2>/dev/null'
    assert "$output" contains "for p in" "the agent's own shell is listed"
    assert "$output" !contains "socat" "the forwarder's processes"
    assert "$output" !contains "dnsmasq" "the router's processes"
    assert "$output" !contains "nginx" "the router's processes"
    assert "$output" !contains "conmon" "podman's monitors"
    # nothing outside its own PID namespace can be signalled: every pid it
    # can name is one of its own
    run_x 0 agent-sandbox --exec sh -c 'n=0; for p in /proc/[0-9]*; do n=$((n+1)); done; echo "$n"'
    [ "$output" -lt 10 ] || die "the agent sees $output processes"
}

@test "threat 30: a malformed allowlist refuses the session, naming the file and line" {
    local list=$AS_RUN_DIR/allowed-hosts
    printf '# mine\napi.allowed.test\nhttps://evil.test/x\n' >"$list"
    AGENT_SANDBOX_ALLOWLIST=$list run_x 65 agent-sandbox --exec touch "$AS_DIR/started"
    assert "$stderr" contains "$list:3:" "the file and the line"
    [ ! -e "$AS_DIR/started" ] || die "the agent ran with a malformed allowlist"
    AGENT_SANDBOX_ALLOWLIST=$AS_RUN_DIR/missing run_x 65 agent-sandbox --exec touch "$AS_DIR/started"
    assert "$stderr" contains "$AS_RUN_DIR/missing" "the unreadable file"
    [ ! -e "$AS_DIR/started" ] || die "the agent ran without an allowlist"
}

@test "threat 30: a malformed allowed-paths refuses the launch, naming the file and line" {
    mkdir -p "$(dirname "$AP_FILE")"
    printf '# roots\n%s\nrelative/path\n' "$HOME" >"$AP_FILE"
    run_x 65 agent-sandbox --exec touch "$AS_DIR/started"
    assert "$stderr" contains "allowed-paths" "the file"
    assert "$stderr" contains ":3" "the line"
    [ ! -e "$AS_DIR/started" ] || die "the agent ran with a malformed allowed-paths"
}

@test "verify: every property holds on this machine, as a table and as JSON" {
    run_x 0 agent-sandbox verify
    assert "$output" contains "0 failed" "the verdict"
    assert "$output" !contains "FAIL " "no property failed"
    assert "$output" contains "PASS  only the launch directory is mounted from the host" "the mount check"
    assert "$output" contains "PASS  a TLS connection with a name off the allowlist is refused" "the SNI check"
    run_x 0 agent-sandbox verify --json
    run_x 0 python3 -c 'import json, sys
r = json.loads(sys.argv[1])
assert r["passed"] is True, r
ids = {p["id"]: p["result"] for p in r["probes"]}
assert all(v in ("PASS", "SKIP") for v in ids.values()), ids
assert ids["mounts"] == "PASS" and ids["environment"] == "PASS", ids
print(len(ids))' "$output"
    [ "$output" -ge 15 ] || die "only $output probes reported"
}
