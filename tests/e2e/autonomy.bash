# The agent's mode as its container runs it (docs/agents.md, "Autonomy"):
# used by 210-agents.bats and 215-agent-autonomy.bats.

# agent_args: the command line of the session's agent, as soon as it runs
# (Claude Code, offline, ends by itself soon after its first screen);
# "" when none ran within 60 s.
agent_args() {
    local agent n args
    for ((n = 0; n < 600; n++)); do
        agent=$($PODMAN ps --filter label=agent-sandbox.session --format '{{.Names}}' | grep -e '-agent$' || true)
        if [ -n "$agent" ]; then
            args=$($PODMAN top "$agent" args 2>/dev/null | sed 1d | grep -v -e '^/run/podman-init' -e '^catatonit' | head -1 || true)
            if [ -n "$args" ]; then echo "$args"; return 0; fi
        fi
        sleep 0.1
    done
}

# agent_has_autonomy NAME yes|no: the running agent's command line holds
# every word of NAME's autonomy-args (yes), or none of them (no).
agent_has_autonomy() {
    local args word
    args=$(agent_args)
    echo "# $1's command line: $args" >&3
    [ -n "$args" ] || die "no agent of $1 ran"
    # shellcheck disable=SC2013  # words: autonomy-args is one line of them
    for word in $(sed -n 's/^autonomy-args[[:space:]]*//p' "$AS_TOP/config/agents/$1"); do
        if [ "$2" = yes ]; then
            assert " $args " contains " $word " "$1's unattended mode"
        else
            assert " $args " !contains " $word " "$1's default mode"
        fi
    done
}
