#!/usr/bin/env bats
# Held secrets (docs/secrets.md): the router terminates TLS for the names
# that carry one, puts the real value where the agent sent its stand-in,
# and refuses another credential; the value is never inside the sandbox,
# in the router's logs or in the session directory. Other names stay
# routed by SNI, end to end. Against the fake internet's origin
# (tests/e2e/fake-internet.bash), which logs the credential headers it got.

load helpers
load fake-internet

REAL=tok-Real0value0of0the0user0SECRET0123456789
OTHER=tok-Attacker0key0AAAAAAAAAAAAAAAAAAAAAAAAA

setup_file() { fi_up; }
teardown_file() { fi_down; }
setup() {
    as_setup
    fi_setup
    printf '%s\n' '# held by the router (105-egress-secrets.bats)' \
        'MY_TOKEN api.allowed.test header:x-token' >"$AS_CONFIG_DIR/secrets"
}
teardown() {
    rm -f "$AS_CONFIG_DIR/secrets"
    as_teardown
}

@test "threat 46: a held secret never enters the sandbox; the origin gets it in the stand-in's place" {
    export MY_TOKEN=$REAL AGENT_SANDBOX_UPSTREAM_CA=$FI_DIR/ca.pem
    bg_start agent-sandbox --secret MY_TOKEN --exec bash -c '
        echo "stand-in: $MY_TOKEN"
        echo "held: $(curl -sS -H "x-token: $MY_TOKEN" https://api.allowed.test/)"
        echo "absent: $(curl -sS https://api.allowed.test/)"
        # the session CA vouches for the held name only, and only here
        curl -sS -o /dev/null --cacert ca.pem https://api.allowed.test/ 2>/dev/null
        echo "origin CA on the held name: $?"
        echo "unheld name: $(curl -sS --cacert ca.pem https://www.wild.test/)"
        # everything a process here can read: environments, argv, the CA files, the home, /tmp
        for p in /proc/[0-9]*; do cat "$p/environ" "$p/cmdline" 2>/dev/null; done >dump
        cat /etc/agent-sandbox/* >>dump 2>/dev/null
        grep -rsa . "$HOME" /tmp >>dump 2>/dev/null
        touch probed
        while [ ! -e end ]; do sleep 0.1; done'
    wait_for_file "$AS_DIR/probed" 90
    local router id
    router=$(fi_session_router)
    id=${router#agent-sandbox-}
    id=${id%-router}
    # while it runs: nothing of the session directory (router logs and
    # configuration included) holds the value
    local in_dir
    in_dir=$(grep -rlaF "$REAL" "$AS_SESSIONS_DIR/$id" 2>&1; echo "grep: $?")
    touch "$AS_DIR/end"
    bg_wait 60
    assert "$status" == 0 "exit status of the session"
    # no vendor's prefix: every letter and digit a random one of its kind
    expect stand-in =~ "^[a-z]{3}-[A-Z][a-z]{3}[0-9][a-z]{5}[0-9][a-z]{2}[0-9][a-z]{3}[0-9][a-z]{4}[0-9][A-Z]{6}[0-9]{10}$"
    assert "$(grep '^stand-in: ' <<<"$output")" != "stand-in: $REAL" "the stand-in is not the value"
    expect held "origin tls sni=api.allowed.test host=api.allowed.test"
    expect absent "origin tls sni=api.allowed.test host=api.allowed.test"
    expect "origin CA on the held name" 60
    expect "unheld name" "origin tls sni=www.wild.test host=www.wild.test"
    # the origin got the real value once, and nothing the first time it had none
    assert "$(fi_log headers | grep -c "x_token=\"$REAL\"")" == 1 "requests that reached the origin with the value"
    assert "$(fi_log headers | grep -c 'x_token="-"')" == 2 "requests without it (absent, and the unheld name)"
    assert "$in_dir" == "grep: 1" "files of the session directory with the value (1: none)"
    # the positive control: the dump holds the stand-in, so it looked where
    # the value would have been (taken before `run` replaces $output)
    local standin
    standin=$(grep '^stand-in: ' <<<"$output" | cut -c11-)
    assert "${#standin}" == "${#REAL}" "the stand-in's length"
    assert "$(grep -caF "$standin" "$AS_DIR/dump")" != 0 "the stand-in in the dump (it looked in the right places)"
    run grep -caF "$REAL" "$AS_DIR/dump"
    assert "$output" == 0 "the value in the sandbox's processes, files, home or /tmp"
    fi_assert_no_hit
}

@test "threat 47: a request to a held name with another credential is refused, naming the rule" {
    export MY_TOKEN=$REAL AGENT_SANDBOX_UPSTREAM_CA=$FI_DIR/ca.pem
    run_x 0 agent-sandbox --secret MY_TOKEN --exec bash -c '
        echo "other key: $(curl -sS -w " %{http_code}" -H "x-token: '"$OTHER"'" https://api.allowed.test/ | tr "\n" " ")"
        echo "other header: $(curl -sS -w " %{http_code}" -H "x-token: $MY_TOKEN" -H "Authorization: Bearer '"$OTHER"'" https://api.allowed.test/ | tr "\n" " ")"
        echo "query key: $(curl -sS -o /dev/null -w "%{http_code}" "https://api.allowed.test/?key=x")"
        echo "wrong host: $(curl -sS -o /dev/null -w "%{http_code}" -H "Host: www.wild.test" https://api.allowed.test/)"
        # the held name in other SNI spellings: terminated and judged the same
        for sni in API.Allowed.TEST api.allowed.test.; do
            echo "sni $sni: $(python3 -c "
import socket, ssl, sys
ctx = ssl.create_default_context(cafile=\"/etc/agent-sandbox/session-ca.pem\")
ctx.check_hostname = False
with ctx.wrap_socket(socket.create_connection((\"api.allowed.test\", 443)), server_hostname=sys.argv[1]) as s:
    s.sendall(b\"GET / HTTP/1.1\\r\\nHost: api.allowed.test\\r\\nx-token: '"$OTHER"'\\r\\nConnection: close\\r\\n\\r\\n\")
    print(s.recv(4096).decode().split(\"\\r\\n\")[0])
" "$sni" 2>&1 | tail -1)"
        done'
    expect "other key" =~ "^blocked by agent-sandbox: this request to api.allowed.test: MY_TOKEN in x-token carries a value other than the sandbox's stand-in, or more than one copy; .* 403$"
    expect "other header" =~ "a credential in authorization, which no held secret of this name uses; .* 403$"
    expect "query key" 403
    expect "wrong host" 421
    expect "sni API.Allowed.TEST" "HTTP/1.1 403 Forbidden"
    expect "sni api.allowed.test." "HTTP/1.1 403 Forbidden"
    assert "$(fi_log origin | grep -c 'sni="api.allowed.test"')" == 0 "refused requests that reached the origin"
    fi_assert_no_hit
}

@test "held secrets: --dry-run shows them without values; they fail closed (no CA, no rule, --env with one, a bad rule)" {
    export MY_TOKEN=$REAL
    # --dry-run: which names are terminated and what is held, never a value
    AGENT_SANDBOX_UPSTREAM_CA=$FI_DIR/ca.pem run_x 0 agent-sandbox --secret MY_TOKEN --dry-run
    assert "$output" contains "  terminated (TLS, session CA; docs/secrets.md): api.allowed.test" "--dry-run"
    assert "$output" contains "  held:    MY_TOKEN in x-token on api.allowed.test" "--dry-run"
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr$output" !contains "$REAL" "the value in --dry-run"
    printf 'not a certificate\n' >"$AS_DIR/bad-ca.pem"
    AGENT_SANDBOX_UPSTREAM_CA=$AS_DIR/bad-ca.pem run_x "$EX_USAGE" agent-sandbox --secret MY_TOKEN --exec true
    assert "$stderr" =~ "bad-ca.pem holds no PEM certificate" "a broken CA set-up"
    export UNPLACED=abcdefgh12345678
    run_x "$EX_USAGE" agent-sandbox --secret UNPLACED --exec true
    assert "$stderr" =~ "--secret UNPLACED: no rule says where it goes" "a secret without a rule"
    run_x "$EX_USAGE" agent-sandbox --secret MY_TOKEN --env MY_TOKEN --exec true
    assert "$stderr" =~ "the router holds it, or the sandbox has it, not both" "--env with --secret"
    printf 'MY_TOKEN api.allowed.test header:X-Token\n' >"$AS_CONFIG_DIR/secrets"
    run_x "$EX_USAGE" agent-sandbox --secret MY_TOKEN --exec true
    assert "$stderr" =~ "secrets:1: header:NAME takes a lower-case header name" "a bad line"
    assert "$stderr$output" !contains "$REAL" "the value in the errors"
}
