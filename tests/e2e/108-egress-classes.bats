#!/usr/bin/env bats
# Threat 60 (docs/secrets.md, "Credentials: by value, by name, the rest";
# "Request rules: read-only names"): on a terminated name a credential is
# judged as a class, whatever the header or argument is called, and
# read-only is git's own protocol, not a path that ends the right way.
# One test per route of the attack from inside that got through before
# (issue 47): another account's credential in a place the old list did not
# name, a forge API's write through a read-only name, a request nginx
# rejects before the checks logged as a blocked name, and the SNI of one
# terminated name with the Host of another. Each runs from inside a real
# session against the fake internet's raw origin, which logs every byte it
# gets (tests/e2e/fake-internet.bash): the refusal is asserted, and that
# nothing marked ATTACKER reached it, beside the requests that must (the
# controls). git's own clone, fetch and push run against a git smart-HTTP
# origin of this file (fixtures/git-http-origin).
#
# Parallel-safe: the fake internet, its names and the git origin are this
# file's own (fi_up), and each test has a config directory of its own
# (its `secrets` and `rules`), never the suite's.

load helpers
load fake-internet

REAL=tok-Real0value0of0the0user0SECRET0123456789

setup_file() {
    fi_up
    # the git origin: a container of this file's fake internet (fi_down
    # removes it with the rest), serving $FI_DIR/git/repo.git
    GIT_ORIGIN_IP=$FI_P.21
    export GIT_ORIGIN_IP
    mkdir -p "$FI_DIR/git"
    cp "$AS_TOP/tests/e2e/fixtures/git-http-origin" "$FI_DIR/git-http-origin"
    : >"$FI_DIR/log/git.log"
    local repo=$FI_DIR/git/repo.git work=$FI_DIR/git/work
    git init -q --bare -b main "$repo"
    git -C "$repo" config http.receivepack true
    git init -q -b main "$work"
    git -C "$work" -c user.name=origin -c user.email=origin@example.test commit -q --allow-empty -m one
    git -C "$work" branch other
    git -C "$work" -c user.name=origin -c user.email=origin@example.test commit -q --allow-empty -m two
    git -C "$work" push -q "$repo" main other
    $PODMAN run -d --name "$FI_NET-git" --label "$FI_LABEL=$FI_ID" --network "$FI_NET" --ip "$GIT_ORIGIN_IP" \
        --user 0:0 -v "$FI_DIR:/fi:ro" -v "$FI_DIR/git:/srv/git" -v "$FI_DIR/log:/log" \
        --entrypoint '[]' "${AGENT_SANDBOX_IMAGE:-localhost/agent-sandbox:dev}" \
        python3 /fi/git-http-origin /fi/origin.crt /fi/origin.key /srv/git /log/git.log >/dev/null ||
        die "starting the git origin failed"
    local n listening="import socket; socket.create_connection(('127.0.0.1', 443), 1)"
    for ((n = 0; n < 100; n++)); do
        $PODMAN exec "$FI_NET-git" python3 -c "$listening" 2>/dev/null && break
        sleep 0.1
    done
    $PODMAN exec "$FI_NET-git" python3 -c "$listening" ||
        die "the git origin does not listen: $($PODMAN logs "$FI_NET-git" 2>&1)"
    fi_dns_add "$GIT_ORIGIN_IP" git.wild.test
}
teardown_file() { fi_down; }
setup() {
    as_setup
    fi_setup
    # this test's own config directory, so that no other file's secrets
    # or rules are read, and none of this file's reach another
    mkdir -p "$AS_RUN_DIR/config"
    cp -a "$XDG_CONFIG_HOME/." "$AS_RUN_DIR/config/"
    export XDG_CONFIG_HOME=$AS_RUN_DIR/config
    printf '%s\n' '# held by the router (108-egress-classes.bats)' \
        'MY_TOKEN raw.allowed.test header:x-token' >"$XDG_CONFIG_HOME/agent-sandbox/secrets"
    printf '%s\n' '# 108-egress-classes.bats: read-only names under a wildcard' \
        'raw.wild.test read-only' 'git.wild.test read-only' >"$XDG_CONFIG_HOME/agent-sandbox/rules"
    export MY_TOKEN=$REAL AGENT_SANDBOX_UPSTREAM_CA=$FI_DIR/ca.pem
}
teardown() { as_teardown; }

