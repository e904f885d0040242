#!/usr/bin/env bash
# Where a terminated name's download spends its CPU (issue 39): the router
# image's own nginx, outside podman, on loopback, so that only the router's
# path differs. Three paths to one TLS origin, 1 GiB each (BENCH_SIZE), in
# every round, the order turned each round:
#   - sni:        the stream{} server routes by SNI, TLS end to end (a name
#                 that is not held);
#   - terminated: the product's shape for a held name (lib/egress/
#                 router_terminate.c): the SNI server hands the connection
#                 to the terminating http{} server (pass), which proxies,
#                 unbuffered, through an upstream{} with keepalive whose one
#                 server is a relay in stream{} on a unix socket;
#   - no-relay:   the same, with the upstream{} naming the origin itself (what
#                 nginx 1.27.3's `server NAME resolve` would allow; 1.26 has
#                 no re-resolving upstream, so the product keeps the relay).
# For each download: MB/s, and the CPU seconds per GiB of the router's
# workers, the origin's worker and curl (utime + stime), so that a ratio can
# be told apart from a saturated machine. No session, no podman, no network
# but loopback; a rootless user runs it (a user namespace for the chroot).
#
#   bench/terminate-cpu.sh      (after make images: build/images/router-rootfs.tar)
#
# Environment: BENCH_RUNS (10), BENCH_SIZE (1G, a sparse file), BENCH_PORT
# (18443: the router; +1 the origin), BENCH_ROOT (~/as-bench).
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${BENCH_RUNS:-10}
SIZE=${BENCH_SIZE:-1G}
PORT=${BENCH_PORT:-18443}
ORIGIN_PORT=$((PORT + 1))
ROOTFS_TAR=$TOP/build/images/router-rootfs.tar
WORK=${BENCH_ROOT:-$HOME/as-bench}/terminate-cpu

die() {
    echo "terminate-cpu: error: $*" >&2
    exit 1
}
[ -f "$ROOTFS_TAR" ] || die "$ROOTFS_TAR is missing: run make images first"
command -v unshare >/dev/null || die "unshare (util-linux) is needed for the chroot"
CHROOT=$(PATH=$PATH:/usr/sbin:/sbin command -v chroot) || die "chroot (coreutils) is missing"

