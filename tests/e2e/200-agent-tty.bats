#!/usr/bin/env bats
# An interactive `agent-sandbox --exec bash` in a real terminal: a tmux pane,
# driven with send-keys and read with capture-pane.

load helpers

setup() {
    as_setup
    AS_HOME_VOLUME=as-e2e-home-$(basename "$AS_DIR" | tr 'A-Z' 'a-z')
    export AGENT_SANDBOX_HOME_VOLUME=$AS_HOME_VOLUME
    # A tmux server of this test alone, without any user configuration.
    AS_TMUX=(tmux -L "as-e2e-$(basename "$AS_DIR")" -f /dev/null)
}

teardown() {
    local rc=0 n
    # A CLI still running in the pane gets SIGHUP and tears down.
    "${AS_TMUX[@]}" kill-server >/dev/null 2>&1 || true
    for ((n = 0; n < 200; n++)); do
        pgrep -u "$(id -u)" -f -- "^$AGENT_SANDBOX_BIN --exec bash" >/dev/null || break
        sleep 0.1
    done
    as_teardown || rc=1
    $PODMAN volume rm -f "$AS_HOME_VOLUME" >/dev/null 2>&1 || true
    return $rc
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

@test "--exec bash in tmux: a prompt, the window size follows, exit 7 gives 7, the terminal is restored" {
    "${AS_TMUX[@]}" new-session -d -s as -x 80 -y 24 \
        "cd '$AS_DIR' && exec env PS1='host\$ ' bash --norc --noprofile -i"
    wait_pane '^host\$$' 10
    keys "stty -g >'$AS_RUN_DIR/stty.before'; clear"
    wait_pane '^host\$$' 10

    keys "'$AGENT_SANDBOX_BIN' --exec bash"
    # The image's bash prompt: user@hostname:directory$
    wait_pane "@agent-sandbox-[0-9a-f]{12}:.*\\\$\$" 60

    keys "stty size"
    wait_pane '^24 80$' 10

    "${AS_TMUX[@]}" resize-window -t as -x 100 -y 30
    local n found=
    for ((n = 0; n < 20; n++)); do
        keys "clear; stty size"
        sleep 0.5
        if pane | grep -q '^30 100$'; then found=1; break; fi
    done
    [ -n "$found" ] || die "stty size did not follow the resize to 30x100:"$'\n'"$(pane)"

    keys "exit 7"
    wait_pane '^host\$$' 30
    keys "echo \"status=\$?\"; stty -g >'$AS_RUN_DIR/stty.after'"
    wait_pane '^status=7$' 10
    wait_pane '^host\$$' 10

    # The host terminal's settings are exactly as before (not raw, echo on).
    local n2
    for ((n2 = 0; n2 < 50; n2++)); do [ -s "$AS_RUN_DIR/stty.after" ] && break; sleep 0.1; done
    assert "$(cat "$AS_RUN_DIR/stty.after")" == "$(cat "$AS_RUN_DIR/stty.before")" "stty -g after the session"
    keys "stty -a | tr ' ;' '\\n\\n' | grep -x -e icanon -e echo -e -icanon -e -echo | sort | xargs"
    wait_pane '^echo icanon$' 10
}
