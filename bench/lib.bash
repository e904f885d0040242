# Shared by the benchmarks (bench/*.sh): the scratch directory, the fake
# internet, launch directories, the clock and the results file.
#
# Every session a benchmark starts has the fake internet of the egress tests
# (tests/e2e/fake-internet.bash) as its router's egress side: an --internal
# network, so nothing a benchmark does can leave the machine. Its origin
# serves the benchmarks too, as "big.wild.test" (allowed by the .wild.test
# entry of the tests' allowlist): HTTPS with the fake internet's throwaway
# CA, /small (a few bytes) and /1g (1 GiB).
#
# Environment:
#   AGENT_SANDBOX_BIN    the CLI (default build/agent-sandbox)
#   AGENT_SANDBOX_IMAGE  the sandbox image (default localhost/agent-sandbox:dev)
#   BENCH_RUNS           pairs per measure (default 10; at least 10 for a result)
#   BENCH_ROOT           scratch directory under $HOME (default ~/as-bench)
#   BENCH_RESULTS        the results file (default $BENCH_ROOT/results.tsv)
#   BENCH_VARIANTS       "NAME=CLI,ROUTER_IMAGE ...": sessions to measure, each
#                        in every round (bench/build-variant.sh makes one of a
#                        git revision); default: the tree's own, "session"

BENCH_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
AGENT_SANDBOX_BIN=${AGENT_SANDBOX_BIN:-$BENCH_TOP/build/agent-sandbox}
BENCH_IMAGE=${AGENT_SANDBOX_IMAGE:-localhost/agent-sandbox:dev}
BENCH_RUNS=${BENCH_RUNS:-10}
BENCH_ROOT=${BENCH_ROOT:-$HOME/as-bench}
BENCH_RESULTS=${BENCH_RESULTS:-$BENCH_ROOT/results.tsv}
PODMAN=${PODMAN:-podman}

die() {
    echo "bench: error: $*" >&2
    exit 1
}
log() { echo "bench: $*" >&2; }

# The fake internet's functions (fi_up, fi_down, fi_dns_add) keep their
# files under $AS_E2E_ROOT.
AS_E2E_ROOT=$BENCH_ROOT
# shellcheck source=../tests/e2e/fake-internet.bash
source "$BENCH_TOP/tests/e2e/fake-internet.bash"

bench_check() {
    [ -n "${XDG_RUNTIME_DIR:-}" ] || die "XDG_RUNTIME_DIR is not set: run as the rootless user"
    [ -x "$AGENT_SANDBOX_BIN" ] || die "no CLI at $AGENT_SANDBOX_BIN: run make first"
    $PODMAN image exists "$BENCH_IMAGE" || die "no image $BENCH_IMAGE: run make images first"
    [ "$BENCH_RUNS" -ge 1 ] || die "BENCH_RUNS must be a positive number"
    case $BENCH_ROOT in
        "$HOME"/?*) ;;
        *) die "BENCH_ROOT must be below \$HOME (the CLI launches only from there)" ;;
    esac
    mkdir -p "$BENCH_ROOT"
}

now() { date +%s.%N; }
# elapsed_ms T0 [T1]: milliseconds from T0 to T1 (default: now).
elapsed_ms() { echo "(${2:-$(now)} - $1) * 1000" | bc -l | xargs printf '%.1f\n'; }

###############################################################################
# Results: one line per figure, "M<TAB>MEASURE<TAB>VARIANT<TAB>RUN<TAB>VALUE
# <TAB>UNIT", and one per comparison, "C<TAB>MEASURE<TAB>A<TAB>B<TAB>ratio|diff"
# (bench/report.py pairs A and B run by run).

record() {
    printf 'M\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" >>"$BENCH_RESULTS"
}
compare() {
    printf 'C\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$BENCH_RESULTS"
}
# compare_steps MEASURE ratio|diff: MEASURE of each BENCH_STEPS "OLD>NEW"
# pair, NEW against OLD, round by round (the before and after of one change).
compare_steps() {
    local step
    for step in ${BENCH_STEPS:-}; do
        compare "$1" "${step#*>}" "${step%%>*}" "$2"
    done
}
# note TEXT: a line of context for BENCHMARKS.md (versions, what was checked).
note() {
    printf 'N\t%s\n' "$*" >>"$BENCH_RESULTS"
}

# field TEXT NAME: the number after NAME in "NAME VALUE NAME VALUE..." text.
field() {
    awk -v k="$2" '{for (i = 1; i < NF; i++) if ($i == k) {print $(i + 1); exit}}' <<<"$1"
}

###############################################################################
# Launch directories and the fake internet

# bench_dir: a new launch directory under $BENCH_ROOT (physical path).
bench_dir() {
    local d
    d=$(mktemp -d "$BENCH_ROOT/run-XXXXXXXX") || die "mktemp in $BENCH_ROOT failed"
    (cd "$d" && pwd -P)
}

