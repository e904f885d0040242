#!/usr/bin/env bats
# Egress threats 9-13 (docs/egress-tests.md): below the names. No IP address
# but the pod's own forwarders is reachable, in any spelling, over IPv4 or
# IPv6, TCP, UDP or ICMP; the router refuses upstream addresses outside the
# allowed networks; the agent cannot change the network. "Nothing leaves" is
# checked at the fake internet (tests/e2e/fake-internet.bash).

load helpers
load fake-internet

setup_file() { fi_up; }
teardown_file() { fi_down; }
setup() { as_setup; fi_setup; }
teardown() { as_teardown; }

R='R=$(awk "/^nameserver/ {print \$2; exit}" /etc/resolv.conf)'

# Refuses to go on in a pod that has a default route (IPv4 or IPv6): then a
# probe of a public address could leave the machine.
NO_DEFAULT_ROUTE='
    if awk "NR > 1 && \$2 == \"00000000\"" /proc/net/route | grep -q . ||
       awk "\$1 ~ /^0+\$/ && \$2 == \"00\" && \$10 != \"lo\"" /proc/net/ipv6_route | grep -q .; then
        echo "DEFAULT ROUTE IN THE POD"; cat /proc/net/route /proc/net/ipv6_route; exit 9
    fi
'

# spellings A.B.C.D: the address in every form inet_aton and URL parsers take
spellings() {
    local a b c d
    IFS=. read -r a b c d <<<"$1"
    local n=$(((a << 24) | (b << 16) | (c << 8) | d))
    printf '%s\n' "$1" "$n" "$(printf '0x%08x' "$n")" "$(printf '0%o.0%o.0%o.0%o' "$a" "$b" "$c" "$d")" \
        "$(printf '0x%x.0x%x.0x%x.0x%x' "$a" "$b" "$c" "$d")" "$a.$b.$(((c << 8) | d))" \
        "$a.$(((b << 16) | (c << 8) | d))" "$(printf '%s.%s.%s.0%o' "$a" "$b" "$c" "$d")"
}

@test "threat 9: direct IP egress to the canary, in every spelling, over curl and bash /dev/tcp: unreachable" {
    local list
    list=$(spellings "$FI_CANARY_IP"; spellings "$FI_PRIVATE_IP"; spellings "$FI_ORIGIN_IP"; spellings 192.0.2.1)
    run_x 0 agent-sandbox --exec bash -c "$NO_DEFAULT_ROUTE"'
        while read -r a; do
            curl -sS -m 3 -o /dev/null "http://$a/" 2>/dev/null; c=$?
            curl -sS -m 3 -k -o /dev/null "https://$a/" 2>/dev/null; s=$?
            (exec 3<>/dev/tcp/$a/443) 2>/dev/null; t=$?
            echo "$a: curl $c $s, /dev/tcp $t, $(./netprobe tcp "$a" 5432 x)"
        done <<<"$1"' _ "$list"
    local a
    while read -r a; do
        expect "$a" "curl 7 7, /dev/tcp 1, error: Network is unreachable"
    done <<<"$list"
    fi_assert_nothing_left
}

@test "threat 9: loopback spellings reach only the pod's own forwarders, which route by name" {
    run_x 0 agent-sandbox --exec bash -c '
        for a in 127.1 0x7f000001 2130706433 017700000001 127.0.0.1 127.0.1; do
            curl -sS -m 3 -o /dev/null http://$a/ 2>/dev/null
            echo "$a: curl $?, $(./netprobe tcp $a 80 x)"
        done
        for a in 127.0.0.2 0x7f000002 2130706434 127.2 127.0.2; do
            echo "$a: $(curl -sS -m 3 http://$a/ | head -n 1)"
        done'
    local a
    for a in 127.1 0x7f000001 2130706433 017700000001 127.0.0.1 127.0.1; do
        expect "$a" =~ "^curl 7, error: .*Connection refused$"
    done
    for a in 127.0.0.2 0x7f000002 2130706434 127.2 127.0.2; do
        expect "$a" "blocked by agent-sandbox: 127.0.0.2"
    done
    fi_assert_nothing_left
}

