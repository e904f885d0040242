#!/usr/bin/env bats
# The router's request checks on names it terminates (docs/secrets.md,
# "Every path to a terminated name"): one judgement for every request to
# such a name, whatever the port, the spelling of a query argument's name,
# the copies of a header, and the shape of a read-only request. Each test
# runs the attacks from inside a real session against the fake internet's
# raw origin (tests/e2e/fake-internet.bash), which logs every byte of every
# request it gets: a refusal is asserted, and that nothing of the attacker's
# reached the origin, beside requests that must reach it (the controls).

load helpers
load fake-internet

REAL=tok-Real0value0of0the0user0SECRET0123456789

setup_file() { fi_up; }
teardown_file() { fi_down; }
setup() {
    as_setup
    fi_setup
    printf '%s\n' '# held by the router (108-egress-checks.bats)' \
        'MY_TOKEN raw.allowed.test header:x-token' >"$AS_CONFIG_DIR/secrets"
    printf '%s\n' '# 108-egress-checks.bats: a read-only name under a wildcard' \
        'raw.wild.test read-only' >"$AS_CONFIG_DIR/rules"
    export MY_TOKEN=$REAL AGENT_SANDBOX_UPSTREAM_CA=$FI_DIR/ca.pem
}
teardown() {
    rm -f "$AS_CONFIG_DIR/secrets" "$AS_CONFIG_DIR/rules"
    as_teardown
}

@test "threat 50: plain HTTP to a name with a held secret or a rule is refused, however it is named; its NAME:PORT entry refuses the session" {
    run_x 0 agent-sandbox --secret MY_TOKEN --exec bash -c '
        code() { curl -sS -o /dev/null -w "%{http_code}" "$@"; }
        echo "post: $(curl -sS -w " %{http_code}" -X POST --data-binary ATTACKER-post http://raw.allowed.test/x.git/git-receive-pack | tr "\n" " ")"
        echo "put: $(code -X PUT --data-binary ATTACKER-put http://raw.allowed.test/x)"
        echo "put with a key: $(code -X PUT -H "Authorization: Bearer ATTACKER-KEY" --data-binary x http://raw.allowed.test/x)"
        echo "the stand-in: $(code -H "x-token: $MY_TOKEN" http://raw.allowed.test/ATTACKER-standin)"
        echo "another spelling: $(code -H "Host: RAW.Allowed.Test.:80" http://raw.allowed.test/ATTACKER-spelling)"
        echo "absolute URI: $(code --proxy http://raw.allowed.test:80 http://raw.allowed.test/ATTACKER-absolute)"
        echo "under a wildcard: $(code -X POST --data-binary ATTACKER-ro http://raw.wild.test/x.git/git-receive-pack)"
        echo "https: $(curl -sS https://raw.allowed.test/control-https)"
        echo "http, another name: $(curl -sS http://www.wild.test/)"'
    expect post =~ "^blocked by agent-sandbox: plain HTTP to raw.allowed.test The router checks every request to this name \(held secrets, request rules\) on HTTPS only, and never sends a held secret in clear text: use https://raw.allowed.test/ \(docs/secrets.md\).  403$"
    expect put 403
    expect "put with a key" 403
    expect "the stand-in" 403
    expect "another spelling" 403
    expect "absolute URI" 403
    expect "under a wildcard" 403
    expect https "raw origin port=443"
    expect "http, another name" "origin http host=www.wild.test"
    fi_assert_nothing_of_the_attacker "GET /control-https HTTP/1.1\\r"
    assert "$(fi_log raw)" !contains "port 80 " "requests that reached the raw origin over plain HTTP"
    # logged and summed up as refusals by the names' rules, never with an allow hint
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" contains "agent-sandbox: egress: 7 requests refused by the rules of allowed names" "the summary"
    assert "$stderr" !contains "allow raw." "no allow hint for an allowed name"

    # NAME:PORT of a terminated name: refused at load, naming the file and line
    { cat "$FI_DIR/allowed-hosts"; echo raw.allowed.test:8443; } >"$AS_DIR/allowed-hosts"
    local line
    line=$(grep -c '' "$AS_DIR/allowed-hosts")
    AGENT_SANDBOX_ALLOWLIST=$AS_DIR/allowed-hosts run_x "$EX_USAGE" agent-sandbox --secret MY_TOKEN --exec true
    assert "$stderr" contains "error: $AS_DIR/allowed-hosts:$line: raw.allowed.test:8443: the router checks every request to raw.allowed.test (it holds --secret MY_TOKEN) on HTTPS only; a port of its own would relay it unchecked: remove the line (docs/secrets.md)" "a held name's port"
    printf 'db.allowed.test read-only\n' >>"$AS_CONFIG_DIR/rules"
    line=$(grep -n '^db.allowed.test:5432$' "$FI_DIR/allowed-hosts" | cut -d: -f1)
    run_x "$EX_USAGE" agent-sandbox --exec true
    assert "$stderr" contains "error: $FI_DIR/allowed-hosts:$line: db.allowed.test:5432: the router checks every request to db.allowed.test (it has the rule of $AS_CONFIG_DIR/rules:3) on HTTPS only" "a read-only name's port"
    fi_assert_no_hit
}

