#!/usr/bin/env bats
# The CLI's own surface: version, usage and its errors, and how the options
# of a session parse (one table, cmd/run/run_options.c). No sandbox is started:
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
    assert "$output" contains "  command: claude --dangerously-skip-permissions --continue --help"
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
    assert "$output" contains "  command: claude --dangerously-skip-permissions --continue -p two words"
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
    assert "$output" contains "  command: claude --dangerously-skip-permissions --dry-run --memory 1G"
    # an option the CLI does not know is Claude's, and so is all after it
    run_x 0 agent-sandbox --dry-run --model opus --env X=1
    assert "$output" contains "  command: claude --dangerously-skip-permissions --model opus --env X=1"
    # --exec takes the rest as the command, options included
    run_x 0 agent-sandbox --dry-run --exec --env X=1
    assert "$output" contains "  command: --env X=1"
}

# refused ARGS...: a typo is refused with exit 64 and one line, before
# anything of podman starts: no API call in the trace, no session directory.
refused() {
    local expect=$1
    shift
    local before
    before=$(find "$AS_SESSIONS_DIR" -mindepth 1 -maxdepth 1 2>/dev/null | sort)
    run_x "$EX_USAGE" env AGENT_SANDBOX_TRACE=1 "$AGENT_SANDBOX_BIN" "$@"
    assert "$stderr" == "agent-sandbox: error: $expect" "$*"
    assert "$output" == "" "$*: nothing on stdout"
    assert "$(find "$AS_SESSIONS_DIR" -mindepth 1 -maxdepth 1 2>/dev/null | sort)" == "$before" "$*: no session directory"
}

@test "typos before --: a word near an option or command of ours is refused (64), with no podman started" {
    local hint='(to pass it to the agent, put it after --)'
    refused "unknown option --exex; did you mean --exec? $hint" --exex bash
    refused "unknown option --memroy; did you mean --memory? $hint" --memroy 2G
    refused "unknown option --memroy; did you mean --memory? $hint" --memroy=2G
    refused "unknown option --cpu; did you mean --cpus? $hint" --dry-run --cpu 2
    refused "unknown option -exec; did you mean --exec? $hint" -exec true
    # a short option that is neither ours nor Claude Code's (its profile lists them)
    refused "unknown option -e; did you mean --exec or --env? $hint" -e
    refused "unknown option -z: neither agent-sandbox's nor claude's $hint" -z
    # a first word near a command: not a prompt
    refused "unknown command pss; did you mean ps? (to pass it to the agent as a prompt, put it after --)" pss
    refused "unknown command alow; did you mean allow? (to pass it to the agent as a prompt, put it after --)" alow x.test
    # the sandbox's own variables
    refused "--env HOME: the sandbox sets HOME itself (/home/agent, where the agent's home volume is mounted); it cannot be passed" \
        --env HOME=/x --exec true
    refused "--env CLAUDE_SECURESTORAGE_CONFIG_DIR: the sandbox sets CLAUDE_SECURESTORAGE_CONFIG_DIR itself (/var/lib/agent-sandbox-login, where the shared login volume is mounted); it cannot be passed" \
        --env CLAUDE_SECURESTORAGE_CONFIG_DIR=/x
}

@test "the agent's own arguments still reach it: its options, a prompt, anything after --" {
    # what the plan's command line shows
    run_x 0 agent-sandbox --dry-run -p 'fix the bug'
    assert "$output" contains "  command: claude --dangerously-skip-permissions -p fix the bug"
    run_x 0 agent-sandbox --dry-run -- --exec -e pss
    assert "$output" contains "  command: claude --dangerously-skip-permissions --exec -e pss"
    run_x 0 agent-sandbox --dry-run --agents '{}' --exex
    assert "$output" contains "  command: claude --dangerously-skip-permissions --agents {} --exex" "Claude Code's --agents, near --agent, is its own"
    run_x 0 agent-sandbox --dry-run fix
    assert "$output" contains "  command: claude --dangerously-skip-permissions fix"
    # in argv[1], where a command would be: past the check, the session
    # starts (and stops at the missing image)
    local args
    for args in "--continue" "-p prompt" "-c" "-- --exec" "-- pss" "fix" "top" "mcp list" "Fix the tests"; do
        # shellcheck disable=SC2086
        run_x "$EX_NOIMAGE" env AGENT_SANDBOX_IMAGE=localhost/as-e2e-nosuch:x "$AGENT_SANDBOX_BIN" $args
        assert "$stderr" contains "image localhost/as-e2e-nosuch:x (AGENT_SANDBOX_IMAGE) is missing" "$args"
    done
}

