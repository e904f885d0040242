#!/usr/bin/env bats
# An interactive `agent-sandbox --exec bash` in a real terminal: a tmux pane,
# driven with send-keys and read with capture-pane.

load helpers
load tmux

setup() {
    as_setup
    home_volume_setup
    tmux_setup
}

teardown() {
    local rc=0
    tmux_teardown "^$AGENT_SANDBOX_BIN --exec bash" || rc=1
    as_teardown || rc=1
    home_volume_teardown
    return $rc
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
