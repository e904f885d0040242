#!/usr/bin/env bats
# agent-sandbox --exec as a Unix filter in scripts and pipelines (issue 17):
# closed standard descriptors, a reader or a writer that goes away, write
# errors, the shell's 126/127, and the exit-code table the CLI documents.
# --memory none keeps stderr free of the cgroup v1 note and a named allowlist
# free of the first-run note, so that "nothing on stderr" can be checked.

load helpers

# The packaged allowlist, named: no first-run note on stderr either.
setup() {
    as_setup
    export AGENT_SANDBOX_ALLOWLIST=$AS_TOP/config/allowed-hosts
}

# run_redirected STATUS REDIRECTIONS CMD...: runs the CLI (the word
# agent-sandbox replaced) with the given bash redirections instead of run_x's,
# stdout and stderr to $AS_RUN_DIR/{out,err} unless redirected there; sets
# $status, $output and $stderr and checks STATUS like run_x.
run_redirected() {
    local expected=$1 redir=$2
    shift 2
    local cmd=("$@") i
    for i in "${!cmd[@]}"; do
        [ "${cmd[$i]}" = agent-sandbox ] && cmd[i]=$AGENT_SANDBOX_BIN
    done
    echo "\$ $* $redir"
    status=0
    eval 'timeout --kill-after=5 30 "${cmd[@]}" >"$AS_RUN_DIR/out" 2>"$AS_RUN_DIR/err" '"$redir" || status=$?
    output=$(<"$AS_RUN_DIR/out")
    stderr=$(<"$AS_RUN_DIR/err")
    [ -n "$output" ] && printf '%s\n' "$output"
    [ -n "$stderr" ] && printf '%s\n' "$stderr" | sed 's/^/[stderr] /'
    echo "[exit $status]"
    check_sanitizer "$AS_RUN_DIR/err"
    [ "$status" = "$expected" ] || die "exit status $status, expected $expected: $* $redir"
}

@test "bug 1: a closed stdin reads as empty, and the session ends" {
    run_redirected 0 '<&-' agent-sandbox --memory none --exec sh -c 'cat; echo after-eof'
    assert "$output" == after-eof "the agent saw end-of-file and went on"
    assert "$stderr" == "" "stderr"
}

@test "bug 1: a closed stdout or stderr: the other stream and the exit status are intact" {
    run_redirected 5 '<&- >&-' agent-sandbox --memory none --exec sh -c 'cat; echo out; echo err >&2; exit 5'
    assert "$stderr" == err "stderr, with stdin and stdout closed"
    run_redirected 5 '>&-' agent-sandbox --memory none --exec sh -c 'echo out; echo err >&2; exit 5'
    assert "$stderr" == err "stderr, with stdout closed"
    run_redirected 0 '2>&-' agent-sandbox --memory none --exec sh -c 'echo out; echo err >&2'
    assert "$output" == out "stdout, with stderr closed"
}

@test "bug 2: an agent that stops reading its stdin keeps its exit status and output, and nothing of podman's shows" {
    run_redirected 0 '< <(seq 100000)' agent-sandbox --memory none --exec head -n1
    assert "$output" == 1
    assert "$stderr" == "" "stderr"
    run_redirected 3 '< <(seq 1000000)' agent-sandbox --memory none --exec sh -c 'exec 0<&-; sleep 1; echo after; exit 3'
    assert "$output" == after "output written after stdin was closed"
    assert "$stderr" == "" "stderr"
}

@test "bug 3: a reader that goes away ends the session within 2 s, with 141 or 0, and nothing is left" {
    { local rc=0
      timeout 30 "$AGENT_SANDBOX_BIN" --memory none --exec yes 2>"$AS_RUN_DIR/err" || rc=$?
      echo "$rc" >"$AS_RUN_DIR/rc"
      date +%s%N >"$AS_RUN_DIR/t_cli"
    } | { head -1 >"$AS_RUN_DIR/out"; date +%s%N >"$AS_RUN_DIR/t_head"; }
    cat "$AS_RUN_DIR/err"
    check_sanitizer "$AS_RUN_DIR/err"
    local rc ms
    rc=$(<"$AS_RUN_DIR/rc")
    ms=$((($(<"$AS_RUN_DIR/t_cli") - $(<"$AS_RUN_DIR/t_head")) / 1000000))
    echo "exit $rc, ended $ms ms after the reader"
    assert "$(<"$AS_RUN_DIR/out")" == y "what the reader got"
    [[ $rc == 141 || $rc == 0 ]] || die "exit status $rc, expected 141 (SIGPIPE) or 0"
    [ "$ms" -lt 2000 ] || die "the CLI ended $ms ms after its reader, not within 2 s"
    assert "$(<"$AS_RUN_DIR/err")" == "" "stderr"
}