# bench_rm DIR: remove DIR, also what a sandbox left in it under other ids.
bench_rm() {
    rm -rf "$1" 2>/dev/null || $PODMAN unshare rm -rf "$1"
}

# The bench origin is the fake internet's origin (big.wild.test resolves
# to it through .wild.test) with two locations more.
# shellcheck disable=SC2034  # used by the benchmarks that source this file
BENCH_ORIGIN_NAME=big.wild.test
export FI_ORIGIN_HTTPS_EXTRA='        location = /small { access_log off; return 200 "small\n"; }
        location = /1g { access_log off; default_type application/octet-stream; root /fi/bench; }'

# bench_net_up: the fake internet; exports the session environment
# (AGENT_SANDBOX_EGRESS_NETWORK, _RESOLVER, _ALLOWLIST).
bench_net_up() {
    fi_up
    mkdir -p "$FI_DIR/bench"
    truncate -s 1G "$FI_DIR/bench/1g"
}

# bench_net_down: remove it (in an EXIT trap: no errexit there, every step
# runs).
bench_net_down() {
    set +e
    fi_down
}

# bench_tools DIR: the CA and the client in launch directory DIR.
bench_tools() {
    cp "$FI_DIR/ca.pem" "$BENCH_TOP/bench/netbench.py" "$1/"
}

BENCH_VARIANTS=${BENCH_VARIANTS:-session=$AGENT_SANDBOX_BIN,${AGENT_SANDBOX_ROUTER_IMAGE:-localhost/agent-sandbox-router:dev}}
# variant_names: the names of $BENCH_VARIANTS, one per line.
variant_names() {
    local v
    for v in $BENCH_VARIANTS; do echo "${v%%=*}"; done
}
# first_variant: the first of them, the tree's own (not `variant_names |
# head -1`: with pipefail, the SIGPIPE of the lines head leaves unread can
# end a script under set -e, as it ended a ready.sh of five variants).
first_variant() {
    local v
    for v in $BENCH_VARIANTS; do
        echo "${v%%=*}"
        return 0
    done
}
# variant_cmd NAME: "CLI ROUTER_IMAGE" of variant NAME.
variant_cmd() {
    local v rest
    for v in $BENCH_VARIANTS; do
        [ "${v%%=*}" = "$1" ] || continue
        rest=${v#*=}
        echo "${rest%%,*} ${rest#*,}"
        return 0
    done
    die "no variant $1 in BENCH_VARIANTS"
}

# session VARIANT DIR CMD...: CMD in a session of VARIANT launched from DIR
# (stdout: CMD's; stderr appended to $BENCH_ROOT/sessions.stderr).
session() {
    local bin image dir=$2
    read -r bin image < <(variant_cmd "$1")
    shift 2
    (cd "$dir" && AGENT_SANDBOX_ROUTER_IMAGE=$image exec "$bin" --exec "$@" \
        </dev/null 2>>"$BENCH_ROOT/sessions.stderr")
}

# direct DIR CMD...: CMD in a bare container of the same image, directly on
# the fake internet (its DNS), DIR mounted at the same path as the workdir.
direct() {
    local dir=$1
    shift
    $PODMAN run --rm --network "$FI_NET" --dns "$FI_DNS_IP" -v "$dir:$dir" -w "$dir" \
        "$BENCH_IMAGE" "$@" </dev/null
}

###############################################################################
# Memory of a container's processes

# tree_pids PID: PID and all its descendants.
tree_pids() {
    local p c
    for p in "$@"; do
        echo "$p"
        # shellcheck disable=SC2013  # children holds PIDs separated by blanks
        for c in $(cat /proc/"$p"/task/*/children 2>/dev/null); do tree_pids "$c"; done
    done
}

# container_pid NAME: the host pid of container NAME's first process.
container_pid() {
    $PODMAN inspect --format '{{.State.Pid}}' "$1" 2>/dev/null
}

# make_tree DIR N: a checkout of N empty files, 1,000 to a directory (a
# project's shape more than one flat directory), committed.
make_tree() {
    local dir=$1 n=$2
    [ -f "$dir/.done" ] && return 0
    rm -rf "$dir"
    mkdir -p "$dir"
    log "making a checkout of $n files in $dir"
    python3 - "$dir" "$n" <<'EOF'
import os, sys
top, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(top, "src", "d%04d" % (i // 1000))
    if i % 1000 == 0:
        os.makedirs(d)
    open(os.path.join(d, "f%d.c" % i), "w").close()
EOF
    git -C "$dir" init -q
    git -C "$dir" add -A
    git -C "$dir" -c user.name=bench -c user.email=bench@bench.test commit -qm tree
    git -C "$dir" status --porcelain >/dev/null    # the index's stat data, fresh
    touch "$dir/.done"
}
