#!/usr/bin/env bash
# Held secrets (docs/secrets.md): the terminated path against the SNI-routed
# path, in one session. The session holds BENCH_TOKEN for held.wild.test
# (the router terminates TLS, swaps the stand-in for the value and opens its
# own TLS connection to the origin); big.wild.test is not held (routed by
# SNI, TLS end to end). Both names are the fake internet's one origin, so
# the only difference is the router's path. From inside the sandbox, pair by
# pair, the order swapped every round (T S, then S T):
#   - latency: BENCH_CONNECTIONS (200) new connections one after the other
#     (TCP + TLS + GET), p50 and p99;
#   - keep-alive: BENCH_REQUESTS (500) GETs on one connection, p50 and p99;
#   - throughput: 1 GiB over HTTPS (curl), MB/s.
# Every request carries the stand-in in x-token (the SNI-routed one too:
# the same bytes on both sides). Before the rounds, one request to each
# name checks that each path is what it claims: the origin's header log has
# the value from the held name and the stand-in from the other.
#
#   bench/secrets.sh            (as the rootless user; see bench/lib.bash)
#
# Only the tree's own CLI and router (the first of BENCH_VARIANTS): older
# revisions have no --secret. The sessions' config directory is a scratch
# one under BENCH_ROOT (the user's own files are not touched).
set -euo pipefail
source "$(dirname "$0")/lib.bash"

CONNECTIONS=${BENCH_CONNECTIONS:-200}
REQUESTS=${BENCH_REQUESTS:-500}
HELD_NAME=held.wild.test
SNI_NAME=$BENCH_ORIGIN_NAME

# What runs inside: RUNS rounds, each measure as a pair; lines
# "ROUND SIDE MEASURE FIGURES" with SIDE terminated or sni-routed.
inside_script() {
    printf 'RUNS=%s CONNECTIONS=%s REQUESTS=%s HELD=%s SNI=%s\n' \
        "$BENCH_RUNS" "$CONNECTIONS" "$REQUESTS" "$HELD_NAME" "$SNI_NAME"
    cat <<'EOF'
set -e
hdr="x-token: $BENCH_TOKEN"
# side SIDE: its name and CA (the session CA vouches for the terminated
# name, the fake internet's CA for the other: each client checks one chain)
side() {
    case $1 in
        terminated) name=$HELD ca=/etc/agent-sandbox/session-ca.pem ;;
        *) name=$SNI ca=ca.pem ;;
    esac
}
one() { # ROUND SIDE
    side "$2"
    echo "$1 $2 lat $(python3 netbench.py --cafile $ca --header "$hdr" latency "https://$name/small" "$CONNECTIONS")"
    echo "$1 $2 keep $(python3 netbench.py --cafile $ca --header "$hdr" keepalive "https://$name/small" "$REQUESTS")"
    echo "$1 $2 tput $(curl -sS -o /dev/null --cacert $ca -H "$hdr" -w '%{size_download} %{speed_download}' "https://$name/1g")"
}
for s in terminated sni-routed; do
    side $s
    echo "check $s $(curl -sS --cacert $ca -H "$hdr" "https://$name/")"
done
r=1
while [ $r -le "$RUNS" ]; do
    if [ $((r % 2)) = 1 ]; then one $r terminated; one $r sni-routed
    else one $r sni-routed; one $r terminated; fi
    r=$((r + 1))
done
EOF
}

# config_dir DIR: a config directory for the session in new directory DIR
# (podman's own config linked to the user's, as the e2e suite does),
# holding the secret. Not in the launch directory: the CLI refuses that.
config_dir() {
    local user_config=${XDG_CONFIG_HOME:-$HOME/.config} name
    mkdir -m 0700 "$1/agent-sandbox"
    for name in containers cni; do
        [ -e "$user_config/$name" ] && ln -s "$user_config/$name" "$1/$name"
    done
    printf 'notifications off\n' >"$1/agent-sandbox/settings"
    printf '%s\n' '# bench/secrets.sh' "BENCH_TOKEN $HELD_NAME header:x-token" >"$1/agent-sandbox/secrets"
}