@test "threat 10: IPv6 of any kind has no route and fails fast" {
    run_x 0 agent-sandbox --exec bash -c "$NO_DEFAULT_ROUTE"'
        start=$(date +%s%N)
        for a in ::ffff:'"$FI_CANARY_IP"' ::ffff:127.0.0.2 2001:db8::1 64:ff9b::'"$FI_CANARY_IP"' fd00::1 ::1; do
            curl -sS -g -m 3 -o /dev/null "http://[$a]/" 2>/dev/null
            echo "$a: curl $?, $(./netprobe tcp $a 80 x)"
        done
        echo "curl -6 name: $(curl -sS -6 -m 3 --cacert ca.pem https://api.allowed.test/ 2>&1)"
        echo "dns AAAA: $(./netprobe dns $(awk "/^nameserver/ {print \$2; exit}" /etc/resolv.conf) AAAA api.allowed.test)"
        echo "udp6: $(./netprobe udp 2001:db8::53 53)"
        echo "ms: $((($(date +%s%N) - start) / 1000000))"
        echo "v6 routes: $(awk "\$10 != \"lo\" && \$1 !~ /^(fe80|ff00)/ {print \$1 \"/\" \$2}" /proc/net/ipv6_route 2>/dev/null | sort -u | xargs)"
        for k in all default; do echo "disable_ipv6 $k: $(cat /proc/sys/net/ipv6/conf/$k/disable_ipv6 2>&1)"; done'
    # IPv4-mapped addresses are IPv4: no route, or the forwarder on loopback,
    # which refuses the address as a Host
    expect "::ffff:$FI_CANARY_IP" =~ "^curl 7, error: Network is unreachable$"
    expect ::ffff:127.0.0.2 =~ "^curl 0, connected: HTTP/1.1 400 "
    # real IPv6: refused locally at once, however the pod refuses it (no
    # route, or no IPv6 at all)
    local a fail='(Network is unreachable|Cannot assign requested address|Invalid argument|Address family not supported by protocol)'
    for a in 2001:db8::1 "64:ff9b::$FI_CANARY_IP" fd00::1; do
        expect "$a" =~ "^curl 7, error: $fail$"
    done
    expect ::1 =~ "^curl 7, error: ($fail|Connection refused)$"
    expect "curl -6 name" =~ "^curl: \((6|7)\) "
    expect "dns AAAA" "NOERROR an=0"
    expect "udp6" =~ "^error: $fail$"
    local ms
    ms=$(sed -n 's/^ms: //p' <<<"$output")
    [ "$ms" -lt 2000 ] || die "the IPv6 attempts took ${ms} ms: they must fail at once"
    # at most link-local and multicast routes: nothing routable
    expect "v6 routes" ""
    # the pod's network namespace (its infra container's, which the agent
    # shares) has IPv6 off: session_plan.c's pod_sysctls
    expect "disable_ipv6 all" 1
    expect "disable_ipv6 default" 1
    fi_assert_nothing_left
}

@test "threat 11: UDP (QUIC on 443, DNS, NTP) does not get out; raw and ICMP sockets are refused" {
    run_x 0 agent-sandbox --exec bash -c "$NO_DEFAULT_ROUTE $R"'
        for a in '"$FI_CANARY_IP $FI_PRIVATE_IP"' 192.0.2.1; do
            for p in 443 53 123; do echo "udp $a:$p: $(./netprobe udp $a $p)"; done
        done
        # the allowed names over UDP: only TCP is forwarded
        echo "udp api:443: $(./netprobe udp api.allowed.test 443)"
        echo "udp router:443: $(./netprobe udp $R 443)"
        echo "udp router:123: $(./netprobe udp $R 123)"
        echo "curl http3: $(curl -sS --http3-only https://api.allowed.test/ 2>&1 | head -1)"
        echo "sockets: $(./netprobe raw)"
        echo "caps: $(grep -E "^Cap(Prm|Eff|Bnd|Amb):" /proc/self/status | awk "{print \$2}" | sort -u | xargs)"
        echo "ping group: $(cat /proc/sys/net/ipv4/ping_group_range | xargs)"
        command -v ping >/dev/null && { ping -c1 -W1 '"$FI_CANARY_IP"' >/dev/null 2>&1; echo "ping: $?"; } || echo "ping: absent"'
    local a p
    for a in "$FI_CANARY_IP" "$FI_PRIVATE_IP" 192.0.2.1; do
        for p in 443 53 123; do expect "udp $a:$p" "error: Network is unreachable"; done
    done
    expect "udp api:443" =~ "^(sent, no reply|error: Connection refused)$"
    expect "udp router:443" =~ "^(sent, no reply|error: Connection refused)$"
    expect "udp router:123" =~ "^(sent, no reply|error: Connection refused)$"
    expect "curl http3" =~ "^(curl: \(1\)|curl: option --http3-only: the installed libcurl version doesn't support this)"
    expect sockets "raw-icmp: Operation not permitted | raw-tcp: Operation not permitted | raw6: Operation not permitted | packet: Operation not permitted | icmp-dgram: Permission denied"
    expect caps 0000000000000000
    expect ping =~ "^(absent|[12])$"
    fi_assert_nothing_left
}