# The status code of a request inside the sandbox: code CURL-ARGS...
CODE='code() { curl -gsS -o /dev/null -w "%{http_code}" "$@"; }'

# The agents' clients' ordinary headers (Claude Code's Anthropic SDK,
# Codex, Gemini CLI's SDK, opencode's session ID), as curl arguments: IDs
# as random as a key among them.
AGENT_HEADERS=(-H 'anthropic-version: 2023-06-01' -H 'anthropic-beta: interleaved-thinking-2025-05-14,claude-code-20250219'
    -H 'x-stainless-lang: js' -H 'x-stainless-package-version: 0.60.0' -H 'x-stainless-os: Linux'
    -H 'x-stainless-arch: x64' -H 'x-stainless-runtime: node' -H 'x-stainless-runtime-version: v24.3.0'
    -H 'x-stainless-retry-count: 0' -H 'x-stainless-timeout: 600' -H 'x-stainless-helper-method: stream'
    -H 'x-app: cli' -H 'User-Agent: claude-cli/2.1.332 (external, cli)'
    -H 'x-claude-code-session-id: 550e8400-e29b-41d4-a716-446655440000'
    -H 'idempotency-key: stainless-node-retry-6f1c2d7e-8a9b-4c3d-9e0f-1a2b3c4d5e6f'
    -H 'originator: codex_exec' -H 'session_id: 7c9e6679-7425-40de-944b-e07fc1f90ae7'
    -H 'OpenAI-Beta: responses=experimental' -H 'x-goog-api-client: google-genai-sdk/1.30.0 gl-node/v24.3.0'
    -H 'x-session-affinity: ses_6b1f0e1c4ffeXyZaB3dE5fG7hI9jK1' -H 'x-request-id: 0123456789abcdef0123456789abcdef'
    -H 'traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'
    -H 'If-None-Match: "4b825dc642cb6eb9a060e54bf8d69288fbee4904"'
    -H 'Content-Type: application/json' -H 'Accept: application/json')

