#!/usr/bin/env bash
# Every benchmark in one run; the results replace the "Results" part of
# BENCHMARKS.md (machine, date, command, load, every figure with its
# same-run baseline, the goals).
#
#   bench/run-all.sh   or   make bench        (as the rootless user)
#
# BENCH_COMPARE="REV=NAME ..." also measures the CLI and router image of git
# revision REV (bench/build-variant.sh), as NAME, in every round of every
# session benchmark: the "before" of an optimisation, from the same run.
# BENCH_COMPARE_EGRESS="REV=NAME ..." the same, for the egress benchmark
# only (the data path's steps, whose start-up is the same).
# BENCH_ONLY="startup loop ready claude-screen egress" runs only those
# (secrets: the tree's own session only; older revisions have no --secret).
# BENCH_MD: the file the results go to (BENCHMARKS.md; a new file starts as
# BENCHMARKS.md's text above the results). Other settings: bench/lib.bash.
set -euo pipefail
source "$(dirname "$0")/lib.bash"

ALL="startup loop ready claude-screen egress review secrets"
ONLY=${BENCH_ONLY:-$ALL}
OUT=${BENCH_MD:-$BENCH_TOP/BENCHMARKS.md}
MARK='<!-- Everything below is written by bench/run-all.sh. -->'

machine() {
    local cpu mem
    cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
    mem=$(awk '/^MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)
    echo "$(nproc) cores ($cpu), $mem, Linux $(uname -r)," \
        "$($PODMAN version --format 'podman {{.Client.Version}}')," \
        "storage $($PODMAN info --format '{{.Store.GraphDriverName}}')," \
        "cgroup $($PODMAN info --format '{{.Host.CgroupsVersion}}'), runtime $($PODMAN info --format '{{.Host.OCIRuntime.Name}}')"
}

main() {
    bench_check
    # A results file of its own (BENCH_MD) starts as BENCHMARKS.md's text.
    [ -e "$OUT" ] || sed -n "1,/^${MARK//\//\\/}\$/p" "$BENCH_TOP/BENCHMARKS.md" >"$OUT"
    grep -qF "$MARK" "$OUT" || die "$OUT has no line '$MARK'"
    local stamp results
    stamp=$(date -u +%Y-%m-%dT%H:%M:%SZ)
    results=$BENCH_ROOT/results-$(date -u +%Y%m%dT%H%M%S).tsv
    export BENCH_RESULTS=$results
    : >"$results"
    local spec variants=$BENCH_VARIANTS egress_variants
    for spec in ${BENCH_COMPARE:-}; do
        log "building ${spec#*=} from ${spec%%=*}"
        variants+=" $("$BENCH_TOP/bench/build-variant.sh" "${spec%%=*}" "${spec#*=}")"
    done
    egress_variants=$variants
    for spec in ${BENCH_COMPARE_EGRESS:-}; do
        # a name BENCH_COMPARE has already: measured once per round
        [[ " $egress_variants" == *" ${spec#*=}="* ]] && continue
        log "building ${spec#*=} from ${spec%%=*}"
        egress_variants+=" $("$BENCH_TOP/bench/build-variant.sh" "${spec%%=*}" "${spec#*=}")"
    done
    local load_before load_after b t0=$SECONDS
    load_before=$(cut -d' ' -f1-3 /proc/loadavg)
    for b in $ONLY; do
        [[ " $ALL " == *" $b "* ]] || die "no benchmark $b (there are: $ALL)"
        if [ "$b" = egress ]; then
            BENCH_VARIANTS=$egress_variants "$BENCH_TOP/bench/$b.sh"
        else
            BENCH_VARIANTS=$variants "$BENCH_TOP/bench/$b.sh"
        fi
    done
    BENCH_VARIANTS=$egress_variants
    load_after=$(cut -d' ' -f1-3 /proc/loadavg)

    local name first
    first=$(first_variant)
    goal() { printf 'G\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$results"; }
    goal startup "$first" "podman run --rm" ratio '<=' 3
    goal loop "$first" "podman run --rm" ratio '<=' 3
    goal first-screen "$first" "podman run --rm -it" diff '<=' 0.2
    goal throughput "$first" direct ratio '>=' 0.85
    goal latency-p50 "$first" direct diff '<=' 2
    goal latency-p99 "$first" direct diff '<=' 5
    goal concurrent-failed "$first" direct diff '<=' 0
    {
        sed -n "1,/^${MARK//\//\\/}\$/p" "$OUT"
        echo
        echo "## Results of $stamp"
        echo
        echo "- command: \`${BENCH_COMMAND:-bench/run-all.sh}\` (BENCH_RUNS=$BENCH_RUNS${BENCH_COMPARE:+ BENCH_COMPARE=\"$BENCH_COMPARE\"}${BENCH_COMPARE_EGRESS:+ BENCH_COMPARE_EGRESS=\"$BENCH_COMPARE_EGRESS\"}${BENCH_STEPS:+ BENCH_STEPS=\"$BENCH_STEPS\"}${BENCH_ONLY:+ BENCH_ONLY=\"$BENCH_ONLY\"}), $((SECONDS - t0)) s"
        echo "- machine: $(machine)"
        echo "- load average (1, 5, 15 min) before: $load_before; after: $load_after"
        echo "- variants: $(for name in $(variant_names); do printf '%s ' "$name"; done)(the first is the tree's own)"
        python3 "$BENCH_TOP/bench/report.py" "$results"
    } >"$OUT.new"
    mv "$OUT.new" "$OUT"
    log "results in $OUT (raw: $results)"
}

main "$@"; exit