@test "threat 51: a credential query argument in any spelling a server decodes is refused; other arguments pass" {
    run_x 0 agent-sandbox --secret MY_TOKEN --exec bash -c '
        code() { curl -gsS -o /dev/null -w "%{http_code}" "$@"; }
        for q in "key=ATTACKER1" "key=&key=ATTACKER2" "k%65y=ATTACKER3" "access%5Ftoken=ATTACKER4" \
                 "a=1;key=ATTACKER5" "KEY=ATTACKER6" "Api_Key=ATTACKER7" "api.key=ATTACKER8" "key[]=ATTACKER9" \
                 "key%5B%5D=ATTACKER10" "+key=ATTACKER11" "x=1&%6B%45%59=ATTACKER12" "access_token"; do
            echo "query $q: $(code "https://raw.allowed.test/q?$q")"
        done
        for q in "k%6=ATTACKER13" "%E2%84%AAey=ATTACKER14" "key%00=ATTACKER15" "k%zzy=ATTACKER16"; do
            echo "unreadable $q: $(curl -gsS "https://raw.allowed.test/q?$q")"
        done
        echo "form body: $(code -X POST -H "Content-Type: application/x-www-form-urlencoded" --data-binary access_token=ATTACKER17 https://raw.allowed.test/f)"
        echo "form body in a second copy: $(code -X POST -H "Content-Type: text/plain" -H "Content-Type: Application/X-WWW-Form-Urlencoded" --data-binary access_token=ATTACKER18 https://raw.allowed.test/f)"
        for q in "monkey=1" "keys=2&x=key" "q=a%20b;x=%E2%84%AA" "key2=3"; do
            echo "control $q: $(curl -gsS "https://raw.allowed.test/control?$q")"
        done
        echo "json body: $(curl -sS -H "Content-Type: application/json" --data-binary "{\"control\":1}" https://raw.allowed.test/control-json)"'
    local q
    for q in "key=ATTACKER1" "key=&key=ATTACKER2" "k%65y=ATTACKER3" "access%5Ftoken=ATTACKER4" \
        "a=1;key=ATTACKER5" "KEY=ATTACKER6" "Api_Key=ATTACKER7" "api.key=ATTACKER8" "key[]=ATTACKER9" \
        "key%5B%5D=ATTACKER10" "+key=ATTACKER11" "x=1&%6B%45%59=ATTACKER12" "access_token"; do
        expect "query $q" 403
    done
    for q in "k%6=ATTACKER13" "%E2%84%AAey=ATTACKER14" "key%00=ATTACKER15" "k%zzy=ATTACKER16"; do
        expect "unreadable $q" =~ "^blocked by agent-sandbox: this request to raw.allowed.test: a query argument whose name the router cannot read as every server would"
    done
    expect "form body" 403
    expect "form body in a second copy" 403
    for q in "monkey=1" "keys=2&x=key" "q=a%20b;x=%E2%84%AA" "key2=3"; do
        expect "control $q" "raw origin port=443"
    done
    expect "json body" "raw origin port=443"
    fi_assert_nothing_of_the_attacker $'GET /control?monkey=1 HTTP/1.1\\r\nGET /control?keys=2&x=key HTTP/1.1\\r\nGET /control?q=a%20b;x=%E2%84%AA HTTP/1.1\\r\nGET /control?key2=3 HTTP/1.1\\r\n{"control":1}'
    fi_assert_no_hit
}

@test "threat 52: a credential header sent twice, the first copy empty or the stand-in, is refused; a trailer carries none" {
    run_x 0 agent-sandbox --secret MY_TOKEN --exec bash -c '
        code() { curl -sS -o /dev/null -w "%{http_code}" "$@"; }
        for h in X-Api-Key x-goog-api-key api-key x-auth-token Proxy-Authorization; do
            echo "$h twice: $(code -H "$h;" -H "$h: ATTACKER-$h" https://raw.allowed.test/h)"
        done
        echo "authorization twice: $(code -H "Authorization;" -H "Authorization: Bearer ATTACKER-authz" https://raw.allowed.test/h)"
        echo "held, then another: $(code -H "x-token: $MY_TOKEN" -H "x-token: ATTACKER-held" https://raw.allowed.test/h)"
        echo "held twice: $(code -H "x-token: $MY_TOKEN" -H "X-Token: $MY_TOKEN" https://raw.allowed.test/ATTACKER-held-twice)"
        echo "empty, then held: $(code -H "x-token;" -H "x-token: $MY_TOKEN" https://raw.allowed.test/ATTACKER-empty-first)"
        # a header in the trailer of a chunked body, and one folded onto the line before
        raw() { printf "$1" | openssl s_client -quiet -connect raw.allowed.test:443 -servername raw.allowed.test 2>/dev/null | head -1 | tr -d "\r"; }
        echo "trailer: $(raw "POST /control-trailer HTTP/1.1\r\nHost: raw.allowed.test\r\nTransfer-Encoding: chunked\r\nTrailer: X-Api-Key\r\nConnection: close\r\n\r\n7\r\ncontrol\r\n0\r\nX-Api-Key: ATTACKER-trailer\r\n\r\n")"
        echo "folded: $(raw "GET /h HTTP/1.1\r\nHost: raw.allowed.test\r\nX-Note: a\r\n X-Api-Key: ATTACKER-folded\r\nConnection: close\r\n\r\n")"
        echo "space before the colon: $(raw "GET /h HTTP/1.1\r\nHost: raw.allowed.test\r\nX-Api-Key : ATTACKER-space\r\nConnection: close\r\n\r\n")"
        echo "underscores: $(raw "GET /control-underscores HTTP/1.1\r\nHost: raw.allowed.test\r\nX_Api_Key: ATTACKER-underscores\r\nConnection: close\r\n\r\n")"
        echo "held once: $(curl -sS -H "x-token: $MY_TOKEN" https://raw.allowed.test/control-held)"'
    local h
    for h in X-Api-Key x-goog-api-key api-key x-auth-token Proxy-Authorization; do
        expect "$h twice" 403
    done
    expect "authorization twice" =~ "^40[03]$"
    expect "held, then another" 403
    expect "held twice" 403
    expect "empty, then held" 403
    expect trailer "HTTP/1.1 200 OK"
    expect folded "HTTP/1.1 400 Bad Request"
    expect "space before the colon" "HTTP/1.1 400 Bad Request"
    expect underscores "HTTP/1.1 200 OK"
    expect "held once" "raw origin port=443"
    fi_assert_nothing_of_the_attacker $'POST /control-trailer HTTP/1.1\\r\ncontrol\nGET /control-underscores HTTP/1.1\\r\nGET /control-held HTTP/1.1\\r'
    # the held request got the real value, and only that
    assert "$(fi_log raw | grep -ci '^x-token:')" == 1 "x-token lines at the raw origin"
    assert "$(fi_log raw)" contains "x-token: $REAL\\r" "the held value at the raw origin"
    fi_assert_no_hit
}

@test "threat 53: a stand-in keeps a known vendor's prefix and none of the key's own characters" {
    printf '%s\n' 'GL_TOKEN raw.allowed.test header:private-token' 'PLAIN_KEY raw.allowed.test header:x-plain' \
        >>"$AS_CONFIG_DIR/secrets"
    export GL_TOKEN=glpat-k3x9_Zq8LmN0pQwErT PLAIN_KEY=abcd-ef_ghij12345678KLMN
    run_x 0 agent-sandbox --secret GL_TOKEN --secret PLAIN_KEY --exec bash -c '
        echo "gitlab: $GL_TOKEN"
        echo "plain: $PLAIN_KEY"
        echo "sent: $(curl -sS -H "private-token: $GL_TOKEN" -H "x-plain: $PLAIN_KEY" https://raw.allowed.test/control-standins)"'
    local gl plain
    gl=$(grep '^gitlab: ' <<<"$output" | cut -c9-)
    plain=$(grep '^plain: ' <<<"$output" | cut -c8-)
    # the shape: the vendor's prefix, then each letter or digit a random one of its kind
    assert "$gl" =~ '^glpat-[a-z][0-9][a-z][0-9]_[A-Z][a-z][0-9][A-Z][a-z][A-Z][0-9][a-z][A-Z][a-z][A-Z][a-z][A-Z]$' "GitLab's stand-in"
    assert "${gl:6:4}" != k3x9 "the key's own first segment in the stand-in"
    assert "$plain" =~ '^[a-z]{4}-[a-z]{2}_[a-z]{4}[0-9]{8}[A-Z]{4}$' "a key without a known prefix"
    assert "${plain:0:4}" != abcd "the key's first segment in the stand-in"
    expect sent "raw origin port=443"
    # the stand-ins worked: the origin got both real values
    assert "$(fi_log raw)" contains "private-token: $GL_TOKEN\\r" "GitLab's value at the raw origin"
    assert "$(fi_log raw)" contains "x-plain: $PLAIN_KEY\\r" "the plain value at the raw origin"
    fi_assert_no_hit
}

@test "threat 54: a read-only name refuses a GET with a body, a method override and dot segments around upload-pack; fetches pass" {
    run_x 0 agent-sandbox --exec bash -c '
        code() { curl -sS -o /dev/null -w "%{http_code}" "$@"; }
        u=https://raw.wild.test
        echo "get with a body: $(code -X GET --data-binary ATTACKER-get-body $u/x)"
        echo "get chunked: $(code -X GET -H "Transfer-Encoding: chunked" --data-binary ATTACKER-get-chunked $u/x)"
        raw() { printf "$1" | openssl s_client -quiet -connect raw.wild.test:443 -servername raw.wild.test 2>/dev/null | head -1 | tr -d "\r"; }
        echo "head with a body: $(raw "HEAD /x HTTP/1.1\r\nHost: raw.wild.test\r\nContent-Length: 15\r\nConnection: close\r\n\r\nATTACKER-head-b")"
        for h in X-HTTP-Method-Override X-HTTP-Method X-Method-Override; do
            echo "$h: $(code -H "$h: DELETE" $u/ATTACKER-$h)"
        done
        echo "override on upload-pack: $(code -X POST -H "X-HTTP-Method-Override: PUT" --data-binary ATTACKER-override-post $u/x.git/git-upload-pack)"
        echo "override argument: $(code "$u/ATTACKER-arg?_method=DELETE")"
        echo "override argument, escaped: $(code "$u/ATTACKER-arg2?%5Fmethod=delete")"
        echo "dot segments: $(code --path-as-is -X POST --data-binary ATTACKER-dots $u/x.git/git-receive-pack/../git-upload-pack)"
        echo "dot segment: $(code --path-as-is -X POST --data-binary ATTACKER-dot $u/x.git/./git-upload-pack)"
        echo "fetch: $(curl -sS -X POST -H "Content-Type: application/x-git-upload-pack-request" --data-binary control-fetch $u/x.git/git-upload-pack)"
        echo "refs: $(curl -sS "$u/x.git/info/refs?service=git-upload-pack")"
        echo "get, empty body: $(curl -sS -H "Content-Length: 0" $u/control-empty)"'
    expect "get with a body" 403
    expect "get chunked" 403
    expect "head with a body" "HTTP/1.1 403 Forbidden"
    local h
    for h in X-HTTP-Method-Override X-HTTP-Method X-Method-Override; do
        expect "$h" 403
    done
    expect "override on upload-pack" 403
    expect "override argument" 403
    expect "override argument, escaped" 403
    expect "dot segments" 403
    expect "dot segment" 403
    expect fetch "raw origin port=443"
    expect refs "raw origin port=443"
    expect "get, empty body" "raw origin port=443"
    fi_assert_nothing_of_the_attacker $'POST /x.git/git-upload-pack HTTP/1.1\\r\ncontrol-fetch\nGET /x.git/info/refs?service=git-upload-pack HTTP/1.1\\r\nGET /control-empty HTTP/1.1\\r'
    fi_assert_no_hit
}
