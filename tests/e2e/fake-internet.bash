# The fake internet of the egress tests (docs/egress-tests.md): a few
# containers on an --internal podman network that the tests create and that
# serves as the routers' egress network. Nothing on it has a route anywhere
# else, so nothing a test does can leave the machine.
#
#   P.10   fake DNS      dnsmasq from the router image; answers the .test names
#                        below and every other name with the canary; logs
#                        every query (log/dns.log). The routers' resolver.
#   P.11   origin        nginx from the router image: HTTPS on 443 with a
#                        certificate of a throwaway CA, HTTP on 80; the body
#                        echoes the SNI and Host it saw (log/origin.log).
#   P.12   db            TCP 5432: a banner, then echo (log/db.log); 5433 is
#                        a tripwire (the same host on a port not allowed).
#   P.13   canary        tripwire on many TCP and UDP ports, inside the
#                        allowed upstream network (log/hits.log).
#   P.14   raw origin    socat: HTTPS on 443 (the origin's certificate) and
#                        HTTP on 80; logs every byte of every request it
#                        gets, each header line as sent and the body
#                        (log/raw.log), and answers 200 "raw origin": what
#                        reached it, every copy of everything
#                        (108-egress-checks.bats).
#   P.200  private       the same tripwire, outside the allowed upstream
#                        network but on the same L2 network as the routers:
#                        only the routers' firewall keeps them away from it.
#
# P is the network's /24 (podman picks it); the allowlist has
# `allow-upstream-net P.0/25`, so P.200 is a private address outside it.
#
# Names (fake DNS):
#   api.allowed.test -> origin        wild.test, *.wild.test -> origin
#   raw.allowed.test, raw.wild.test -> raw origin
#   db.allowed.test -> db             internal.allowed.test -> private
#   loop.allowed.test -> 127.0.0.1    meta.allowed.test -> 169.254.169.254
#   what fi_dns_add adds (a test, while its session runs)
#   unresolvable.test and every name below it: NXDOMAIN
#   anything else (canary.test, evil.test, ...) -> canary, so a name that
#   leaks also leads to a tripwire hit
#
# The allowlist ($FI_DIR/allowed-hosts): api.allowed.test, raw.allowed.test,
# .wild.test, db.allowed.test:5432, internal.allowed.test, loop.allowed.test,
# meta.allowed.test, allow-upstream-net P.0/25.
#
# fi_up (setup_file) builds it and exports AGENT_SANDBOX_EGRESS_NETWORK,
# AGENT_SANDBOX_RESOLVER and AGENT_SANDBOX_ALLOWLIST for the file's tests;
# fi_down (teardown_file) removes it and fails if any of it is left.
# fi_setup (each test's setup) copies the CA (ca.pem) and the probe tool
# (fixtures/netprobe) into the launch directory and marks the logs; fi_log,
# fi_dns_queries and fi_assert_* then look only at what was logged after the
# mark. Every container and network carries the label
# agent-sandbox-e2e.fake-internet=<id>; the suite's teardown fails if any is
# left (setup_suite.bash).

FI_LABEL=agent-sandbox-e2e.fake-internet
FI_ROUTER_IMAGE=${AGENT_SANDBOX_ROUTER_IMAGE:-localhost/agent-sandbox-router:dev}
FI_TRIPWIRE_TCP="22 25 53 80 443 853 1080 3128 5432 5433 8080 8443 10000 10001"
FI_TRIPWIRE_UDP="53 123 443 853"
FI_LOGS="dns origin headers db hits raw"
# Claude Code's real names, which the origin's certificate also covers: a
# test maps them to the origin with fi_dns_add (230-agent-login.bats); the
# fake DNS answers them with the canary otherwise, as any other name.
FI_CLAUDE_NAMES="api.anthropic.com platform.claude.com claude.ai"
# shellcheck disable=SC2086  # one argument per name
FI_CLAUDE_SANS=$(printf ',DNS:%s' $FI_CLAUDE_NAMES)
# The other agents' API names, covered the same way (107-agent-secrets.bats).
FI_AGENT_API_NAMES="api.openai.com generativelanguage.googleapis.com"
# shellcheck disable=SC2086  # one argument per name
FI_CLAUDE_SANS=$FI_CLAUDE_SANS$(printf ',DNS:%s' $FI_AGENT_API_NAMES)

