#!/usr/bin/env bats
# Egress threats 6, 7, 8, 12 and 14 (docs/egress-tests.md): what reaches the
# router's ports. Non-TLS bytes on 443 and refused Host headers on 80 get
# nothing upstream, an allowed name cannot be pointed at another address,
# and a host:port entry opens that one port. "Nothing leaves" is checked at
# the fake internet (tests/e2e/fake-internet.bash).

load helpers
load fake-internet

setup_file() { fi_up; }
teardown_file() { fi_down; }
setup() { as_setup; fi_setup; }
teardown() { as_teardown; }

R='R=$(awk "/^nameserver/ {print \$2; exit}" /etc/resolv.conf)'

@test "threat 6: non-TLS bytes to port 443 are closed without reaching anything" {
    run_x 0 agent-sandbox --exec bash -c "$R"'
        echo "router: $R"
        for a in 127.0.0.2 127.0.0.3 $R; do
            echo "http $a: $(./netprobe tcp $a 443 "GET / HTTP/1.1\r\nHost: api.allowed.test\r\n\r\n")"
            echo "ssh $a: $(./netprobe tcp $a 443 "SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n")"
            echo "connect $a: $(./netprobe tcp $a 443 "CONNECT api.allowed.test:443 HTTP/1.1\r\nHost: api.allowed.test:443\r\n\r\n")"
            echo "binary $a: $(./netprobe tcp $a 443 "\x00\x01\x02\x03\xff\xfe\x16\x03")"
            echo "sslv2 $a: $(./netprobe tcp $a 443 "\x80\x2e\x01\x00\x02\x00\x15\x00\x00\x00\x10")"
        done
        # plain HTTP on 443 with curl, as an agent would try it
        curl -sS -m 5 http://api.allowed.test:443/ 2>&1; echo "curl http on 443: $?"'
    local a k
    for a in 127.0.0.2 127.0.0.3 "$(sed -n 's/^router: //p' <<<"$output")"; do
        for k in http ssh connect binary sslv2; do
            expect "$k $a" "connected, closed"
        done
    done
    expect "curl http on 443" 52
    fi_assert_nothing_left
}

@test "threat 7: an allowed name pointed at the canary's address (curl --resolve, --connect-to) does not reach it" {
    run_x 0 agent-sandbox --exec bash -c '
        c='"$FI_CANARY_IP"' p='"$FI_PRIVATE_IP"'
        curl -sS -m 5 --cacert ca.pem --resolve api.allowed.test:443:$c https://api.allowed.test/ 2>&1; echo "resolve canary: $?"
        curl -sS -m 5 --cacert ca.pem --resolve api.allowed.test:443:$p https://api.allowed.test/ 2>&1; echo "resolve private: $?"
        curl -sS -m 5 --cacert ca.pem --connect-to api.allowed.test:443:$c:443 https://api.allowed.test/ 2>&1; echo "connect-to canary: $?"
        curl -sS -m 5 --resolve api.allowed.test:80:$c http://api.allowed.test/ 2>&1; echo "resolve canary http: $?"
        curl -sS -m 5 -H "Host: api.allowed.test" http://$c/ 2>&1; echo "host header at canary: $?"
        echo "hello at canary: $(./netprobe hello $c 443 api.allowed.test)"
        echo "control: $(curl -sS --cacert ca.pem https://api.allowed.test/)"'
    local k
    for k in "resolve canary" "resolve private" "connect-to canary" "resolve canary http" "host header at canary"; do
        expect "$k" 7
    done
    assert "$output" contains "Network is unreachable" "curl's error"
    expect "hello at canary" =~ "^error: .*Network is unreachable"
    expect control "origin tls sni=api.allowed.test host=api.allowed.test"
    assert "$(fi_dns_queries | sort -u)" == "A api.allowed.test" "names the fake DNS was asked for"
    fi_assert_no_hit
}

@test "threat 8: a Host not on the list gets 403 naming it; nothing leaves" {
    run_x 0 agent-sandbox --exec bash -c '
        for h in evil.test canary.test x.api.allowed.test '"$FI_CANARY_IP"' 2130706433 "user@api.allowed.test" "api.allowed.test@evil.test" "evil.test:80"; do
            echo "$h: $(curl -sS -w "\n%{http_code}" -H "Host: $h" http://127.0.0.2/ | sed -n "1p;\$p" | paste -sd " ")"
        done
        echo "as proxy: $(curl -sS -w "\n%{http_code}" -x http://127.0.0.2:80 http://evil.test/ | sed -n "1p;\$p" | paste -sd " ")"
        echo "no host 1.0: $(./netprobe tcp 127.0.0.2 80 "GET / HTTP/1.0\r\n\r\n" | grep -o "HTTP/1.1 [0-9]*")"
        echo "no host 1.1: $(./netprobe tcp 127.0.0.2 80 "GET / HTTP/1.1\r\n\r\n" | grep -o "HTTP/1.1 [0-9]*")"'
    local h
    for h in evil.test canary.test x.api.allowed.test "$FI_CANARY_IP" 2130706433; do
        expect "$h" "blocked by agent-sandbox: $h 403"
    done
    expect "user@api.allowed.test" "blocked by agent-sandbox: user@api.allowed.test 403"
    expect "api.allowed.test@evil.test" "blocked by agent-sandbox: api.allowed.test@evil.test 403"
    expect "evil.test:80" "blocked by agent-sandbox: evil.test 403"
    expect "as proxy" "blocked by agent-sandbox: evil.test 403"
    expect "no host 1.0" "HTTP/1.1 403"
    expect "no host 1.1" "HTTP/1.1 400"
    fi_assert_nothing_left
}