@test "bug 4: an output that cannot be written is reported, naming the error, with exit 74" {
    run_redirected "$EX_OUTPUT" '>/dev/full' agent-sandbox --memory none --exec echo hello
    assert "$stderr" contains "writing the agent's output to stdout failed: No space left on device"
    # what the CLI prints itself, too
    run_redirected "$EX_OUTPUT" '>/dev/full' agent-sandbox --help
    assert "$stderr" == "agent-sandbox: error: writing to stdout: No space left on device"
    # a long writer is stopped, not left to run
    run_redirected "$EX_OUTPUT" '>/dev/full' agent-sandbox --memory none --exec sh -c 'trap "" PIPE TERM; yes'
    assert "$stderr" contains "No space left on device; the agent was stopped"
}

@test "bug 5: a missing command gives 127 and a non-executable one 126, naming the command" {
    run_x "$EX_NOT_FOUND" agent-sandbox --memory none --exec no-such-command-here
    assert "$stderr" == "agent-sandbox: error: cannot run no-such-command-here in the sandbox: No such file or directory (no such command on the image's PATH or in the launch directory)"
    printf 'echo hi\n' >not-executable
    run_x "$EX_NOT_EXEC" agent-sandbox --memory none --exec ./not-executable
    assert "$stderr" == "agent-sandbox: error: cannot run ./not-executable in the sandbox: Permission denied"
    run_x "$EX_NOT_EXEC" agent-sandbox --memory none --exec /etc
    assert "$stderr" contains "cannot run /etc in the sandbox: Permission denied"
    # a command that ran and printed the same line keeps its line and status
    run_x 2 agent-sandbox --memory none --exec sh -c 'echo "ERROR (catatonit:9): failed to exec pid1: No such file or directory" >&2; exit 2'
    assert "$stderr" == "ERROR (catatonit:9): failed to exec pid1: No such file or directory"
}

@test "the exit codes in docs/usage.md, in --help and in cmd/shared/cli.h are the same" {
    local readme help enum
    readme=$(sed -n '/^## Exit codes/,$p' "$AS_TOP/docs/usage.md" | grep -oE '^\| [0-9]+(\+N)? ' | tr -d '| ' | sort -u | xargs)
    run_x 0 agent-sandbox --help
    help=$(sed -n '/^exit status:/,$p' <<<"$output" | grep -oE '^ +[0-9]+(\+N)? ' | tr -d ' ' | sort -u | xargs)
    enum=$(sed -n '/^enum {/,/^};/p' "$AS_TOP/cmd/shared/cli.h" | grep -oE '= [0-9]+,' | tr -dc '0-9\n' | sort -u | xargs)
    assert "$readme" == "$help" "docs/usage.md's codes vs --help's"
    # shellcheck disable=SC2086  # the codes, one word each
    assert "$readme" == "$(echo $enum 128+N | tr ' ' '\n' | sort -u | xargs)" "docs/usage.md's codes vs the CLI's enum (and 128+N)"
    # and the codes the e2e tests name
    local code
    for code in $EX_USAGE $EX_CONFIG $EX_NOIMAGE $EX_SERVICE $EX_SOFTWARE $EX_SETUP $EX_OUTPUT \
                $EX_SERVICE_LOST $EX_REMOVED $EX_REFUSED $EX_NOT_EXEC $EX_NOT_FOUND; do
        [[ " $readme " == *" $code "* ]] || die "exit code $code of tests/e2e/helpers.bash is not in docs/usage.md"
    done
}