###############################################################################
# Building and removing it

# _fi_files: the CA, the origin's certificate and every config and script.
_fi_files() {
    local d=$FI_DIR
    mkdir -p "$d/log" "$d/bin"
    # Everything in the containers runs as container root (= this user).
    (
        cd "$d" || exit 1
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
            -keyout ca.key -out ca.pem -days 2 -subj "/CN=agent-sandbox e2e throwaway CA $FI_ID" \
            -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign \
            2>/dev/null &&
        openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
            -keyout origin.key -out origin.csr -subj /CN=api.allowed.test 2>/dev/null &&
        printf '%s\n' \
            "subjectAltName=DNS:api.allowed.test,DNS:raw.allowed.test,DNS:wild.test,DNS:*.wild.test,DNS:db.allowed.test,DNS:internal.allowed.test,DNS:loop.allowed.test,DNS:meta.allowed.test,DNS:canary.test,DNS:evil.test,DNS:*.evil.test$FI_CLAUDE_SANS" \
            'basicConstraints=critical,CA:FALSE' 'extendedKeyUsage=serverAuth' >origin.ext &&
        openssl x509 -req -in origin.csr -CA ca.pem -CAkey ca.key -CAcreateserial \
            -out origin.crt -days 2 -extfile origin.ext 2>/dev/null
    ) || die "fake internet: making the throwaway CA failed"

    cat >"$d/dnsmasq.conf" <<EOF
# The fake internet's DNS: the routers' upstream resolver in the tests.
no-resolv
no-hosts
user=root
listen-address=$FI_DNS_IP
bind-interfaces
log-queries
log-facility=/log/dns.log
host-record=api.allowed.test,$FI_ORIGIN_IP
address=/wild.test/$FI_ORIGIN_IP
# the raw origin; a host record wins over the wildcard above
host-record=raw.allowed.test,$FI_RAW_IP
host-record=raw.wild.test,$FI_RAW_IP
host-record=db.allowed.test,$FI_DB_IP
host-record=internal.allowed.test,$FI_PRIVATE_IP
host-record=loop.allowed.test,127.0.0.1
host-record=meta.allowed.test,169.254.169.254
# names a test adds while a session runs (fi_dns_add)
addn-hosts=/fi/extra-hosts
# names that do not resolve upstream (NXDOMAIN)
address=/unresolvable.test/
# every other name: the canary, so a name that leaks also leads to a hit
address=/#/$FI_CANARY_IP
EOF
    : >"$d/extra-hosts"

    # FI_ORIGIN_HTTPS_EXTRA: more of the HTTPS server, in place of the
    # line #FI_ORIGIN_HTTPS_EXTRA (the benchmarks' locations, bench/lib.bash)
    local origin_conf
    origin_conf=$(cat <<'EOF'
# The fake internet's origin: echoes the SNI and Host it saw; logs the
# credential headers it got apart (headers.log: 105-egress-secrets.bats).
daemon off;
worker_processes 1;
pid /tmp/origin-nginx.pid;
error_log /log/origin-error.log notice;
events { worker_connections 1024; }
http {
    log_format echo '$remote_addr port=$server_port sni="$ssl_server_name" host="$host" http_host="$http_host" request="$request"';
    log_format headers 'sni="$ssl_server_name" x_token="$http_x_token" authorization="$http_authorization" x_api_key="$http_x_api_key" x_goog_api_key="$http_x_goog_api_key" request="$request"';
    access_log /log/origin.log echo;
    access_log /log/headers.log headers;
    default_type text/plain;
    client_body_temp_path /tmp/client_body;
    proxy_temp_path /tmp/proxy;
    fastcgi_temp_path /tmp/fastcgi;
    uwsgi_temp_path /tmp/uwsgi;
    scgi_temp_path /tmp/scgi;
    server {
        listen 443 ssl default_server;
        ssl_certificate /fi/origin.crt;
        ssl_certificate_key /fi/origin.key;
        location / { return 200 "origin tls sni=$ssl_server_name host=$host\n"; }
        #FI_ORIGIN_HTTPS_EXTRA
    }
    server {
        listen 80 default_server;
        location / { return 200 "origin http host=$host\n"; }
    }
}
EOF
    )
    printf '%s%s%s\n' "${origin_conf%%'#FI_ORIGIN_HTTPS_EXTRA'*}" "${FI_ORIGIN_HTTPS_EXTRA:-}" \
        "${origin_conf#*'#FI_ORIGIN_HTTPS_EXTRA'}" >"$d/nginx.conf"

    # tripwire NAME "TCP PORTS" "UDP PORTS": logs every connection and datagram.
    cat >"$d/bin/tripwire" <<'EOF'
#!/bin/bash
name=$1
for p in $2; do
    socat TCP4-LISTEN:$p,reuseaddr,fork \
        SYSTEM:"echo \"$name tcp/$p from \$SOCAT_PEERADDR:\$SOCAT_PEERPORT\" >>/log/hits.log; echo $name" &
done
for p in $3; do
    socat UDP4-RECVFROM:$p,reuseaddr,fork \
        SYSTEM:"echo \"$name udp/$p from \$SOCAT_PEERADDR:\$SOCAT_PEERPORT\" >>/log/hits.log" &
done
wait
EOF
    cat >"$d/bin/db" <<'EOF'
#!/bin/bash
# 5432: a banner, then an echo; 5433 (not allowed): a tripwire.
socat TCP4-LISTEN:5432,reuseaddr,fork \
    SYSTEM:'echo "db tcp/5432 from $SOCAT_PEERADDR:$SOCAT_PEERPORT" >>/log/db.log; echo db-banner; exec cat' &
exec /fi/bin/tripwire db 5433 ""
EOF
    cat >"$d/bin/raw-origin" <<'EOF'
#!/bin/bash
# The raw origin: HTTPS on 443 and HTTP on 80, each connection one request,
# logged whole into /log/raw.log before it is answered.
socat OPENSSL-LISTEN:443,reuseaddr,fork,cert=/fi/origin.crt,key=/fi/origin.key,verify=0 \
    EXEC:"/fi/bin/raw-request 443" &
socat TCP4-LISTEN:80,reuseaddr,fork EXEC:"/fi/bin/raw-request 80" &
wait
EOF
    cat >"$d/bin/raw-request" <<'EOF'
#!/bin/bash
# One request from stdin: the request line and every header line exactly as
# they came (a CR shown as \r), then the body as it came (Content-Length, or
# chunked with its chunk lines and trailers); logged as one block.
port=$1 rec=$(mktemp) len=0 chunked=
cr() { printf '%s\n' "${1//$'\r'/\\r}" >>"$rec"; }
printf -- '--- request to port %s from %s\n' "$port" "$SOCAT_PEERADDR" >"$rec"
while IFS= read -r line; do
    cr "$line"
    line=${line%$'\r'}
    [ -z "$line" ] && break
    shopt -s nocasematch
    case $line in
        content-length:*) len=${line#*:} len=${len//[!0-9]/} ;;
        transfer-encoding:*chunked*) chunked=1 ;;
    esac
    shopt -u nocasematch