@test "help [COMMAND], and the subcommands' own typos and missing values" {
    run_x 0 agent-sandbox help
    assert "${lines[0]}" == "usage: agent-sandbox [OPTIONS] [--] [AGENT ARGS...]"
    assert "$output" contains "  help [COMMAND]"
    run_x 0 agent-sandbox help ps
    assert "${lines[0]}" == "usage: agent-sandbox ps [--json | -q]"
    run_x 0 agent-sandbox help help
    assert "${lines[0]}" == "usage: agent-sandbox help [COMMAND]"
    run_x "$EX_USAGE" agent-sandbox help pss
    assert "$stderr" == "agent-sandbox: error: help: no command pss; did you mean ps? (\`agent-sandbox help\` lists them)"
    run_x "$EX_USAGE" agent-sandbox help ps log

    run_x "$EX_USAGE" agent-sandbox ps --jsn
    assert "${stderr%%$'\n'*}" == "agent-sandbox: error: ps: unknown option --jsn; did you mean --json?"
    assert "$stderr" contains $'\nusage: agent-sandbox ps [--json | -q]'
    run_x "$EX_USAGE" agent-sandbox log --folow
    assert "${stderr%%$'\n'*}" == "agent-sandbox: error: log: unknown option --folow; did you mean --follow?"
    run_x "$EX_USAGE" agent-sandbox stop --al
    assert "${stderr%%$'\n'*}" == "agent-sandbox: error: stop: unknown option --al; did you mean --all?"
    run_x "$EX_USAGE" agent-sandbox cleanup --hoems
    assert "${stderr%%$'\n'*}" == "agent-sandbox: error: cleanup: unknown option --hoems; did you mean --homes?"
    run_x "$EX_USAGE" agent-sandbox allow x.test --sesion 1234
    assert "${stderr%%$'\n'*}" == "agent-sandbox: error: allow: unknown option --sesion; did you mean --session?"
    run_x "$EX_USAGE" agent-sandbox ps --bogus
    assert "${stderr%%$'\n'*}" == "agent-sandbox: error: ps: unknown option --bogus"
    # a subcommand's word is matched against the subcommands, and a missing one named
    run_x "$EX_USAGE" agent-sandbox image lst
    assert "$stderr" == $'agent-sandbox: error: image: unknown subcommand lst; did you mean list?\nusage: agent-sandbox image build NAME | list'
    run_x "$EX_USAGE" agent-sandbox image
    assert "${stderr%%$'\n'*}" == "agent-sandbox: error: image: the subcommand (build NAME or list) is missing"
    run_x "$EX_USAGE" agent-sandbox image build
    assert "${stderr%%$'\n'*}" == "agent-sandbox: error: image: the image's name after build is missing"
    run_x "$EX_USAGE" agent-sandbox image list extra
    assert "${stderr%%$'\n'*}" == "agent-sandbox: error: image: unexpected argument extra"
    # a missing value is named as such
    run_x "$EX_USAGE" agent-sandbox allow db.test --session
    assert "${stderr%%$'\n'*}" == "agent-sandbox: error: allow: --session needs a value (a session's ID)"
    run_x "$EX_USAGE" agent-sandbox deny db.test --session=
    assert "${stderr%%$'\n'*}" == "agent-sandbox: error: deny: --session needs a value (a session's ID)"
    run_x "$EX_USAGE" agent-sandbox verify --agent
    assert "${stderr%%$'\n'*}" == "agent-sandbox: error: verify: --agent needs a value (an agent's name)"
}
