#!/usr/bin/env bats
# What `log` and `stop` print and return, for what is not theirs to trust:
# every field of the router's logs goes through the one escaper (the
# agent's traffic puts bytes there: a query's type and answer, an
# upstream's address, as well as the name), and a usage error of `stop`
# stays one (64) whatever fails beside it. No podman: the logs are a kept
# session's, and the session `stop` cannot signal is a registry entry of
# the test's own, under an ID of its own (parallel runs never share one).

load helpers

FAKE_DIRS=()

setup() {
    as_setup
}

teardown() {
    local rc=0 dir
    exec 9>&- || true
    for dir in "${FAKE_DIRS[@]}"; do rm -rf "$dir" || rc=1; done
    FAKE_DIRS=()
    as_teardown || rc=1
    return $rc
}

# A session ID of this test's own: 12 random hexadecimal digits.
random_id() {
    od -An -N6 -tx1 /dev/urandom | tr -d ' \n'
}

@test "log: a query's type and answer and an upstream's address are escaped, as the name is" {
    local id esc=$'\e' bel=$'\a' dir
    id=$(random_id)
    dir=$XDG_STATE_HOME/agent-sandbox/logs/$id
    FAKE_DIRS+=("$dir")
    mkdir -p "$dir"
    {
        printf '#agent-sandbox# by agent\n'
        printf 'Dec  1 00:10:15 dnsmasq[7]: query[A%s] api.test from 10.89.0.1\n' "$esc"
        printf 'Dec  1 00:10:15 dnsmasq[7]: reply api.test is 10.1.2.3%s[31mred\n' "$esc"
    } >"$dir/dns.log"
    {
        printf '#agent-sandbox# by agent\n'
        printf '{"time":"2026-12-01T00:12:59+00:00","proto":"tls","verdict":"allow","name":"api.test",'
        printf '"port":"443","status":"502","sent":"0","received":"0","connect":"-",'
        printf '"upstream":"api.test:443","upstream_addr":"10.0.0.1%s]0;title%s"}\n' "$esc" "$bel"
    } >"$dir/egress.log"
    run_x 0 agent-sandbox log "$id"
    [[ $output != *$esc* && $output != *$bel* ]] || die "a control byte of the logs reached the terminal:"$'\n'"$(od -c <<<"$output" | head -20)"
    assert "$output" contains ' A\x1b  allowed: 10.1.2.3\x1b[31mred' "the query's type and answer"
    assert "$output" contains 'allowed, but the connection upstream failed (10.0.0.1\x1b]0;title\x07)' "the upstream's address"
}

@test "stop: a usage error stays 64 when a session named with it cannot be signalled" {
    local id dir
    id=$(random_id)
    dir=$AS_SESSIONS_DIR/$id
    FAKE_DIRS+=("$dir")
    mkdir -p "$AS_SESSIONS_DIR"
    mkdir -m 0700 "$dir"
    # a session whose CLI is PID 1, which this user may not signal; its
    # directory's lock held, as a running CLI holds it
    printf '{"format":1,"id":"%s","pid":1,"launch_dir":"%s","started":%s,"command":["sh"],"agent":null,"image":"x","allowlist":{"path":"p","entries":0}}' \
        "$id" "$AS_DIR" "$(date +%s)" >"$dir/session.json"
    exec 9>"$dir/lock"
    flock -n 9 || die "the lock of $dir is taken"
    run_x 0 agent-sandbox ps -q
    assert "$output" contains "$id" "the entry is a running session"
    run_x "$EX_USAGE" agent-sandbox stop 000000000000 "$id"
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" contains "error: stop: no running session 000000000000"
    assert "$stderr" =~ "error: signalling session $id \(PID 1\): Operation not permitted"
    run_x 1 agent-sandbox stop "$id"
    exec 9>&-
}
