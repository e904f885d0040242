#!/usr/bin/env bats
# The completions (completions/, issue 15), each in its real shell on a
# real terminal (tmux), loaded from where `make install` and the RPM put
# them, the way each shell finds them there: bash through bash-completion's
# loader, zsh through compinit and fpath, fish through XDG_DATA_DIRS. Each
# completes the commands, their options and the running sessions' IDs.

load helpers
load tmux

setup() {
    as_setup
    tmux_setup
    # the installed layout (Makefile: COMPLETIONS_*), under a share/ of the test's own
    SHARE=$AS_RUN_DIR/share
    install -D -m 0644 "$AS_TOP/completions/agent-sandbox.bash" "$SHARE/bash-completion/completions/agent-sandbox"
    install -D -m 0644 "$AS_TOP/completions/_agent-sandbox" "$SHARE/zsh/site-functions/_agent-sandbox"
    install -D -m 0644 "$AS_TOP/completions/agent-sandbox.fish" "$SHARE/fish/vendor_completions.d/agent-sandbox.fish"
    # `agent-sandbox` on PATH, as installed
    mkdir -p "$AS_RUN_DIR/bin" "$AS_RUN_DIR/home"
    ln -s "$AGENT_SANDBOX_BIN" "$AS_RUN_DIR/bin/agent-sandbox"
}

teardown() {
    "${AS_TMUX[@]}" kill-server >/dev/null 2>&1 || true
    # a failed test's sessions end as stop ends them, not by SIGKILL
    "$AGENT_SANDBOX_BIN" stop --all >/dev/null 2>&1 || true
    as_teardown
}

# shell_start SHELL...: the shell in the test's terminal, with a clean
# environment: the session directories of the suite, and nothing of the
# user's shell set-up.
shell_start() {
    "${AS_TMUX[@]}" new-session -d -s as -x 200 -y 50 \
        env -i HOME="$AS_RUN_DIR/home" PATH="$AS_RUN_DIR/bin:/usr/bin:/bin" TERM=xterm \
        XDG_RUNTIME_DIR="$XDG_RUNTIME_DIR" XDG_DATA_DIRS="$SHARE:/usr/share" \
        BASH_COMPLETION_USER_DIR="$SHARE/bash-completion" "$@"
    sleep 1
}

# complete_line TEXT [ERE...]: type TEXT and Tab (twice: bash lists on the
# second), then the pane in PANE, once it shows every ERE and has stopped
# changing (at most 5 s: the caller's assertions then say what is missing);
# the line is cleared afterwards.
complete_line() {
    local text=$1 re prev='' n
    shift
    "${AS_TMUX[@]}" send-keys -t as -l "$text"
    "${AS_TMUX[@]}" send-keys -t as Tab
    sleep 0.5
    "${AS_TMUX[@]}" send-keys -t as Tab
    for ((n = 0; n < 25; n++)); do
        sleep 0.2
        PANE=$(pane)
        [ "$PANE" = "$prev" ] || { prev=$PANE; continue; }
        for re in "$@"; do grep -Eq -- "$re" <<<"$PANE" || continue 2; done
        break
    done
    "${AS_TMUX[@]}" send-keys -t as C-u
    "${AS_TMUX[@]}" send-keys -t as C-l
    sleep 0.3
}

# completes SHELL...: the checks every shell must pass, with one session
# running (its ID is $SID).
completes() {
    complete_line "agent-sandbox sto" "agent-sandbox stop([[:space:]]|$)"
    assert "$PANE" =~ "agent-sandbox stop([[:space:]]|$)" "$1: a command, completed"
    complete_line "agent-sandbox d" deny doctor
    assert "$PANE" contains "deny" "$1: the commands on d"
    assert "$PANE" contains "doctor" "$1: the commands on d"
    complete_line "agent-sandbox ps --j" "agent-sandbox ps --json"
    assert "$PANE" =~ "agent-sandbox ps --json" "$1: a command's option"
    complete_line "agent-sandbox --agent cod" "agent-sandbox --agent codex"
    assert "$PANE" =~ "agent-sandbox --agent codex" "$1: an agent's name"
    complete_line "agent-sandbox stop " "agent-sandbox stop $SID"
    assert "$PANE" =~ "agent-sandbox stop $SID" "$1: the running session's ID"
    complete_line "agent-sandbox log ${SID:0:3}" "agent-sandbox log $SID"
    assert "$PANE" =~ "agent-sandbox log $SID" "$1: the ID from its start"
}

