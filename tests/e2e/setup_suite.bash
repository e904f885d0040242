# Run once by bats before and after the whole e2e suite.
source "$(dirname "${BASH_SOURCE[0]}")/helpers.bash"
source "$(dirname "${BASH_SOURCE[0]}")/fake-internet.bash"

# Network safety: no test may send anything off the machine. Every session's
# router gets an --internal network as its egress side (no route out of the
# rootless network namespace), and a resolver address on it where nothing
# answers. The egress tests (100-egress-*.bats) replace both with their fake
# internet, another --internal network. The network carries no
# agent-sandbox.session label, so the leak check does not count it.
AS_SUITE_NET_LABEL=agent-sandbox-e2e.egress

# suite_nets_remove_all: remove the suite networks of earlier, aborted runs;
# prints what it removed.
suite_nets_remove_all() {
    local left
    left=$($PODMAN network ls --filter "label=$AS_SUITE_NET_LABEL" --format '{{.Name}}')
    [ -n "$left" ] || return 0
    # shellcheck disable=SC2001  # a prefix on every line
    echo "$left" | sed 's/^/network /'
    # shellcheck disable=SC2086  # $PODMAN splits, as make's $(PODMAN) does
    echo "$left" | xargs -r $PODMAN network rm -f >/dev/null 2>&1
}

# The last usable address of an IPv4 network: podman hands out addresses
# upwards from the first, so no router will ever sit there.
_last_usable() {
    local addr=${1%/*} prefix=${1#*/} a b c d
    IFS=. read -r a b c d <<<"$addr"
    local n=$(((a << 24) | (b << 16) | (c << 8) | d))
    local last=$(((n | ((1 << (32 - prefix)) - 1)) - 1))
    echo "$(((last >> 24) & 255)).$(((last >> 16) & 255)).$(((last >> 8) & 255)).$((last & 255))"
}

# suite_xdg_setup ID: the CLI's config and state directories are the
# suite's own, never the user's (helpers.bash says how podman still finds
# the user's containers config and storage).
suite_xdg_setup() {
    local user_config=${XDG_CONFIG_HOME:-$HOME/.config} name
    AS_SUITE_XDG=$AS_E2E_ROOT/.xdg-$1
    # shellcheck disable=SC2174  # 0700 for the directories named
    mkdir -p -m 0700 "$AS_SUITE_XDG/config" "$AS_SUITE_XDG/state" || return 1
    for name in containers cni; do
        ln -s "$user_config/$name" "$AS_SUITE_XDG/config/$name" || return 1
    done
    # The packaged allowlists, as a first run (of each agent) would copy them
    # (060-user-dirs.bats tests that copy), so that no test depends on being
    # the first.
    mkdir -m 0700 "$AS_SUITE_XDG/config/agent-sandbox" &&
        cp "$AS_TOP/config/allowed-hosts" "$AS_SUITE_XDG/config/agent-sandbox/" &&
        cp -r "$AS_TOP/config/allowed-hosts.d" "$AS_SUITE_XDG/config/agent-sandbox/" || return 1
    # No session of the suite notifies the user's desktop: the notification
    # test turns them on with a private bus of its own (110-egress-live.bats).
    printf 'notifications off\n' >"$AS_SUITE_XDG/config/agent-sandbox/settings" || return 1
    # AS_AGENT=NAME (make e2e E2E_AGENT=NAME): every session runs that
    # agent's profile and image, named in the settings file (docs/agents.md)
    # as a user would; --agent in a test still wins.
    if [ -n "${AS_AGENT:-}" ]; then
        printf 'agent %s\n' "$AS_AGENT" >>"$AS_SUITE_XDG/config/agent-sandbox/settings" || return 1
    fi
    export AS_SUITE_XDG XDG_CONFIG_HOME=$AS_SUITE_XDG/config XDG_STATE_HOME=$AS_SUITE_XDG/state
    # git's global config is the suite's own too (absent unless a test
    # writes it), for host git and for the CLI, which reads it as git does:
    # with GIT_CONFIG_GLOBAL set, no ~/.gitconfig of the user's counts.
    export GIT_CONFIG_GLOBAL=$XDG_CONFIG_HOME/git/config
}

# The suite's own podman service, for the leak check after every test: one
# question over its socket (tests/e2e/podman-labelled) costs milliseconds,
# four podman commands more than a second each time. Without it the leak
# check asks the podman CLI, as before. Its socket is outside the sessions'
# directory, so the leak check never takes it for a session's service.
suite_service_start() {
    local sock=$AS_E2E_ROOT/.suite-podman.sock n
    pkill -u "$(id -u)" -f -- "system service --time 0 unix://$sock" 2>/dev/null || true   # an aborted run's
    rm -f "$sock"
    # its own session (a test's signals are not for it), fd 3 closed (bats
    # waits for whatever holds it)
    # shellcheck disable=SC2086  # $PODMAN splits, as make's $(PODMAN) does
    setsid $PODMAN system service --time 0 "unix://$sock" </dev/null >/dev/null 2>&1 3>&- &
    for ((n = 0; n < 150; n++)); do
        if curl -sf --max-time 2 --unix-socket "$sock" http://podman/_ping >/dev/null 2>&1; then
            export AS_SUITE_PODMAN_SOCK=$sock
            return 0
        fi
        sleep 0.1
    done
    echo "# e2e: the suite's podman service did not answer within 15 s: the leak check asks the podman CLI" >&3
}