@test "threat 8: two Host headers, an absolute URI disagreeing with Host, CONNECT, a pipelined second request: refused" {
    run_x 0 agent-sandbox --exec bash -c '
        status() { ./netprobe tcp 127.0.0.2 80 "$1" | grep -o "HTTP/1.1 [0-9]*" | xargs; }
        echo "two hosts: $(status "GET / HTTP/1.1\r\nHost: api.allowed.test\r\nHost: evil.test\r\nConnection: close\r\n\r\n")"
        echo "two hosts reversed: $(status "GET / HTTP/1.1\r\nHost: evil.test\r\nHost: api.allowed.test\r\nConnection: close\r\n\r\n")"
        echo "absolute evil: $(status "GET http://evil.test/ HTTP/1.1\r\nHost: api.allowed.test\r\nConnection: close\r\n\r\n")"
        echo "absolute allowed: $(status "GET http://api.allowed.test/ HTTP/1.1\r\nHost: evil.test\r\nConnection: close\r\n\r\n")"
        echo "absolute userinfo: $(status "GET http://api.allowed.test@evil.test/ HTTP/1.1\r\nHost: api.allowed.test\r\nConnection: close\r\n\r\n")"
        echo "connect evil: $(status "CONNECT evil.test:443 HTTP/1.1\r\nHost: evil.test:443\r\nConnection: close\r\n\r\n")"
        echo "connect allowed: $(status "CONNECT api.allowed.test:443 HTTP/1.1\r\nHost: api.allowed.test:443\r\nConnection: close\r\n\r\n")"
        echo "pipelined: $(status "GET / HTTP/1.1\r\nHost: api.allowed.test\r\n\r\nGET / HTTP/1.1\r\nHost: evil.test\r\nConnection: close\r\n\r\n")"
        echo "absolute agreeing: $(status "GET http://api.allowed.test/ HTTP/1.1\r\nHost: api.allowed.test\r\nConnection: close\r\n\r\n")"
        echo "curl connect: $(curl -sS -o /dev/null -p -x http://127.0.0.2:80 https://evil.test/ 2>&1)"'
    expect "two hosts" "HTTP/1.1 400"
    expect "two hosts reversed" "HTTP/1.1 400"
    expect "absolute evil" "HTTP/1.1 403"
    expect "absolute allowed" "HTTP/1.1 403"
    expect "absolute userinfo" =~ "^HTTP/1.1 (400|403)$"  # nginx: 400
    expect "connect evil" =~ "^HTTP/1.1 (400|405)$"
    expect "connect allowed" =~ "^HTTP/1.1 (400|405)$"
    expect "pipelined" "HTTP/1.1 200 HTTP/1.1 403"
    expect "absolute agreeing" "HTTP/1.1 200"
    expect "curl connect" =~ "^curl: \(56\) CONNECT tunnel failed, response (400|405)$"
    # only the two allowed requests reached the origin
    assert "$(fi_log origin | sed 's/^[0-9.]* //')" == 'port=80 sni="-" host="api.allowed.test" http_host="api.allowed.test" request="GET / HTTP/1.1"'$'\n''port=80 sni="-" host="api.allowed.test" http_host="api.allowed.test" request="GET / HTTP/1.1"' "what the origin saw (the absolute URI in origin form)"
    assert "$(fi_dns_queries | sort -u)" == "A api.allowed.test" "names the fake DNS was asked for"
    fi_assert_no_hit
}

