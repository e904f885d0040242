#!/usr/bin/env bats
# Egress, the allowed paths: what the allowlist lists works end to end, from
# the sandbox through the forwarder and the router to the fake internet
# (tests/e2e/fake-internet.bash), with real TLS verification against the
# test CA. These are also the controls of the threat tests: the same fake
# internet, reached the allowed way.

load helpers
load fake-internet

setup_file() { fi_up; }
teardown_file() { fi_down; }
setup() { as_setup; fi_setup; }
teardown() { as_teardown; }

@test "an exact name over HTTPS: verified against the test CA, the origin sees the allowed SNI and Host" {
    run_x 0 agent-sandbox --exec bash -c '
        echo "resolves: $(getent ahostsv4 api.allowed.test | awk "NR == 1 {print \$1}")"
        echo "https: $(curl -sS --cacert ca.pem https://api.allowed.test/)"
        # without the test CA the certificate is not trusted: TLS is end to end
        curl -sS -o /dev/null https://api.allowed.test/ 2>/dev/null; echo "untrusted: $?"'
    expect resolves 127.0.0.2
    expect https "origin tls sni=api.allowed.test host=api.allowed.test"
    expect untrusted 60
    assert "$(fi_dns_queries | sort -u)" == "A api.allowed.test" "what the router asked the fake DNS"
    assert "$(fi_log origin)" =~ "port=443 sni=\"api.allowed.test\" host=\"api.allowed.test\"" "origin log"
    fi_assert_no_hit
}

@test "a wildcard name and its apex over HTTPS: the origin sees the name the agent used" {
    run_x 0 agent-sandbox --exec bash -c '
        echo "www: $(curl -sS --cacert ca.pem https://www.wild.test/)"
        echo "apex: $(curl -sS --cacert ca.pem https://wild.test/)"
        echo "resolves: $(getent ahostsv4 deep.sub.wild.test | awk "NR == 1 {print \$1}")"'
    expect www "origin tls sni=www.wild.test host=www.wild.test"
    expect apex "origin tls sni=wild.test host=wild.test"
    expect resolves 127.0.0.2
    assert "$(fi_dns_queries | sort -u)" == $'A wild.test\nA www.wild.test' "what the router asked the fake DNS"
    fi_assert_no_hit
}

@test "port 80 is routed by Host, for exact and wildcard names" {
    run_x 0 agent-sandbox --exec bash -c '
        echo "api: $(curl -sS http://api.allowed.test/)"
        echo "wild: $(curl -sS http://x.wild.test/)"
        echo "port in Host: $(curl -sS -H "Host: api.allowed.test:80" http://127.0.0.2/)"'
    expect api "origin http host=api.allowed.test"
    expect wild "origin http host=x.wild.test"
    expect "port in Host" "origin http host=api.allowed.test"
    assert "$(fi_log origin | grep -c 'port=80 ')" == 3 "requests the origin saw on port 80"
    fi_assert_no_hit
}

@test "a host:port entry: db.allowed.test:5432 reaches the TCP service, both ways" {
    run_x 0 agent-sandbox --exec bash -c '
        echo "resolves: $(getent ahostsv4 db.allowed.test | awk "NR == 1 {print \$1}")"
        exec 3<>/dev/tcp/db.allowed.test/5432
        read -r banner <&3; echo "banner: $banner"
        echo ping-from-sandbox >&3; read -r echoed <&3; echo "echo: $echoed"
        exec 3<&-'
    expect resolves 127.0.0.3
    expect banner db-banner
    expect echo ping-from-sandbox
    assert "$(fi_dns_queries | sort -u)" == "A db.allowed.test" "what the router asked the fake DNS"
    assert "$(fi_log db | wc -l)" == 1 "connections the db saw"
    fi_assert_no_hit
}

@test "the fake internet's tripwires work: the canary logs a connection from the fake internet itself" {
    # Control for every "the canary saw nothing" below: a connection from a
    # container on the fake internet's network is logged.
    $PODMAN exec "$FI_NET-dns" bash -c "echo >/dev/tcp/$FI_CANARY_IP/443; echo >/dev/tcp/$FI_PRIVATE_IP/5432; echo >/dev/tcp/$FI_DB_IP/5433" ||
        die "could not reach the tripwires from the fake internet"
    local n
    for ((n = 0; n < 50; n++)); do
        [ "$(fi_log hits | wc -l)" -ge 3 ] && break
        sleep 0.1
    done
    assert "$(fi_log hits | sort)" =~ "^canary tcp/443 from $FI_DNS_IP:[0-9]+"$'\n'"db tcp/5433 from $FI_DNS_IP:[0-9]+"$'\n'"private tcp/5432 from $FI_DNS_IP:[0-9]+$" "tripwire log"
}
