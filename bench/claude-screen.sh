#!/usr/bin/env bash
# Time to Claude Code's first screen: in tmux, from the start of the command
# until the pane shows "Claude Code" (its welcome or main screen), for
# `agent-sandbox` against `podman run --rm -it --network none` of the same
# image running the same binary (no network: nothing of it may leave the
# machine; the session's names get NXDOMAIN from its router). Interleaved
# round by round. The sessions use a home volume of their own, removed
# afterwards.
#
#   bench/claude-screen.sh     (as the rootless user; see bench/lib.bash)
set -euo pipefail
source "$(dirname "$0")/lib.bash"

TMUX_SESSION=as-bench-$$
# a tmux server of its own, started with this environment (the fake
# internet's variables); it ends with its last session
tmux() { command tmux -L "$TMUX_SESSION" "$@"; }
MARKER='Claude Code'
export AGENT_SANDBOX_HOME_VOLUME=as-bench-home-$$

# first_screen VARIANT RUN DIR CMD...: CMD in a new tmux window of 100x30;
# records the seconds until MARKER shows (run 0: a warm-up, not recorded),
# then ends CMD (SIGTERM) and waits until it has exited.
first_screen() {
    local variant=$1 run=$2 dir=$3 t0 t1='' pid n cmd
    shift 3
    printf -v cmd '%q ' "$@"
    t0=$(now)
    tmux new-session -d -s "$TMUX_SESSION" -x 100 -y 30 -c "$dir" "exec $cmd"
    pid=$(tmux display-message -p -t "$TMUX_SESSION" '#{pane_pid}')
    for ((n = 0; n < 3000; n++)); do
        if tmux capture-pane -p -t "$TMUX_SESSION" 2>/dev/null | grep -q "$MARKER"; then
            t1=$(now)
            break
        fi
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.01
    done
    [ -n "$t1" ] || die "$variant (run $run): no \"$MARKER\" on the screen: $(tmux capture-pane -p -t "$TMUX_SESSION" 2>/dev/null | grep -v '^ *$' | tail -n 5)"
    [ "$run" = 0 ] || record first-screen "$variant" "$run" "$(echo "$t1 - $t0" | bc -l | xargs printf '%.3f')" s
    kill -TERM "$pid" 2>/dev/null || true
    for ((n = 0; n < 600; n++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    tmux kill-session -t "$TMUX_SESSION" 2>/dev/null || true
}

main() {
    bench_check
    command -v tmux >/dev/null || die "tmux is not installed"
    bench_net_up
    trap 'set +e; tmux kill-session -t "$TMUX_SESSION" 2>/dev/null; $PODMAN volume rm -f "$AGENT_SANDBOX_HOME_VOLUME" >/dev/null 2>&1; bench_net_down' EXIT
    local d run name bin image
    d=$(bench_dir)
    local version
    version=$($PODMAN run --rm --network none "$BENCH_IMAGE" claude --version) || die "claude --version failed in $BENCH_IMAGE"
    note "Claude Code $version in $BENCH_IMAGE"
    # warm-up, not recorded
    for name in $(variant_names); do
        read -r bin image < <(variant_cmd "$name")
        first_screen warm-up 0 "$d" env AGENT_SANDBOX_ROUTER_IMAGE="$image" "$bin"
    done
    # shellcheck disable=SC2086  # $PODMAN is a command line, split as make splits $(PODMAN)
    first_screen warm-up 0 "$d" $PODMAN run --rm -it --network none "$BENCH_IMAGE" claude
    log "first screen: $BENCH_RUNS rounds of: $(variant_names | xargs), podman run --rm -it"
    for ((run = 1; run <= BENCH_RUNS; run++)); do
        for name in $(variant_names); do
            read -r bin image < <(variant_cmd "$name")
            first_screen "$name" "$run" "$d" env AGENT_SANDBOX_ROUTER_IMAGE="$image" "$bin"
        done
        # shellcheck disable=SC2086  # $PODMAN is a command line, split as make splits $(PODMAN)
        first_screen "podman run --rm -it" "$run" "$d" $PODMAN run --rm -it --network none "$BENCH_IMAGE" claude
    done
    bench_rm "$d"
    local first
    first=$(first_variant)
    for name in $(variant_names); do
        [ "$name" = "$first" ] || compare first-screen "$name" "$first" diff
        compare first-screen "$name" "podman run --rm -it" diff
        compare first-screen "$name" "podman run --rm -it" ratio
    done
    compare_steps first-screen diff
}

main "$@"; exit