@test "threat 34: a Host with whitespace or a bare LF: HTTP's optional whitespace only, nothing else around the name" {
    run_x 0 agent-sandbox --exec bash -c '
        status() { ./netprobe tcp 127.0.0.2 80 "$1" | grep -o "HTTP/1.1 [0-9]*" | xargs; }
        for n in api.allowed.test www.wild.test; do
            echo "$n ows space: $(status "GET / HTTP/1.1\r\nHost:  $n \r\nConnection: close\r\n\r\n")"
            echo "$n bare cr: $(status "GET / HTTP/1.1\r\nHost: $n\r\r\nConnection: close\r\n\r\n")"
            echo "$n lf ends: $(status "GET / HTTP/1.1\r\nHost: $n\nConnection: close\r\n\r\n")"
            echo "$n tab: $(status "GET / HTTP/1.1\r\nHost:\x09$n\x09\r\nConnection: close\r\n\r\n")"
            echo "$n vt: $(status "GET / HTTP/1.1\r\nHost: $n\x0b\r\nConnection: close\r\n\r\n")"
            echo "$n lf inside: $(status "GET / HTTP/1.1\r\nHost: ${n%.test}\n.test\r\nConnection: close\r\n\r\n")"
            echo "$n lf fold: $(status "GET / HTTP/1.1\r\nHost: evil.test\n $n\r\nConnection: close\r\n\r\n")"
            echo "$n absolute lf: $(status "GET http://$n\x0a/ HTTP/1.1\r\nHost: $n\r\nConnection: close\r\n\r\n")"
            echo "$n absolute space: $(status "GET http://$n\x20/ HTTP/1.1\r\nHost: $n\r\nConnection: close\r\n\r\n")"
        done'
    local n
    for n in api.allowed.test www.wild.test; do
        # HTTP's own rules: spaces around the value are not part of it, a
        # bare CR may be read as a space, and a bare LF ends the line
        # (RFC 9112 2.2, 5.1), so the name is exactly the allowed one
        expect "$n ows space" "HTTP/1.1 200"
        expect "$n bare cr" "HTTP/1.1 200"
        expect "$n lf ends" "HTTP/1.1 200"
        # anything else is refused: a tab or VT (nginx is stricter than
        # HTTP's OWS here), a name cut by a bare LF, a folded line
        expect "$n tab" "HTTP/1.1 400"
        expect "$n vt" "HTTP/1.1 400"
        expect "$n lf inside" "HTTP/1.1 403"
        expect "$n lf fold" "HTTP/1.1 400"
        expect "$n absolute lf" "HTTP/1.1 400"
        expect "$n absolute space" "HTTP/1.1 400"
    done
    # what reached the origin carried exactly the allowed names
    assert "$(fi_log origin | sed -E 's/^[0-9.]* //; s/ request=.*//' | sort | uniq -c | sed 's/^ *//' | paste -sd ' ')" == \
        '3 port=80 sni="-" host="api.allowed.test" http_host="api.allowed.test" 3 port=80 sni="-" host="www.wild.test" http_host="www.wild.test"' \
        "what the origin saw"
    fi_assert_no_hit
}

@test "threat 14: a host:port entry opens that one port of that one host; other ports and hosts are refused" {
    run_x 0 agent-sandbox --exec bash -c "$R"'
        echo "db 5432: $(./netprobe tcp --half-close db.allowed.test 5432 "hello\n")"
        echo "db 5433: $(./netprobe tcp db.allowed.test 5433 x)"
        echo "db 22: $(./netprobe tcp db.allowed.test 22 x)"
        echo "api 5432: $(./netprobe tcp api.allowed.test 5432 x)"
        echo "wild 5432: $(./netprobe tcp www.wild.test 5432 x)"
        echo "router 5432: $(./netprobe tcp $R 5432 x)"
        echo "router 5433: $(./netprobe tcp $R 5433 x)"
        echo "router 10001: $(./netprobe tcp $R 10001 x)"
        echo "127.0.0.4 5432: $(./netprobe tcp 127.0.0.4 5432 x)"
        curl -sS -m 5 --resolve db.allowed.test:5433:127.0.0.3 http://db.allowed.test:5433/ 2>&1; echo "curl db 5433: $?"'
    expect "db 5432" "connected: db-banner\\x0ahello\\x0a"
    local k
    for k in "db 5433" "db 22" "api 5432" "wild 5432" "router 5432" "router 5433" "router 10001" "127.0.0.4 5432"; do
        expect "$k" =~ "^error: .*Connection refused"
    done
    expect "curl db 5433" 7
    assert "$(fi_log db | wc -l)" == 1 "connections the db's 5432 saw"
    assert "$(fi_dns_queries | sort -u)" == "A db.allowed.test" "names the fake DNS was asked for"
    fi_assert_no_hit
}

@test "threat 12: an allowed NAME:53 resolving to the routers' private resolver gets no TCP DNS from it; allowed names still resolve and connect" {
    # the resolver (P.10) outside allow-upstream-net: the origin alone is in it
    printf '%s\n' api.allowed.test resolver.allowed.test:53 "allow-upstream-net $FI_ORIGIN_IP/32" >"$AS_RUN_DIR/allowed-hosts"
    export AGENT_SANDBOX_ALLOWLIST=$AS_RUN_DIR/allowed-hosts
    fi_dns_add "$FI_DNS_IP" resolver.allowed.test
    run_x 0 agent-sandbox --exec bash -c '
        echo "pod address: $(getent hosts resolver.allowed.test | awk "{print \$1}")"
        echo "tcp dns: $(./netprobe dns --tcp 127.0.0.3 A leak.resolver.test)"
        echo "https: $(curl -sS -m 5 --cacert ca.pem https://api.allowed.test/ 2>&1)"'
    fi_dns_reset
    expect "pod address" 127.0.0.3
    expect "tcp dns" =~ "^(timeout|error: )"      # no answer at all
    expect https "origin tls sni=api.allowed.test host=api.allowed.test"
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" contains "egress: resolver.allowed.test: allowed, but the connection to it failed upstream"
    fi_assert_no_query leak.resolver.test
    fi_assert_no_hit
}