done
if [ -n "$chunked" ]; then
    while IFS= read -r line; do
        cr "$line"
        size=$((16#${line%%[;$'\r']*}))
        if [ "$size" = 0 ]; then
            while IFS= read -r line; do cr "$line"; [ -z "${line%$'\r'}" ] && break; done
            break
        fi
        head -c "$size" >>"$rec"
        IFS= read -r line
        cr "$line"
    done
elif [ "${len:-0}" -gt 0 ]; then
    head -c "$len" >>"$rec"
    echo >>"$rec"
fi
cat "$rec" >>/log/raw.log
rm -f "$rec"
body="raw origin port=$port"
printf 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s\n' \
    $((${#body} + 1)) "$body"
EOF
    chmod 0755 "$d/bin/tripwire" "$d/bin/db" "$d/bin/raw-origin" "$d/bin/raw-request"

    cat >"$d/allowed-hosts" <<EOF
# The allowlist of the egress tests (tests/e2e/fake-internet.bash).
api.allowed.test
raw.allowed.test
.wild.test
db.allowed.test:5432
internal.allowed.test
loop.allowed.test
meta.allowed.test
allow-upstream-net $FI_P.0/25
EOF
    local f
    for f in $FI_LOGS; do : >"$d/log/$f.log"; done
}

# _fi_run NAME IP COMMAND...: one container of the fake internet. runc
# under podman 5 on cgroup v1 (the test bed) now and then loses its init
# process while creating a container ("read init-p: connection reset by
# peer"); that one failure of the runtime is tried again, once, since the
# fake internet is the tests' scaffolding, not what they test.
_fi_run() {
    local name=$1 ip=$2 try out
    shift 2
    for try in 1 2; do
        if out=$($PODMAN run -d --name "$FI_NET-$name" --label "$FI_LABEL=$FI_ID" \
            --network "$FI_NET" --ip "$ip" --user 0:0 --log-driver k8s-file \
            -v "$FI_DIR:/fi:ro" -v "$FI_DIR/log:/log" \
            --entrypoint '[]' "$FI_ROUTER_IMAGE" "$@" 2>&1 >/dev/null); then
            return 0
        fi
        printf '%s\n' "$out" >&2
        [[ $try == 1 && $out == *"read init-p: connection reset by peer"* ]] || break
        $PODMAN rm -f "$FI_NET-$name" >/dev/null 2>&1 || true
    done
    die "fake internet: starting $name failed"
}

# _fi_listening NAME "TCP PORTS" ["UDP PORTS"]: every port is bound in
# container NAME.
_fi_listening() {
    local socks p
    socks=$($PODMAN exec "$FI_NET-$1" ss -Hlntu 2>/dev/null |
        awk '{n = split($5, a, ":"); print $1 "/" a[n]}') || return 1
    for p in $2; do grep -qx "tcp/$p" <<<"$socks" || return 1; done
    for p in ${3:-}; do grep -qx "udp/$p" <<<"$socks" || return 1; done
}

fi_up() {
    FI_ID=$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')
    FI_NET=as-e2e-fi-$FI_ID
    FI_DIR=$AS_E2E_ROOT/.fi-$FI_ID
    mkdir -p "$AS_E2E_ROOT"

    $PODMAN network create --internal --disable-dns --label "$FI_LABEL=$FI_ID" "$FI_NET" >/dev/null ||
        die "fake internet: creating network $FI_NET failed"
    local subnet
    subnet=$($PODMAN network inspect "$FI_NET" --format '{{range .Subnets}}{{.Subnet}} {{end}}')
    subnet=${subnet%% *}
    [[ $subnet =~ ^([0-9]+\.[0-9]+\.[0-9]+)\.0/24$ ]] ||
        die "fake internet: podman gave $FI_NET the subnet '$subnet'; the tests need a /24"
    FI_P=${BASH_REMATCH[1]}
    FI_SUBNET=$subnet
    FI_DNS_IP=$FI_P.10 FI_ORIGIN_IP=$FI_P.11 FI_DB_IP=$FI_P.12 FI_CANARY_IP=$FI_P.13
    FI_RAW_IP=$FI_P.14 FI_PRIVATE_IP=$FI_P.200
    export FI_ID FI_NET FI_DIR FI_P FI_SUBNET FI_DNS_IP FI_ORIGIN_IP FI_DB_IP FI_CANARY_IP FI_RAW_IP FI_PRIVATE_IP

    _fi_files
    _fi_run dns "$FI_DNS_IP" dnsmasq --keep-in-foreground --conf-file=/fi/dnsmasq.conf
    _fi_run origin "$FI_ORIGIN_IP" nginx -c /fi/nginx.conf
    _fi_run db "$FI_DB_IP" /fi/bin/db
    _fi_run raw "$FI_RAW_IP" /fi/bin/raw-origin
    _fi_run canary "$FI_CANARY_IP" /fi/bin/tripwire canary "$FI_TRIPWIRE_TCP" "$FI_TRIPWIRE_UDP"
    _fi_run private "$FI_PRIVATE_IP" /fi/bin/tripwire private "$FI_TRIPWIRE_TCP" "$FI_TRIPWIRE_UDP"

    local n ok=
    for ((n = 0; n < 100; n++)); do
        if _fi_listening dns 53 53 && _fi_listening origin "80 443" &&
            _fi_listening db "5432 5433" && _fi_listening raw "80 443" &&
            _fi_listening canary "$FI_TRIPWIRE_TCP" "$FI_TRIPWIRE_UDP" &&
            _fi_listening private "$FI_TRIPWIRE_TCP" "$FI_TRIPWIRE_UDP"; then
            ok=1
            break
        fi
        sleep 0.1
    done
    [ -n "$ok" ] || die "fake internet: not every service came up:"$'\n'"$($PODMAN ps -a --filter "label=$FI_LABEL=$FI_ID" --format '{{.Names}} {{.Status}}')"$'\n'"$(cat "$FI_DIR"/log/*error* 2>/dev/null)"

    export AGENT_SANDBOX_EGRESS_NETWORK=$FI_NET
    export AGENT_SANDBOX_RESOLVER=$FI_DNS_IP
    export AGENT_SANDBOX_ALLOWLIST=$FI_DIR/allowed-hosts
}

# fi_leftovers [ID]: what is still there of fake internet ID (default: of
# any fake internet of this user).
fi_leftovers() {
    local label=$FI_LABEL${1:+=$1}
    $PODMAN ps -a --filter "label=$label" --format 'container {{.Names}}'
    $PODMAN network ls --filter "label=$label" --format 'network {{.Name}}'
}

# fi_remove_all: remove every fake internet of this user (leftovers of an
# aborted run); prints what it removed.
fi_remove_all() {
    local left
    left=$(fi_leftovers)
    [ -n "$left" ] || return 0
    echo "$left"
    # shellcheck disable=SC2086  # $PODMAN splits, as make's $(PODMAN) does
    $PODMAN ps -aq --filter "label=$FI_LABEL" | xargs -r $PODMAN rm -f -t 0 >/dev/null 2>&1
    # shellcheck disable=SC2086  # $PODMAN splits, as make's $(PODMAN) does
    $PODMAN network ls -q --filter "label=$FI_LABEL" | xargs -r $PODMAN network rm -f >/dev/null 2>&1
    rm -rf "$AS_E2E_ROOT"/.fi-* 2>/dev/null || $PODMAN unshare rm -rf "$AS_E2E_ROOT"/.fi-*
}

# fi_down: remove this file's fake internet; fails if anything of it is left
# afterwards.
fi_down() {
    [ -n "${FI_ID:-}" ] || return 0
    # shellcheck disable=SC2086  # $PODMAN splits, as make's $(PODMAN) does
    $PODMAN ps -aq --filter "label=$FI_LABEL=$FI_ID" | xargs -r $PODMAN rm -f -t 0 >/dev/null 2>&1
    $PODMAN network rm -f "$FI_NET" >/dev/null 2>&1
    if [ -n "${FI_DIR:-}" ] && [ -d "$FI_DIR" ]; then
        rm -rf "$FI_DIR" 2>/dev/null || $PODMAN unshare rm -rf "$FI_DIR"
    fi
    local left
    left=$(fi_leftovers "$FI_ID")
    [ -z "$left" ] || die "fake internet: left after removal:"$'\n'"$left"
}

###############################################################################
# Per test

# fi_setup: the CA (ca.pem) and the probe tool (netprobe) in the launch
# directory, the logs marked.
fi_setup() {
    cp "$FI_DIR/ca.pem" "$AS_DIR/ca.pem"
    cp "$AS_TOP/tests/e2e/fixtures/netprobe" "$AS_DIR/netprobe"
    fi_mark
}

# fi_copy_net_tools: ip and iptables (with their libraries and their
# dynamic loader: the router image's libc is newer than the sandbox's) from
# the router image into $AS_DIR/tools, to try them in the sandbox, whose
# image may not have them: run as `tools/ip ...`, `tools/iptables ...`,
# `tools/iptables-legacy ...` (scripts that start each through its own
# loader).
fi_copy_net_tools() {
    if [ ! -x "$FI_DIR/tools/ip" ]; then
        mkdir -p "$FI_DIR/tools/lib" "$FI_DIR/tools/bin"
        $PODMAN run --rm --network none --user 0:0 --label "$FI_LABEL=$FI_ID" \
            -v "$FI_DIR/tools:/out" --entrypoint '[]' \
            "$FI_ROUTER_IMAGE" sh -c '
                set -e
                bins="/usr/sbin/ip /usr/sbin/xtables-nft-multi /usr/sbin/xtables-legacy-multi"
                cp $bins /out/bin/
                cp -L /lib64/ld-linux-x86-64.so.2 /out/lib/
                for b in $bins; do
                    ldd "$b" | grep -o "=> /[^ ]*" | cut -c4-
                done | sort -u | xargs -I{} cp -L {} /out/lib/
                tool() {
                    printf "%s\n" "#!/bin/sh" "d=\${0%/*}" \
                        "exec \"\$d/lib/ld-linux-x86-64.so.2\" --library-path \"\$d/lib\" --argv0 $2 \"\$d/bin/$3\" \"\$@\"" >"/out/$1"
                    chmod 0755 "/out/$1"
                }
                tool ip ip ip
                tool iptables iptables xtables-nft-multi
                tool iptables-legacy iptables-legacy xtables-legacy-multi' ||
            die "copying ip and iptables out of $FI_ROUTER_IMAGE failed"
    fi
    cp -a "$FI_DIR/tools" "$AS_DIR/tools"
}

# fi_dns_add IP NAME: from now on the fake DNS answers NAME with IP (until
# fi_dns_reset).
fi_dns_add() {
    echo "$1 $2" >>"$FI_DIR/extra-hosts"
    _fi_dns_reload
}

fi_dns_reset() {
    : >"$FI_DIR/extra-hosts"
    _fi_dns_reload
}

# dnsmasq re-reads its addn-hosts file on SIGHUP; wait until it has.
_fi_dns_reload() {
    local before n
    before=$(grep -c 'read /fi/extra-hosts' "$FI_DIR/log/dns.log")
    $PODMAN kill --signal HUP "$FI_NET-dns" >/dev/null || die "fake internet: reloading the DNS failed"
    for ((n = 0; n < 50; n++)); do
        [ "$(grep -c 'read /fi/extra-hosts' "$FI_DIR/log/dns.log")" -gt "$before" ] && return 0
        sleep 0.1
    done
    die "fake internet: the DNS did not re-read its hosts file"
}

# fi_session_router: the name of the (one) running session's router
# container, once it runs (30 s at most).
fi_session_router() {
    local n name
    for ((n = 0; n < 300; n++)); do
        # shellcheck disable=SC2153  # AS_LABEL: helpers.bash's, loaded first
        name=$($PODMAN ps --filter "label=$AS_LABEL" --filter name='-router$' --format '{{.Names}}' | head -1)
        [ -n "$name" ] && { echo "$name"; return 0; }
        sleep 0.1
    done
    die "no router of a session is running"
}

# fi_router_egress_ip: the egress address of the (one) running session's
# router on the fake internet, once it is up (30 s at most).
fi_router_egress_ip() {
    local n name ip
    for ((n = 0; n < 300; n++)); do
        name=$($PODMAN ps --filter "label=$AS_LABEL" --filter name='-router$' --format '{{.Names}}' | head -1)
        if [ -n "$name" ]; then
            ip=$($PODMAN inspect "$name" --format "{{(index .NetworkSettings.Networks \"$FI_NET\").IPAddress}}" 2>/dev/null)
            [ -n "$ip" ] && { echo "$ip"; return 0; }
        fi
        sleep 0.1
    done
    die "no router of a session appeared on $FI_NET"
}

# expect LABEL VALUE: the first line "LABEL: ..." of $output is
# "LABEL: VALUE"; expect LABEL =~ REGEX: its value matches REGEX. Fails when
# there is no such line.
expect() {
    local line got found=
    # shellcheck disable=SC2154  # output: bats' run or run_x
    while IFS= read -r line; do
        if [[ $line == "$1:"* ]]; then
            got=${line#"$1:"}
            got=${got# }
            found=1
            break
        fi
    done <<<"$output"
    [ -n "$found" ] || die "no line \"$1: ...\" in the output"
    if [ "$2" = "=~" ]; then
        assert "$got" =~ "$3" "$1"
    else
        assert "$got" == "$2" "$1"
    fi
}

# fi_mark: from now on, fi_log shows only what is logged after this point.
fi_mark() {
    local f
    for f in $FI_LOGS; do
        printf -v "FI_MARK_$f" '%s' "$(stat -c %s "$FI_DIR/log/$f.log")"
    done
}

# fi_log NAME: what log NAME (dns, origin, headers, db, hits, raw) got since
# fi_mark.
fi_log() {
    local var=FI_MARK_$1
    tail -c +$((${!var:-0} + 1)) "$FI_DIR/log/$1.log"
}

# fi_dns_queries: the names the fake DNS was asked for since fi_mark, one
# "TYPE NAME" per line.
fi_dns_queries() {
    fi_log dns | sed -nE 's/.*query\[([A-Za-z0-9]+)\] ([^ ]+) from .*/\1 \2/p'
}

# fi_assert_no_query NAME...: the fake DNS was asked for none of the NAMEs
# (in any case) since fi_mark.
fi_assert_no_query() {
    local q name
    q=$(fi_dns_queries)
    for name in "$@"; do
        name=${name%.}
        if grep -Fqi " $name" <<<"$q"; then
            die "the fake DNS was asked for $name:"$'\n'"$(fi_log dns)"
        fi
    done
}

# fi_assert_no_hit: no tripwire (canary, private, db:5433) saw anything.
fi_assert_no_hit() {
    local hits
    hits=$(fi_log hits)
    [ -z "$hits" ] || die "the canary was reached:"$'\n'"$hits"
}

# fi_assert_nothing_of_the_attacker CONTROLS: the raw origin got nothing
# marked ATTACKER since fi_mark (in a path, a query, a header or a body),
# and every line of CONTROLS (each one line of what it logged).
fi_assert_nothing_of_the_attacker() {
    local got line
    got=$(fi_log raw)
    assert "$got" !contains ATTACKER "what reached the raw origin"
    while IFS= read -r line; do
        [ -z "$line" ] || assert "$got" contains "$line" "a control that must reach the raw origin"
    done <<<"$1"
}

# fi_assert_nothing_left: nothing at all reached the fake internet since
# fi_mark: no DNS query, no request at the origin or the db, no tripwire hit.
fi_assert_nothing_left() {
    local l out=
    for l in $FI_LOGS; do
        l=$(fi_log "$l")
        [ -n "$l" ] && out+=$l$'\n'
    done
    [ -z "$out" ] || die "something reached the fake internet:"$'\n'"$out"
}