root=$WORK/root
run=$root/bench
stop_all() {
    local pid
    for pid in "$run"/*.pid; do
        [ -f "$pid" ] && kill "$(cat "$pid")" 2>/dev/null
    done
    return 0
}
trap stop_all EXIT

# --- the root, the certificates, the file ------------------------------------
rm -rf "$WORK"
mkdir -p "$root"
tar -C "$root" --exclude='./dev/*' -xf "$ROOTFS_TAR"
mkdir -p "$run"
(
    cd "$run"
    openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 2 \
        -subj /CN=bench-ca 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -keyout leaf.key -out leaf.csr -subj /CN=held.test 2>/dev/null
    printf 'subjectAltName=DNS:held.test,DNS:direct.test,DNS:big.test\n' >ext
    openssl x509 -req -in leaf.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out leaf.crt \
        -days 2 -extfile ext 2>/dev/null
)
truncate -s "$SIZE" "$run/big"

nginx_in_root() { unshare -r "$CHROOT" "$root" /usr/sbin/nginx -c "$1" & }

cat >"$run/origin.conf" <<EOF
# root of a user namespace that maps only the user running the benchmark
user root root; daemon off; worker_processes 1; pid /bench/origin.pid; error_log /bench/origin.err notice;
events { worker_connections 1024; }
http {
    access_log off;
    server {
        listen 127.0.0.1:$ORIGIN_PORT ssl;
        ssl_certificate /bench/leaf.crt; ssl_certificate_key /bench/leaf.key;
        root /bench;
    }
}
EOF

# The router: the data path's directives as router_terminate.c and
# router_render_nginx.c write them (two workers, 64 KiB stream buffers,
# 256 KiB for the terminated server and its relay, unbuffered, HTTP/1.1 with
# a cleared Connection header, the origin verified by name).
terminated_location() {
    cat <<EOF
        location / {
            proxy_pass https://$1;
            proxy_ssl_server_name on; proxy_ssl_name held.test;
            proxy_ssl_verify on; proxy_ssl_trusted_certificate /bench/ca.crt;
            proxy_http_version 1.1; proxy_request_buffering off; proxy_buffering off;
            proxy_buffer_size 256k; proxy_buffers 4 256k;
            proxy_set_header Host held.test; proxy_set_header Connection "";
        }
EOF
}
cat >"$run/router.conf" <<EOF
load_module /usr/lib/nginx/modules/ngx_stream_module.so;
user root root; daemon off; worker_processes 2; pid /bench/router.pid; error_log /bench/router.err notice;
events { worker_connections 4096; multi_accept on; }
stream {
    proxy_buffer_size 64k;
    map \$ssl_preread_server_name \$sni_upstream { big.test 127.0.0.1:$ORIGIN_PORT; default ""; }
    server { listen 127.0.0.1:$PORT; ssl_preread on; proxy_pass \$sni_upstream; }
    server { listen 127.0.0.1:$PORT; server_name held.test direct.test; ssl_preread on;
             pass unix:/bench/tls.sock; }
    server { listen unix:/bench/relay.sock; proxy_buffer_size 256k;
             proxy_pass 127.0.0.1:$ORIGIN_PORT; }
}
http {
    access_log off;
    upstream via_relay { server unix:/bench/relay.sock max_fails=0; keepalive 8; }
    upstream no_relay { server 127.0.0.1:$ORIGIN_PORT max_fails=0; keepalive 8; }
    ssl_certificate /bench/leaf.crt; ssl_certificate_key /bench/leaf.key;
    ssl_protocols TLSv1.2 TLSv1.3;
    server {
        listen unix:/bench/tls.sock ssl; server_name held.test;
$(terminated_location via_relay)
    }
    server {
        listen unix:/bench/tls.sock ssl; server_name direct.test;
$(terminated_location no_relay)
    }
}
EOF
nginx_in_root /bench/origin.conf
nginx_in_root /bench/router.conf
for _ in $(seq 50); do
    [ -s "$run/router.pid" ] && [ -s "$run/origin.pid" ] && [ -S "$run/tls.sock" ] && break
    sleep 0.1
done
[ -S "$run/tls.sock" ] || die "the router did not start: $(cat "$run/router.err" 2>/dev/null)"

# --- the downloads --------------------------------------------------------------
tick=$(getconf CLK_TCK)
# cpu_ticks NAME: utime + stime of NAME's nginx workers (the master's children)
cpu_ticks() {
    local t=0 p stat
    for p in $(pgrep -P "$(cat "$run/$1.pid")"); do
        read -r -a stat <"/proc/$p/stat"
        t=$((t + stat[13] + stat[14]))
    done
    echo "$t"
}
bytes=$(stat -c %s "$run/big")
# download PATH NAME: one line "PATH MB/s router_s origin_s curl_s" (CPU per GiB)
download() {
    local path=$1 name=$2 r0 o0 r1 o1 t0 t1 ct
    r0=$(cpu_ticks router) o0=$(cpu_ticks origin) t0=$(date +%s%N)
    ct=$({
        TIMEFORMAT='%U %S'
        time curl -sSf --cacert "$run/ca.crt" --resolve "$name:$PORT:127.0.0.1" \
            -o /dev/null "https://$name:$PORT/big"
    } 2>&1) || die "$path: $ct"
    t1=$(date +%s%N) r1=$(cpu_ticks router) o1=$(cpu_ticks origin)
    awk -v p="$path" -v b="$bytes" -v ns=$((t1 - t0)) -v r=$((r1 - r0)) -v o=$((o1 - o0)) \
        -v tk="$tick" -v ct="$ct" 'BEGIN {
            split(ct, c, " "); g = b / 2^30
            printf "%s %.0f %.2f %.2f %.2f\n", p, b / (ns / 1e9) / 1e6, r / tk / g, o / tk / g, (c[1] + c[2]) / g
        }'
}

paths=(sni terminated no-relay)
names=(big.test held.test direct.test)
download sni big.test >/dev/null # the origin's first read of the file
results=$WORK/results.txt
: >"$results"
for round in $(seq "$RUNS"); do
    for k in 0 1 2; do
        i=$(((k + round) % 3))
        echo "$round $(download "${paths[$i]}" "${names[$i]}")" >>"$results"
    done
done

# --- the summary: medians, and each round's ratio to sni ------------------------
echo "terminate-cpu: $RUNS rounds of $SIZE, nginx $(unshare -r "$CHROOT" "$root" /usr/sbin/nginx -v 2>&1 | sed 's/.*nginx\///'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-11s %8s %10s %10s %10s %10s %12s\n' path MB/s router_s origin_s curl_s total_s 'MB/s vs sni'
awk '
    function median(list, n,   a, i, j, t) {
        n = split(list, a, " ")
        for (i = 2; i <= n; i++)
            for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    { mb[$2] = mb[$2] " " $3; r[$2] = r[$2] " " $4; o[$2] = o[$2] " " $5; c[$2] = c[$2] " " $6
      tot[$2] = tot[$2] " " ($4 + $5 + $6); speed[$1, $2] = $3; rounds[$1] = 1 }
    END {
        for (k in rounds) for (p in mb) ratio[p] = ratio[p] " " speed[k, p] / speed[k, "sni"]
        split("sni terminated no-relay", order, " ")
        for (i = 1; i <= 3; i++) {
            p = order[i]
            printf "%-11s %8.0f %10.2f %10.2f %10.2f %10.2f %11.2fx\n", p, median(mb[p]), median(r[p]),
                median(o[p]), median(c[p]), median(tot[p]), median(ratio[p])
        }
    }' "$results"
echo "(CPU: seconds per GiB, medians; raw lines in $results)"
