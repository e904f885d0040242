#!/usr/bin/env bash
# Egress through a session against the same client in a bare container
# directly on the fake internet, interleaved run by run:
#   - 1 GiB over HTTPS (curl), MB/s;
#   - 1,000 new connections one after another (TCP + TLS + GET), p50 and p99;
#     in the session also straight to the router's address, which leaves the
#     forwarder out (what the forwarder adds = via it - straight); the same
#     for the 1 GiB (what one hop fewer would give: the design keeps it);
#   - 200 HTTPS connections open at once, all must succeed, with the peak
#     memory (sum of PSS) of the router's and the forwarder's processes.
#
#   bench/egress.sh            (as the rootless user; see bench/lib.bash)
#
# With several BENCH_VARIANTS, each variant's session runs in every round;
# each is compared with the first, and BENCH_STEPS="OLD>NEW ..." adds the
# comparisons of NEW with OLD (the steps of a series of changes).
set -euo pipefail
source "$(dirname "$0")/lib.bash"

CONNECTIONS=${BENCH_CONNECTIONS:-1000}
CONCURRENT=${BENCH_CONCURRENT:-200}
URL_SMALL=https://$BENCH_ORIGIN_NAME/small
URL_BIG=https://$BENCH_ORIGIN_NAME/1g

# What runs inside: the same script in the session and the direct container.
# It marks each phase in its directory for the memory sampler.
inside_script() {
    cat <<EOF
#!/bin/sh
set -e
touch .phase-idle; sleep 0.5
touch .phase-concurrent
echo "conc \$(python3 netbench.py concurrent $URL_SMALL $CONCURRENT 1)"
touch .phase-throughput
echo "tput \$(curl -sS -o /dev/null --cacert ca.pem -w '%{size_download} %{speed_download}' $URL_BIG)"
touch .phase-latency
echo "lat \$(python3 netbench.py latency $URL_SMALL $CONNECTIONS)"
if [ "\${1:-}" = session ]; then
    router=\$(awk '/^nameserver/ {print \$2; exit}' /etc/resolv.conf)
    echo "latrouter \$(python3 netbench.py latency $URL_SMALL $CONNECTIONS \$router)"
    echo "tputrouter \$(curl -sS -o /dev/null --cacert ca.pem --resolve $BENCH_ORIGIN_NAME:443:\$router \\
        -w '%{size_download} %{speed_download}' $URL_BIG)"
fi
touch .phase-done
EOF
}