# check OUTPUT VALUE: each path is what it claims (see the top).
check() {
    local out=$1 value=$2 log
    grep -q "^check terminated origin tls sni=$HELD_NAME host=$HELD_NAME\$" <<<"$out" ||
        die "the held name's check request failed:"$'\n'"$out"
    grep -q "^check sni-routed origin tls sni=$SNI_NAME host=$SNI_NAME\$" <<<"$out" ||
        die "the SNI-routed name's check request failed:"$'\n'"$out"
    log=$(cat "$FI_DIR/log/headers.log")
    grep -qF "sni=\"$HELD_NAME\" x_token=\"$value\"" <<<"$log" ||
        die "the origin did not get the value from $HELD_NAME: not terminated?"$'\n'"$log"
    # the stand-in has the value's shape but not its prefix: tok- is no
    # vendor's (docs/secrets.md)
    if ! grep -q "sni=\"$SNI_NAME\" x_token=\"[a-z]\{3\}-[A-Za-z0-9]" <<<"$log" ||
        grep -qF "sni=\"$SNI_NAME\" x_token=\"$value\"" <<<"$log"; then
        die "the origin did not get the stand-in from $SNI_NAME: not routed by SNI?"$'\n'"$log"
    fi
    note "secrets: checked before the rounds: the origin got the held value from $HELD_NAME (terminated) and the stand-in from $SNI_NAME (routed by SNI)"
}

# parse OUTPUT: record each round's figures.
parse() {
    local round side measure rest n=0
    while read -r round side measure rest; do
        case $round in check) continue ;; esac
        case $measure in
            lat | keep)
                local what=latency-new
                [ "$measure" = keep ] && what=latency-keepalive
                [ "$(field "$rest" failed)" = 0 ] || die "round $round $side $measure: $rest"
                record "$what-p50" "$side" "$round" "$(field "$rest" p50_ms)" ms
                record "$what-p99" "$side" "$round" "$(field "$rest" p99_ms)" ms
                ;;
            tput)
                [ "${rest%% *}" = 1073741824 ] || die "round $round $side: not 1 GiB: $rest"
                record throughput "$side" "$round" "$(awk '{printf "%.1f", $2 / 1e6}' <<<"$rest")" MB/s
                ;;
            *) die "unexpected line: $round $side $measure $rest" ;;
        esac
        n=$((n + 1))
    done <<<"$1"
    [ "$n" = $((6 * BENCH_RUNS)) ] || die "expected $((6 * BENCH_RUNS)) figures, got $n:"$'\n'"$1"
}

main() {
    bench_check
    bench_net_up
    local d value out bin image
    # global: the EXIT trap runs after main has returned
    SECRETS_CFG=$(mktemp -d "$BENCH_ROOT/config-XXXXXXXX") || die "mktemp in $BENCH_ROOT failed"
    trap 'bench_net_down; rm -rf "$SECRETS_CFG"' EXIT
    d=$(bench_dir)
    bench_tools "$d"
    inside_script >"$d/secrets-inside.sh"
    config_dir "$SECRETS_CFG"
    value=tok-$(head -c 30 /dev/urandom | base64 | tr -dc 'A-Za-z0-9')
    read -r bin image < <(variant_cmd "$(first_variant)")
    log "secrets: $BENCH_RUNS rounds of: terminated ($HELD_NAME), SNI-routed ($SNI_NAME), in one session"
    out=$(cd "$d" && XDG_CONFIG_HOME=$SECRETS_CFG BENCH_TOKEN=$value AGENT_SANDBOX_UPSTREAM_CA=$FI_DIR/ca.pem \
        AGENT_SANDBOX_ROUTER_IMAGE=$image "$bin" --secret BENCH_TOKEN --exec sh ./secrets-inside.sh \
        </dev/null 2>>"$BENCH_ROOT/sessions.stderr") || die "the session failed:"$'\n'"$out"
    check "$out" "$value"
    parse "$out"
    bench_rm "$d"
    local m
    for m in latency-new-p50 latency-new-p99 latency-keepalive-p50 latency-keepalive-p99; do
        compare "$m" terminated sni-routed diff
        compare "$m" terminated sni-routed ratio
    done
    compare throughput terminated sni-routed ratio
}

main "$@"; exit
