# A real terminal for the tests: a tmux server of the test alone (no user
# configuration), driven with send-keys and read with capture-pane. Used by
# the files that need a TTY (200-agent-tty.bats, 210-agents.bats).

# tmux_setup: AS_TMUX, the tmux command of this test's own server.
tmux_setup() {
    AS_TMUX=(tmux -L "as-e2e-$(basename "$AS_DIR")" -f /dev/null)
}

# tmux_teardown PATTERN: end the server, as closing a terminal window does;
# a CLI still running in the pane gets SIGHUP, passes it on to the agent and
# tears down. Fails if a process of this user still matches PATTERN
# (pgrep -f) after 20 s.
tmux_teardown() {
    local n
    "${AS_TMUX[@]}" kill-server >/dev/null 2>&1 || true
    for ((n = 0; n < 200; n++)); do
        pgrep -u "$(id -u)" -f -- "$1" >/dev/null || return 0
        sleep 0.1
    done
    die "still running 20 s after its terminal closed: $(pgrep -a -u "$(id -u)" -f -- "$1")"
}

# pane: the visible text of the pane (tmux drops trailing blanks of each
# line), trailing blank lines dropped.
pane() {
    "${AS_TMUX[@]}" capture-pane -p -t as | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
}

# keys TEXT: type TEXT and Enter.
keys() {
    "${AS_TMUX[@]}" send-keys -t as -l "$1"
    "${AS_TMUX[@]}" send-keys -t as Enter
}

# wait_pane REGEX [SECS]: until a line of the pane matches REGEX (grep -E).
wait_pane() {
    local re=$1 secs=${2:-30} n
    for ((n = 0; n < secs * 10; n++)); do
        pane | grep -Eq -- "$re" && return 0
        sleep 0.1
    done
    die "the pane shows no line matching /$re/ after ${secs}s:"$'\n'"$(pane)"
}