# sample_memory DIR OUT: until DIR/.phase-done exists (or 600 s), the sum of
# PSS of each of the session's router and forwarder process trees, every
# 0.1 s; OUT gets "PHASE CONTAINER PEAK_KIB" lines.
sample_memory() {
    local dir=$1 out=$2 n phase c pid total k
    declare -A peak=() pids=()
    for ((n = 0; n < 6000; n++)); do
        [ -e "$dir/.phase-done" ] && break
        # shellcheck disable=SC2012  # the newest by mtime; the names are our own .phase-NAME
        phase=$(cd "$dir" && ls -t .phase-* 2>/dev/null | head -1) || true
        phase=${phase#.phase-}
        if [ -z "${pids[router]:-}" ]; then
            # the session whose agent has DIR mounted
            local id
            id=$($PODMAN ps --filter volume="$dir" --format '{{index .Labels "agent-sandbox.session"}}' | head -1)
            if [ -n "$id" ]; then
                for c in router forwarder; do pids[$c]=$(container_pid "agent-sandbox-$id-$c"); done
                # shellcheck disable=SC2015  # unset unless both were found
                [ "${pids[router]:-0}" != 0 ] && [ "${pids[forwarder]:-0}" != 0 ] || unset 'pids[router]'
            fi
        fi
        if [ -n "$phase" ] && [ -n "${pids[router]:-}" ]; then
            for c in router forwarder; do
                total=0
                for pid in $(tree_pids "${pids[$c]}"); do
                    k=$(awk '/^Pss:/ {print $2}' /proc/"$pid"/smaps_rollup 2>/dev/null) || k=
                    total=$((total + ${k:-0}))
                done
                [ "$total" -gt "${peak[$phase $c]:-0}" ] && peak[$phase $c]=$total
            done
        fi
        sleep 0.1
    done
    for k in "${!peak[@]}"; do echo "$k ${peak[$k]}"; done >"$out"
}

# parse OUTPUT VARIANT RUN: record what one run printed.
parse() {
    local out=$1 variant=$2 run=$3 line
    line=$(grep '^tput ' <<<"$out") || die "$variant run $run printed no throughput:"$'\n'"$out"
    record throughput "$variant" "$run" "$(awk '{printf "%.1f", $3 / 1e6}' <<<"$line")" MB/s
    [ "$(awk '{print $2}' <<<"$line")" = 1073741824 ] || die "$variant run $run: not 1 GiB: $line"
    line=$(grep '^lat ' <<<"$out") || die "$variant run $run printed no latency"
    record latency-p50 "$variant" "$run" "$(field "$line" p50_ms)" ms
    record latency-p99 "$variant" "$run" "$(field "$line" p99_ms)" ms
    record latency-failed "$variant" "$run" "$(field "$line" failed)" connections
    if line=$(grep '^tputrouter ' <<<"$out"); then
        record throughput "$variant (router only)" "$run" "$(awk '{printf "%.1f", $3 / 1e6}' <<<"$line")" MB/s
    fi
    if line=$(grep '^latrouter ' <<<"$out"); then
        record latency-p50 "$variant (router only)" "$run" "$(field "$line" p50_ms)" ms
        record latency-p99 "$variant (router only)" "$run" "$(field "$line" p99_ms)" ms
    fi
    line=$(grep '^conc ' <<<"$out") || die "$variant run $run printed no concurrency line"
    record concurrent-ok "$variant" "$run" "$(field "$line" ok)" connections
    record concurrent-failed "$variant" "$run" "$(field "$line" failed)" connections
    record concurrent-open "$variant" "$run" "$(field "$line" all_open_ms)" ms
    [ "$(field "$line" failed)" = 0 ] || log "$variant run $run: $line"
}

main() {
    bench_check
    bench_net_up
    trap 'bench_net_down' EXIT
    local d run name out
    d=$(bench_dir)
    bench_tools "$d"
    inside_script >"$d/egress-inside.sh"
    log "egress: $BENCH_RUNS rounds of: $(variant_names | xargs | sed 's/ /, /g'), direct"
    # warm-up: one of each, not recorded
    for name in $(variant_names); do
        session "$name" "$d" curl -sS -o /dev/null --cacert ca.pem "$URL_SMALL"
    done
    direct "$d" curl -sS -o /dev/null --cacert ca.pem "$URL_SMALL"
    for ((run = 1; run <= BENCH_RUNS; run++)); do
        for name in $(variant_names); do
            rm -f "$d"/.phase-*
            sample_memory "$d" "$d/.mem" &
            local sampler=$!
            out=$(session "$name" "$d" sh ./egress-inside.sh session) || die "session $name failed:"$'\n'"$out"
            wait "$sampler"
            parse "$out" "$name" "$run"
            while read -r phase c kib; do
                case $phase in idle|concurrent) record "memory-$c" "$name ($phase)" "$run" "$kib" KiB ;; esac
            done <"$d/.mem"
        done
        out=$(direct "$d" sh ./egress-inside.sh direct 2>>"$BENCH_ROOT/sessions.stderr") ||
            die "direct run failed:"$'\n'"$out"
        parse "$out" direct "$run"
        log "egress: round $run of $BENCH_RUNS done"
    done
    bench_rm "$d"
    local first=
    for name in $(variant_names); do
        compare throughput "$name" direct ratio
        compare throughput "$name (router only)" direct ratio
        compare latency-p50 "$name" direct diff
        compare latency-p99 "$name" direct diff
        compare latency-p50 "$name (router only)" direct diff
        compare latency-p99 "$name (router only)" direct diff
        compare latency-p50 "$name" "$name (router only)" diff
        compare concurrent-ok "$name" direct diff
        compare concurrent-open "$name" direct ratio
        compare memory-router "$name (concurrent)" "$name (idle)" diff
        compare memory-forwarder "$name (concurrent)" "$name (idle)" diff
        if [ -n "$first" ]; then
            compare throughput "$name" "$first" ratio
            compare latency-p50 "$name" "$first" diff
            compare latency-p99 "$name" "$first" diff
            compare memory-forwarder "$name (concurrent)" "$first (concurrent)" ratio
        fi
        first=${first:-$name}
    done
    local step old
    for step in ${BENCH_STEPS:-}; do
        old=${step%%>*} name=${step#*>}
        compare throughput "$name" "$old" ratio
        compare latency-p50 "$name" "$old" diff
        compare latency-p99 "$name" "$old" diff
        compare concurrent-open "$name" "$old" ratio
        compare memory-router "$name (concurrent)" "$old (concurrent)" ratio
        compare memory-forwarder "$name (concurrent)" "$old (concurrent)" ratio
    done
}

main "$@"; exit
