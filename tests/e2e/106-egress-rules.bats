#!/usr/bin/env bats
# Request rules for terminated names (docs/secrets.md): a name with the rule
# read-only in the config directory's `rules` file is terminated by the
# router (no secret needed) and takes GET, HEAD and POST .../git-upload-pack
# (git fetch, with git's Content-Type) only; a push or any other write is refused with a 403 naming
# the rule, and logged as a denial. Other names stay routed by SNI. Against
# the fake internet's origin (tests/e2e/fake-internet.bash).

load helpers
load fake-internet

setup_file() { fi_up; }
teardown_file() { fi_down; }
setup() {
    as_setup
    fi_setup
    printf '%s\n' '# 106-egress-rules.bats' 'code.wild.test read-only' >"$AS_CONFIG_DIR/rules"
}
teardown() {
    rm -f "$AS_CONFIG_DIR/rules"
    as_teardown
}

@test "threat 48: a read-only name refuses a push (403 naming the rule, logged) and lets a fetch through; other names stay SNI-routed" {
    export AGENT_SANDBOX_UPSTREAM_CA=$FI_DIR/ca.pem
    run_x 0 agent-sandbox --exec bash -c '
        code() { curl -sS -o /dev/null -w "%{http_code}" "$@"; }
        echo "push: $(curl -sS -w " %{http_code}" -X POST --data-binary pack https://code.wild.test/x.git/git-receive-pack | tr "\n" " ")"
        echo "escaped push: $(code -X POST --data-binary pack "https://code.wild.test/x.git/git-upload-pack%2F..%2Fgit-receive-pack")"
        echo "upload-pack with a query: $(code -X POST --data-binary pack "https://code.wild.test/x.git/git-upload-pack?a=b")"
        echo "put: $(code -X PUT --data-binary x https://code.wild.test/x)"
        echo "delete: $(code -X DELETE https://code.wild.test/x)"
        echo "refs: $(curl -sS "https://code.wild.test/x.git/info/refs?service=git-upload-pack")"
        echo "head: $(code -I https://code.wild.test/x.git/HEAD)"
        echo "fetch: $(curl -sS -X POST -H "Content-Type: application/x-git-upload-pack-request" --data-binary pack https://code.wild.test/x.git/git-upload-pack)"
        # terminated: the session CA, not the origin s certificate
        code --cacert ca.pem https://code.wild.test/ >/dev/null 2>&1
        echo "origin CA on the read-only name: $?"
        echo "name without rules: $(curl -sS --cacert ca.pem -X POST --data-binary x https://www.wild.test/x.git/git-receive-pack)"'
    expect push =~ "^blocked by agent-sandbox: this request to code.wild.test: the rule read-only allows only GET, HEAD and git's fetch \(POST to .../git-upload-pack; .* 403$"
    expect "escaped push" 403
    expect "upload-pack with a query" 403
    expect put 403
    expect delete 403
    expect refs "origin tls sni=code.wild.test host=code.wild.test"
    expect head 200
    expect fetch "origin tls sni=code.wild.test host=code.wild.test"
    expect "origin CA on the read-only name" 60
    expect "name without rules" "origin tls sni=www.wild.test host=www.wild.test"
    # what reached the origin on the read-only name: the fetch, nothing refused
    local got
    got=$(fi_log origin | grep 'sni="code.wild.test"' | sed -E 's/.*request="([A-Z]+ [^ ]+) .*/\1/' | sort)
    assert "$got" == $'GET /x.git/info/refs?service=git-upload-pack\nHEAD /x.git/HEAD\nPOST /x.git/git-upload-pack' \
        "requests that reached the origin on the read-only name"
    # the refusals are logged and summed up like other denials
    local id
    # shellcheck disable=SC2012  # the newest by mtime; session IDs are plain hex
    id=$(ls -t "$XDG_STATE_HOME/agent-sandbox/logs" | head -1)
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" contains "agent-sandbox: egress: 5 requests refused by the rules of allowed names (held secrets, \`rules\`: docs/secrets.md): code.wild.test (5x)" "the summary"
    assert "$stderr" !contains "allow code.wild.test" "no allow hint for an allowed name"
    run_x 0 agent-sandbox log "$id" --denied
    assert "$(grep -c "code.wild.test:443  denied by the name's rules" <<<"$output")" == 5 "denials in the log"
    assert "$output" !contains "allow with" "no allow hint in the log"
    fi_assert_no_hit
}

@test "request rules: --dry-run shows them; a bad line or a name outside the allowlist refuses the session" {
    AGENT_SANDBOX_UPSTREAM_CA=$FI_DIR/ca.pem run_x 0 agent-sandbox --dry-run
    assert "$output" contains "  terminated (TLS, session CA; docs/secrets.md): code.wild.test" "--dry-run"
    assert "$output" contains "  rule:    code.wild.test read-only" "--dry-run"
    printf '# ok\ncode.wild.test readonly\n' >"$AS_CONFIG_DIR/rules"
    run_x "$EX_USAGE" agent-sandbox --exec true
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" =~ "rules:2: \"readonly\" is not a rule \(read-only is the only one\)" "a bad line"
    printf 'code.elsewhere.test read-only\n' >"$AS_CONFIG_DIR/rules"
    run_x "$EX_USAGE" agent-sandbox --exec true
    assert "$stderr" =~ "rules:1: the rule's name code.elsewhere.test is not in the allowlist" "a name not allowed"
}