@test "threat 12: allowed names resolving to private, loopback or metadata addresses are refused by the router" {
    run_x 0 agent-sandbox --exec bash -c '
        for n in internal.allowed.test loop.allowed.test meta.allowed.test; do
            echo "https $n: $(curl -sS -m 15 --cacert ca.pem https://$n/ 2>&1 | head -1)"
            echo "http $n: $(curl -sS -m 15 -o /dev/null -w %{http_code} http://$n/ 2>&1)"
        done
        echo "control: $(curl -sS --cacert ca.pem https://api.allowed.test/)"'
    local n
    for n in internal.allowed.test loop.allowed.test meta.allowed.test; do
        expect "https $n" =~ "^curl: \((35|56)\) "
        expect "http $n" 502
    done
    expect control "origin tls sni=api.allowed.test host=api.allowed.test"
    # the router asked for the names (they are allowed) but connected to none
    # of the addresses: the private tripwire is on the routers' own network,
    # so only their firewall kept them away
    assert "$(fi_dns_queries | sort -u)" == $'A api.allowed.test\nA internal.allowed.test\nA loop.allowed.test\nA meta.allowed.test' "names the fake DNS was asked for"
    fi_assert_no_hit
    assert "$(fi_log origin | wc -l)" == 1 "requests the origin saw"
}