suite_service_stop() {
    [ -n "${AS_SUITE_PODMAN_SOCK:-}" ] || return 0
    pkill -u "$(id -u)" -f -- "system service --time 0 unix://$AS_SUITE_PODMAN_SOCK" 2>/dev/null || true
    rm -f "$AS_SUITE_PODMAN_SOCK"
    unset AS_SUITE_PODMAN_SOCK
}

setup_suite() {
    [ -n "${XDG_RUNTIME_DIR:-}" ] || { echo "XDG_RUNTIME_DIR is not set" >&2; return 1; }
    mkdir -p "$AS_E2E_ROOT"
    suite_service_start
    # The suite's sessions are those launched under here (helpers.bash, "Leak
    # check"); the CLI's `ps` and `stop --all` see only them.
    AS_TEST_ROOT=$(cd "$AS_E2E_ROOT" && pwd -P) || return 1
    export AS_TEST_ROOT AGENT_SANDBOX_TEST_ROOT=$AS_TEST_ROOT
    # What carries a session ID now is the user's (their sessions, their
    # leftovers), except what an earlier run of the suite left.
    AS_BASELINE_IDS=$(comm -23 <(_all_session_ids | grep -E '^[0-9a-f]{12}$' | sort -u) \
        <(suite_session_dirs | sed 's|.*/||' | sort -u) | xargs)
    export AS_BASELINE_IDS
    # Leftovers of an earlier, aborted run would fail the first test.
    if ! leak_check "before the suite (by an earlier run)" 2>"$AS_E2E_ROOT/.pre-leaks"; then
        sed 's/^/# /' "$AS_E2E_ROOT/.pre-leaks" >&3
    fi
    rm -f "$AS_E2E_ROOT/.pre-leaks"
    local stale
    stale=$(fi_remove_all; suite_nets_remove_all)
    # shellcheck disable=SC2001  # a prefix on every line
    [ -z "$stale" ] || printf '# removed what an earlier run of the suite left:\n%s\n' "$(sed 's/^/#   /' <<<"$stale")" >&3

    local id net subnet
    id=$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')
    net=as-e2e-egress-$id
    $PODMAN network create --internal --disable-dns --label "$AS_SUITE_NET_LABEL=$id" "$net" >/dev/null ||
        { echo "creating the suite's egress network $net failed" >&2; return 1; }
    subnet=$($PODMAN network inspect "$net" --format '{{range .Subnets}}{{.Subnet}} {{end}}')
    subnet=${subnet%% *}
    if [[ ! $subnet =~ ^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+/([0-9]+)$ ]] || [ "${BASH_REMATCH[1]}" -gt 30 ]; then
        echo "the suite's egress network $net has no usable IPv4 subnet ('$subnet')" >&2
        $PODMAN network rm -f "$net" >/dev/null
        return 1
    fi
    # The agents' home volume is the suite's own, not the user's.
    export AGENT_SANDBOX_HOME_VOLUME=as-e2e-home-$id
    suite_xdg_setup "$id" || return 1
    export AS_SUITE_EGRESS_NETWORK=$net
    export AGENT_SANDBOX_EGRESS_NETWORK=$net
    AGENT_SANDBOX_RESOLVER=$(_last_usable "$subnet")
    export AGENT_SANDBOX_RESOLVER
    echo "# e2e: $AGENT_SANDBOX_BIN ($("$AGENT_SANDBOX_BIN" --version 2>&1 | head -1)), $($PODMAN --version)" >&3
    echo "# e2e: agent ${AS_AGENT:-claude (the default)}" >&3
    echo "# e2e: routers' egress network $net ($subnet, --internal), resolver $AGENT_SANDBOX_RESOLVER (nothing answers)" >&3
}

teardown_suite() {
    local rc=0 left
    suite_service_stop
    if [ -n "${AS_SUITE_EGRESS_NETWORK:-}" ]; then
        $PODMAN network rm -f "$AS_SUITE_EGRESS_NETWORK" >/dev/null 2>&1
    fi
    if [ -n "${AGENT_SANDBOX_HOME_VOLUME:-}" ]; then
        $PODMAN volume rm -f "$AGENT_SANDBOX_HOME_VOLUME" >/dev/null 2>&1
    fi
    left=$($PODMAN network ls --filter "label=$AS_SUITE_NET_LABEL" --format 'network {{.Name}}'; fi_leftovers)
    if [ -n "$left" ]; then
        # shellcheck disable=SC2001  # a prefix on every line
        printf '# left at the end of the suite (now removed):\n%s\n' "$(sed 's/^/#   /' <<<"$left")" >&2
        fi_remove_all >/dev/null
        suite_nets_remove_all >/dev/null
        rc=1
    fi
    [ -n "${AS_SUITE_XDG:-}" ] && rm -rf "$AS_SUITE_XDG"
    rmdir "$AS_E2E_ROOT" 2>/dev/null || true
    return $rc
}