start_session() {
    bg_start agent-sandbox --memory none --exec sh -c 'touch .running; exec sleep 100000'
    wait_for_file "$AS_DIR/.running" 120
    run_x 0 agent-sandbox ps -q
    SID=$output
}

end_session() {
    run_x 0 agent-sandbox stop "$SID"
    bg_wait 30
}

@test "bash: the completion loads through bash-completion, and completes commands, options and session IDs" {
    command -v bash >/dev/null && [ -r /usr/share/bash-completion/bash_completion ] ||
        die "bash-completion is missing (scripts/setup-host.sh installs it)"
    start_session
    shell_start bash --norc --noprofile -i
    keys "source /usr/share/bash-completion/bash_completion; PS1='$ '"
    completes bash
    # loaded on demand, by its installed name
    keys "complete -p agent-sandbox"
    wait_pane "^complete -F _agent_sandbox agent-sandbox$"
    end_session
}

@test "zsh: the completion loads through compinit and fpath, and completes commands, options and session IDs" {
    command -v zsh >/dev/null || die "zsh is missing (scripts/setup-host.sh installs it)"
    start_session
    shell_start zsh -f -i
    keys "fpath=($SHARE/zsh/site-functions \$fpath); autoload -Uz compinit; compinit -u -D; PS1='$ '"
    # compinit takes seconds on a loaded host: keys typed before its prompt are lost to it
    wait_pane '^\$ ?$'
    completes zsh
    keys 'print -r -- "loaded: $_comps[agent-sandbox]"'
    wait_pane "^loaded: _agent-sandbox$"
    end_session
}

@test "fish: the completion loads from vendor_completions.d, and completes commands, options and session IDs" {
    command -v fish >/dev/null || die "fish is missing (scripts/setup-host.sh installs it)"
    start_session
    shell_start fish
    keys "function fish_prompt; echo '$ '; end; set -g fish_greeting"
    completes fish
    # fish's own engine, outside the terminal: every command, with its description
    run_x 0 env -i HOME="$AS_RUN_DIR/home" PATH="$AS_RUN_DIR/bin:/usr/bin:/bin" XDG_DATA_DIRS="$SHARE:/usr/share" \
        XDG_RUNTIME_DIR="$XDG_RUNTIME_DIR" AGENT_SANDBOX_TEST_ROOT="$AGENT_SANDBOX_TEST_ROOT" \
        fish -c 'complete -C"agent-sandbox "'
    local cmd
    for cmd in ps stop doctor verify cleanup allow deny log; do
        grep -q "^$cmd"$'\t' <<<"$output" || die "fish does not complete $cmd"
    done
    end_session
}

@test "the completions offer every command of --help, and the agents whose images can be built" {
    run_x 0 agent-sandbox --help
    local cmd agents
    agents=$(for pin in "$AS_TOP"/sandbox-image/agents/*.version; do
        grep -q '^blocked' "$pin" || basename "$pin" .version; done | xargs)
    for file in "$AS_TOP"/completions/*; do
        # shellcheck disable=SC2013  # one name a line
        for cmd in $(sed -n '/^commands:/,/^$/p' <<<"$output" | sed -n 's/^  \([a-z][-a-z]*\) .*/\1/p'); do
            grep -qw -- "$cmd" "$file" || die "$file does not offer $cmd"
        done
        grep -qF -- "$agents" "$file" || die "$file does not list the agents $agents"
    done
}