@test "threat 12: an allowed name resolving to the router's own address is refused, not looped through the router" {
    # The router's session address is private (RFC 1918) and outside the
    # allowed upstream network: the firewall must refuse it like any other.
    # It is known only once the session runs, so the fake DNS learns it then.
    bg_start agent-sandbox --exec bash -c "$R"'
        echo "$R" >router-ip
        while [ ! -e go ]; do sleep 0.1; done
        echo "https: $(curl -sS -m 15 --cacert ca.pem https://self.wild.test/ 2>&1 | head -1)"
        echo "http: $(curl -sS -m 15 -o /dev/null -w %{http_code} http://self.wild.test/ 2>&1)"
        touch probed
        while [ ! -e end ]; do sleep 0.1; done'
    wait_for_file "$AS_DIR/router-ip" 60
    local router_ip router id log
    router_ip=$(<"$AS_DIR/router-ip")
    fi_dns_add "$router_ip" self.wild.test
    router=$(fi_session_router)
    id=${router#agent-sandbox-}
    id=${id%-router}
    touch "$AS_DIR/go"
    wait_for_file "$AS_DIR/probed" 60
    # the router's own log of its upstream connections, while it runs
    log=$(cat "$AS_SESSIONS_DIR/$id/router-log/egress.log" 2>&1)
    touch "$AS_DIR/end"
    bg_wait 60
    fi_dns_reset
    assert "$status" == 0 "exit status of the session"
    expect https =~ "^curl: \((35|56)\) "
    expect http =~ "^5[0-9][0-9]$"
    assert "$(fi_dns_queries | sort -u)" == "A self.wild.test" "names the fake DNS was asked for"
    # Each request may show one refused attempt (status 502); a loop shows
    # as hundreds of connections, most of them "successful".
    local self
    self=$(grep "\"upstream_addr\":\"$router_ip:" <<<"$log")
    local n
    n=$(grep -c . <<<"$self")
    [ "$n" -le 2 ] || die "the router made $n connections to its own address $router_ip, e.g.:"$'\n'"$(head -3 <<<"$self")"
    assert "$(grep -vc '"status":502,' <<<"$self")" == 0 "connections to its own address $router_ip that were not refused (first: $(grep -v '"status":502,' <<<"$self" | head -2))"
    fi_assert_no_hit
}

@test "threat 13: the agent cannot change routes, addresses, the firewall, /etc/hosts or /etc/resolv.conf" {
    fi_copy_net_tools
    run_x 0 agent-sandbox --exec bash -c "$R"'
        try() { local label=$1; shift; out=$("$@" 2>&1); echo "$label: $? $(echo "$out" | head -1)"; }
        try "ip route add" tools/ip route add default via $R
        try "ip route replace" tools/ip route replace '"$FI_SUBNET"' via $R
        try "ip addr add" tools/ip addr add 10.99.0.5/24 dev eth0
        try "ip link set" tools/ip link set eth0 down
        try "ip link add" tools/ip link add dummy0 type dummy
        try "iptables -F" tools/iptables -F
        try "iptables -P" tools/iptables -P OUTPUT ACCEPT
        XTABLES_LOCKFILE=/tmp/xtables.lock try "iptables-legacy -F" tools/iptables-legacy -F
        try "sysctl ip_forward" sh -c "echo 1 >/proc/sys/net/ipv4/ip_forward"
        try "sysctl ping_group_range" sh -c "echo 0 2147483647 >/proc/sys/net/ipv4/ping_group_range"
        # a user namespace of its own gives capabilities only over namespaces
        # it owns, not over the pod network
        if unshare -r true 2>/dev/null; then
            try "userns ip route add" unshare -r tools/ip route add default via $R
            try "userns ip addr add" unshare -r tools/ip addr add 10.99.0.5/24 dev eth0
        else
            echo "userns ip route add: 1 no user namespace"; echo "userns ip addr add: 1 no user namespace"
        fi
        try "write /etc/hosts" sh -c "echo \"'"$FI_CANARY_IP"' evil.test\" >>/etc/hosts"
        try "write /etc/resolv.conf" sh -c "echo \"nameserver '"$FI_DNS_IP"'\" >/etc/resolv.conf"
        try "replace /etc/resolv.conf" sh -c "cp /etc/resolv.conf /tmp/r && mv /tmp/r /etc/resolv.conf"
        echo "routes after: $(awk "NR > 1 {print \$1, \$2, \$3}" /proc/net/route | xargs)"
        echo "hosts after: $(grep -c evil /etc/hosts)"
        echo "resolver after: $(awk "/^nameserver/ {print \$2}" /etc/resolv.conf | xargs) (was $R)"'
    expect "ip route add" =~ "^2 RTNETLINK answers: Operation not permitted"
    expect "ip route replace" =~ "^2 RTNETLINK answers: Operation not permitted"
    expect "ip addr add" =~ "^2 RTNETLINK answers: Operation not permitted"
    expect "ip link set" =~ "^2 RTNETLINK answers: Operation not permitted"
    expect "ip link add" =~ "^2 RTNETLINK answers: Operation not permitted"
    expect "iptables -F" =~ "^[1-4] .*(Permission denied|Operation not permitted)"
    expect "iptables -P" =~ "^[1-4] .*(Permission denied|Operation not permitted)"
    expect "iptables-legacy -F" =~ "^[1-4] .*(Permission denied|Operation not permitted)"
    expect "sysctl ip_forward" =~ "^[12] .*(Read-only file system|Permission denied)"
    expect "sysctl ping_group_range" =~ "^[12] .*(Read-only file system|Permission denied)"
    expect "userns ip route add" =~ "^[12] .*(Operation not permitted|no user namespace)"
    expect "userns ip addr add" =~ "^[12] .*(Operation not permitted|no user namespace)"
    expect "write /etc/hosts" =~ "^[12] .*(Read-only file system|Permission denied)"
    expect "write /etc/resolv.conf" =~ "^[12] .*(Read-only file system|Permission denied)"
    expect "replace /etc/resolv.conf" =~ "^[12] .*(Read-only file system|Permission denied|Device or resource busy)"
    expect "routes after" =~ "^eth0 [0-9A-F]{8} 00000000$"
    expect "hosts after" 0
    local r
    r=$(sed -n 's/^resolver after: \([0-9.]*\) (was \([0-9.]*\))$/\1 \2/p' <<<"$output")
    assert "${r% *}" == "${r#* }" "the pod's resolver after the attempts"
    fi_assert_nothing_left
}
