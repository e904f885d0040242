#!/usr/bin/env bats
# The CLI's own surface: version, usage and its errors, and how the options
# of a session parse (one table, cmd/run_options.c). No sandbox is started:
# --dry-run starts the private service and prints the plan, nothing more.

load helpers

@test "--version prints the name and the VERSION file's version first" {
    run_x 0 agent-sandbox --version
    assert "${lines[0]}" == "agent-sandbox $(<"$AS_TOP/VERSION")"
}

@test "--exec without a command is a usage error (64)" {
    run_x "$EX_USAGE" agent-sandbox --exec
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" contains "--exec" "the error names the option"
}

@test "an option without its value is a usage error that names it (64)" {
    local opt
    for opt in --env:NAME[=VALUE] --memory:SIZE --pids:N --cpus:N; do
        run_x "$EX_USAGE" agent-sandbox --dry-run "${opt%%:*}"
        assert "$stderr" == "agent-sandbox: error: ${opt%%:*} needs ${opt#*:}"
    done
    run_x "$EX_USAGE" agent-sandbox --env 1BAD --exec true
    assert "$stderr" contains "--env 1BAD: expected NAME or NAME=VALUE"
    run_x "$EX_USAGE" agent-sandbox --env=A-B=1 --exec true
    assert "$stderr" contains "--env A-B=1: expected NAME or NAME=VALUE"
    run_x "$EX_USAGE" env -u AS_SURELY_UNSET agent-sandbox --env AS_SURELY_UNSET --exec true
    assert "$stderr" contains "--env AS_SURELY_UNSET: not set in your environment"
}

@test "--help and -h win over a malformed option before them, and end the options" {
    local args
    for args in "--help" "-h" "--env 1BAD --help" "--memory 8G -h --bogus" "--version --help"; do
        # shellcheck disable=SC2086
        run_x 0 agent-sandbox $args
        if [ "$args" = "--version --help" ]; then
            assert "${lines[0]}" == "agent-sandbox $(<"$AS_TOP/VERSION")" "the first of the two wins"
        else
            assert "${lines[0]}" == "usage: agent-sandbox [OPTIONS] [--] [AGENT ARGS...]" "$args"
        fi
    done
    # after the first non-option, --help is Claude's
    run_x 0 agent-sandbox --dry-run --continue --help
    assert "$output" contains "  command: claude --continue --help"
}

@test "the options in --help and in docs/usage.md are the same (one table)" {
    local readme help
    readme=$(sed -n '/^| option | meaning |/,/^$/p' "$AS_TOP/docs/usage.md" | grep -oE -- '`-[-a-z]+' | tr -d '`' | sort -u | xargs)
    run_x 0 agent-sandbox --help
    help=$(sed -n '/^options:/,/^$/p' <<<"$output" | grep -oE -- '(^  |, )-[-a-z]+' | sed 's/^[ ,]*//' | sort -u | xargs)
    assert "$help" == "$readme" "--help's options vs docs/usage.md's"
    assert "$help" contains "--exec" "the table is not empty"
}

@test "options parse into the plan: --env forms, NAME=VALUE inline, Claude's arguments, --" {
    run_x 0 env AS_FROM_HOST=secret agent-sandbox --env A=1 --env=B=x=y --env AS_FROM_HOST \
        --memory=none --pids 128 --cpus none --dry-run --continue -p 'two words'
    assert "$output" contains "  command: claude --continue -p two words"
    assert "$output" =~ "  env: +DISABLE_AUTOUPDATER CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC DISABLE_TELEMETRY DISABLE_ERROR_REPORTING A B AS_FROM_HOST( |$)" \
        "Claude Code's profile's variables, then the --env names, in order"
    assert "$output" contains "processes 128"
    assert "$output" !contains "secret" "values are not printed"
    # memory and CPU limits, where this host enforces them (else refused:
    # 070-sessions.bats)
    if host_enforces_limits; then
        run_x 0 agent-sandbox --memory=1G --cpus=0.5 --dry-run
        assert "$output" contains "memory 1024 MiB"
        assert "$output" contains "CPU 0.500"
    fi
    # -- ends the options: the rest is Claude's, options included
    run_x 0 agent-sandbox --dry-run -- --dry-run --memory 1G
    assert "$output" contains "  command: claude --dry-run --memory 1G"
    # an option the CLI does not know is Claude's, and so is all after it
    run_x 0 agent-sandbox --dry-run --model opus --env X=1
    assert "$output" contains "  command: claude --model opus --env X=1"
    # --exec takes the rest as the command, options included
    run_x 0 agent-sandbox --dry-run --exec --env X=1
    assert "$output" contains "  command: --env X=1"
}