@test "threat 60: another account's credential in a place a vendor documents, or any value with a known vendor's prefix, is refused; the agents' ordinary headers pass" {
    local attacks
    # shellcheck disable=SC2016  # expanded inside the sandbox
    attacks='
        for u in https://raw.allowed.test https://raw.wild.test; do
            n=${u#https://raw.}; n=${n%%.*}
            # the places GitLab documents, Cloudflare s key, and two no vendor names
            echo "$n PRIVATE-TOKEN: $(code -H "PRIVATE-TOKEN: ATTACKER-glpat" $u/h)"
            echo "$n JOB-TOKEN: $(code -H "JOB-TOKEN: ATTACKER-job" $u/h)"
            echo "$n X-Auth-Key: $(code -H "X-Auth-Key: ATTACKER-cf" $u/h)"
            echo "$n X-Access-Token: $(code -H "X-Access-Token: ATTACKERk3x9Zq8LmN0pQwErTyUi" $u/h)"
            echo "$n Token: $(code -H "Token: ATTACKER0123456789abcdef0123456789abcdef" $u/h)"
            for q in "private_token=ATTACKER1" "job_token=ATTACKER2" "token=ATTACKER3" "oauth_token=ATTACKER4" \
                     "apikey=ATTACKER5" "Private%5FToken=ATTACKER6"; do
                echo "$n query $q: $(code "$u/q?$q")"
            done
            # a known vendor s token, in places and of vendors no list here names
            echo "$n hf in a header: $(code -H "X-Upstream-Session: hf_ATTACKERabcdefghijklmno1" $u/h)"
            echo "$n xoxb in a cookie: $(code -H "Cookie: s=xoxb-ATTACKER-1234567890-abcdefgh" $u/h)"
            echo "$n glpat in user-agent: $(code -A "tool/1 glpat-ATTACKERk3x9Zq8LmN0pQ" $u/h)"
            echo "$n pypi in the query: $(code "$u/q?q=pypi-ATTACKERabcdefghijk12345")"
            echo "$n npm escaped in the query: $(code "$u/q?q=%6Epm_ATTACKERabcdefghijklmnopq")"
        done'
    run_x 0 agent-sandbox --secret MY_TOKEN --exec bash -c "$CODE$attacks"'
        echo "held, the agents headers: $(curl -sS -H "x-token: $MY_TOKEN" "$@" --data-binary "{\"control\":\"held\"}" https://raw.allowed.test/v1/messages)"
        echo "read-only, the agents headers: $(curl -sS "$@" https://raw.wild.test/control-read-only?page_token=4b825dc642cb6eb9a060e54bf8d69288fbee4904)"' \
        bash "${AGENT_HEADERS[@]}"
    local n h q
    for n in allowed wild; do
        for h in PRIVATE-TOKEN JOB-TOKEN X-Auth-Key X-Access-Token Token "hf in a header" "xoxb in a cookie" \
            "glpat in user-agent" "pypi in the query" "npm escaped in the query"; do
            expect "$n $h" 403
        done
        for q in "private_token=ATTACKER1" "job_token=ATTACKER2" "token=ATTACKER3" "oauth_token=ATTACKER4" \
            "apikey=ATTACKER5" "Private%5FToken=ATTACKER6"; do
            expect "$n query $q" 403
        done
    done
    expect "held, the agents headers" "raw origin port=443"
    expect "read-only, the agents headers" "raw origin port=443"
    fi_assert_nothing_of_the_attacker $'{"control":"held"}\nGET /control-read-only?page_token=4b825dc642cb6eb9a060e54bf8d69288fbee4904 HTTP/1.1\\r\nx-stainless-helper-method: stream\\r\nx-claude-code-session-id: 550e8400-e29b-41d4-a716-446655440000\\r\nx-session-affinity: ses_6b1f0e1c4ffeXyZaB3dE5fG7hI9jK1\\r'
    # the held request got the real value, the read-only one none
    assert "$(fi_log raw | grep -ci '^x-token:')" == 1 "x-token lines at the raw origin"
    assert "$(fi_log raw)" contains "x-token: $REAL\\r" "the held value at the raw origin"
    fi_assert_no_hit
}

@test "threat 60: a read-only name takes a POST only as git's fetch: a forge API's write to .../git-upload-pack is refused" {
    # shellcheck disable=SC2016  # expanded inside the sandbox
    run_x 0 agent-sandbox --exec bash -c "$CODE"'
        u=https://raw.wild.test
        git=(-H "Content-Type: application/x-git-upload-pack-request")
        echo "gitlab files api: $(code -X POST -H "Content-Type: application/json" --data-binary "{\"branch\":\"main\",\"content\":\"ATTACKER-gitlab\",\"commit_message\":\"x\"}" $u/api/v4/projects/1/repository/files/git-upload-pack)"
        echo "gitea contents api: $(code -X POST -H "Content-Type: application/json" --data-binary "{\"content\":\"QVRUQUNLRVI=\",\"message\":\"ATTACKER-gitea\"}" $u/api/v1/repos/o/r/contents/git-upload-pack)"
        echo "a form: $(code -X POST --data-binary "content=ATTACKER-form" $u/api/v4/projects/1/repository/files/git-upload-pack)"
        echo "no content type: $(code -X POST -H "Content-Type:" --data-binary ATTACKER-none $u/x.git/git-upload-pack)"
        echo "git s and json: $(code -X POST "${git[@]}" -H "Content-Type: application/json" --data-binary ATTACKER-two $u/x.git/git-upload-pack)"
        echo "receive-pack type: $(code -X POST -H "Content-Type: application/x-git-receive-pack-request" --data-binary ATTACKER-rp $u/x.git/git-upload-pack)"
        echo "fetch: $(curl -sS -X POST "${git[@]}" --data-binary 0000control-fetch $u/x.git/git-upload-pack)"'
    local what
    for what in "gitlab files api" "gitea contents api" "a form" "no content type" "git s and json" "receive-pack type"; do
        expect "$what" 403
    done
    expect fetch "raw origin port=443"
    fi_assert_nothing_of_the_attacker $'POST /x.git/git-upload-pack HTTP/1.1\\r\nContent-Type: application/x-git-upload-pack-request\\r\n0000control-fetch'
    fi_assert_no_hit
}

@test "threat 60: git clone and fetch through a read-only name work against a git smart-HTTP origin; git push is refused" {
    local before
    before=$(git -C "$FI_DIR/git/repo.git" rev-parse main)
    # shellcheck disable=SC2016  # expanded inside the sandbox
    run_x 0 agent-sandbox --exec bash -c '
        git clone -q --single-branch --branch main https://git.wild.test/repo.git clone 2>&1 && echo "clone: $(git -C clone log --format=%s | tr "\n" " ")"
        cd clone || exit 1
        git fetch -q origin other:other 2>&1 && echo "fetch: $(git log --format=%s other | tr "\n" " ")"
        git -c user.name=a -c user.email=a@example.test commit -q --allow-empty -m ATTACKER-push
        git push origin HEAD:main >../push.out 2>&1; echo "push: $?"
        echo "push says: $(grep -o "HTTP 403" ../push.out | head -1)"'
    expect clone "two one "
    expect fetch "one "
    expect push 1
    expect "push says" "HTTP 403"
    assert "$(git -C "$FI_DIR/git/repo.git" rev-parse main)" == "$before" "the origin's main after the push"
    local got
    got=$(cat "$FI_DIR/log/git.log")
    assert "$got" contains "POST /repo.git/git-upload-pack HTTP/1.1" "the fetch at the git origin"
    assert "$got" !contains "POST /repo.git/git-receive-pack" "a push at the git origin"
    fi_assert_no_hit
}

@test "threat 60: a request nginx rejects before the checks is logged as refused by the name's rules, never as a blocked name" {
    # shellcheck disable=SC2016  # expanded inside the sandbox
    run_x 0 agent-sandbox --secret MY_TOKEN --exec bash -c '
        echo "session: $(hostname)"
        raw() { printf "$1" | openssl s_client -quiet -connect raw.allowed.test:443 -servername raw.allowed.test 2>/dev/null | head -1 | tr -d "\r"; }
        echo "two authorization headers: $(raw "GET /ATTACKER-two HTTP/1.1\r\nHost: raw.allowed.test\r\nAuthorization: Bearer ATTACKER1\r\nAuthorization: Bearer ATTACKER2\r\nConnection: close\r\n\r\n")"
        long=$(head -c 9000 /dev/zero | tr "\0" A)
        echo "a request line too long: $(raw "GET /ATTACKER-$long HTTP/1.1\r\nHost: raw.allowed.test\r\nConnection: close\r\n\r\n")"
        echo "a header too long: $(raw "GET /ATTACKER-header HTTP/1.1\r\nHost: raw.allowed.test\r\nX-Note: $long\r\nConnection: close\r\n\r\n")"'
    expect "two authorization headers" "HTTP/1.1 400 Bad Request"
    expect "a request line too long" "HTTP/1.1 414 Request-URI Too Large"
    expect "a header too long" =~ "^HTTP/1.1 (400|431|494) "
    fi_assert_nothing_of_the_attacker ""
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" contains "agent-sandbox: egress: 3 requests refused by the rules of allowed names (held secrets, \`rules\`: docs/secrets.md): raw.allowed.test (3x)" "the summary"
    assert "$stderr" !contains "blocked" "the summary"
    assert "$stderr" !contains "allow raw.allowed.test" "no allow hint for an allowed name"
    local id
    id=$(grep '^session: ' <<<"$output" | sed 's/^session: agent-sandbox-//')
    assert "$id" =~ '^[0-9a-f]{12}$' "the session's ID"
    run_x 0 agent-sandbox log "$id" --denied
    assert "$(grep -c "raw.allowed.test:443  denied by the name's rules" <<<"$output")" == 3 "refusals in the log"
    assert "$output" !contains "allow with" "no allow hint in the log"
    fi_assert_no_hit
}

@test "threat 60: the SNI of one terminated name with the Host of another is answered 421, logged under the connection's name" {
    # shellcheck disable=SC2016  # expanded inside the sandbox
    run_x 0 agent-sandbox --secret MY_TOKEN --exec bash -c "$CODE"'
        echo "held sni, read-only host: $(code -H "Host: raw.wild.test" https://raw.allowed.test/ATTACKER-ro)"
        echo "read-only sni, held host: $(code -H "Host: raw.allowed.test" -H "x-token: $MY_TOKEN" https://raw.wild.test/ATTACKER-held)"
        echo "another spelling: $(code -H "Host: RAW.Allowed.TEST." https://raw.allowed.test/control-spelling)"'
    expect "held sni, read-only host" 421
    expect "read-only sni, held host" 421
    expect "another spelling" 200
    fi_assert_nothing_of_the_attacker "GET /control-spelling HTTP/1.1\\r"
    assert "$(fi_log raw)" !contains "$REAL" "the held value at the raw origin"
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" contains "2 requests refused by the rules of allowed names (held secrets, \`rules\`: docs/secrets.md): raw.allowed.test (1x), raw.wild.test (1x)" "the summary"
    assert "$stderr" !contains "blocked" "the summary"
    fi_assert_no_hit
}
