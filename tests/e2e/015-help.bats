#!/usr/bin/env bats
# The CLI explains itself (issue 15, "Host and interface"): --help of the
# tool and of every command, --version with the images and the agents'
# pins, and the man page agent-sandbox(1), which renders without a warning
# and names every command, option, variable and exit code --help does.

load helpers

MAN_PAGE=$AS_TOP/docs/agent-sandbox.1

# The commands of --help's "commands:" section.
help_commands() {
    sed -n '/^commands:/,/^$/p' <<<"$1" | sed -n 's/^  \([a-z][-a-z]*\) .*/\1/p'
}

@test "--help lists every command, and each command has a --help of its own" {
    run_x 0 agent-sandbox --help
    local help=$output commands cmd
    commands=$(help_commands "$help")
    assert "$(xargs <<<"$commands")" == "ps stop doctor allow deny log verify image diff reviews discard cleanup apply help" "the commands in --help"
    for cmd in $commands; do
        run_x 0 agent-sandbox "$cmd" --help
        assert "${lines[0]}" =~ "^usage: agent-sandbox $cmd( |$)" "$cmd --help"
        [ "${#lines[@]}" -gt 2 ] || die "$cmd --help says nothing more than its usage"
        run_x 0 agent-sandbox "$cmd" -h
        assert "${lines[0]}" =~ "^usage: agent-sandbox $cmd( |$)" "$cmd -h"
        # after another argument too: no command takes --help as a value
        run_x 0 agent-sandbox "$cmd" --json --help
        assert "${lines[0]}" =~ "^usage: agent-sandbox $cmd( |$)" "$cmd --json --help"
    done
    # first contact: the tool's --help has verify, every variable and the exit codes
    assert "$help" contains "verify [--agent NAME] [--toolchain NAME]... [--image NAME] [--secret VAR]... [--json]"
    assert "$help" contains "exit status:"
    local var
    for var in AGENT_SANDBOX_IMAGE AGENT_SANDBOX_ROUTER_IMAGE AGENT_SANDBOX_ALLOWLIST AGENT_SANDBOX_RESOLVER \
               AGENT_SANDBOX_EGRESS_NETWORK AGENT_SANDBOX_HOME_VOLUME AGENT_SANDBOX_VOLUME_PREFIX \
               AGENT_SANDBOX_TRACE XDG_CONFIG_HOME XDG_STATE_HOME XDG_RUNTIME_DIR; do
        assert "$help" contains "  $var " "--help names $var"
    done
}

@test "the environment in --help and in docs/usage.md is the same" {
    local readme help
    readme=$(sed -n '/^| environment | meaning |/,/^$/p' "$AS_TOP/docs/usage.md" | grep -oE '^\| `[A-Z_]+' | tr -d '|` ' | sort -u | xargs)
    run_x 0 agent-sandbox --help
    help=$(sed -n '/^environment:/,/^$/p' <<<"$output" | grep -oE '^  [A-Z_]+' | tr -d ' ' | sort -u | xargs)
    assert "$help" == "$readme" "--help's variables vs docs/usage.md's"
}

@test "--version: the tool's version first, then the images and every agent's pin" {
    run_x 0 agent-sandbox --version
    assert "${lines[0]}" == "agent-sandbox $(<"$AS_TOP/VERSION")"
    assert "$output" =~ $'\n'"router image: localhost/agent-sandbox-router:[^ ]+ \(built for [^)]+\)" \
        "the router image and the version it was built for (make images ran before the suite)"
    local pin name version
    for pin in "$AS_TOP"/sandbox-image/agents/*.version; do
        name=$(basename "$pin" .version)
        version=$(sed -n 's/^version[[:space:]]*//p' "$pin")
        if [ -n "$version" ]; then
            assert "$output" =~ $'\n'"$name +$version +localhost/" "$name's pin and image"
        else
            assert "$output" =~ $'\n'"$name +blocked " "$name is blocked"
        fi
    done
    assert "$output" =~ $'\n'"claude +[^ ]+ +[^ ]+ \(built for " "Claude Code's image is there"
    # podman out of reach: the versions are still printed, and why not the images'
    run_x 0 env PATH=/nonexistent "$AGENT_SANDBOX_BIN" --version
    assert "${lines[0]}" == "agent-sandbox $(<"$AS_TOP/VERSION")"
    assert "$output" contains "podman not reachable"
    assert "$output" =~ $'\n'"claude +[0-9]" "the pins without podman"
}

@test "the man page renders without a warning, through groff and through man" {
    command -v groff >/dev/null || die "groff is missing (scripts/setup-host.sh installs groff-base)"
    run_x 0 groff -ww -man -z "$MAN_PAGE"
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" == "" "groff's warnings"
    run_x 0 env MANWIDTH=80 man --warnings -l "$MAN_PAGE"
    assert "$stderr" == "" "man's warnings"
    assert "${lines[0]}" =~ "^AGENT-SANDBOX\(1\)"
    local section
    for section in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS FILES ENVIRONMENT "EXIT STATUS" SECURITY EXAMPLES; do
        assert "$output" =~ $'\n'"$section"$'\n' "section $section"
    done
}

@test "the man page names every command, option, variable and exit code of --help" {
    local text
    text=$(MANWIDTH=200 man -l "$MAN_PAGE" 2>/dev/null)
    # man_has WHAT REGEX: a line of the page matches REGEX (grep -E)
    man_has() { grep -qE -- "$2" <<<"$text" || die "the man page has no $1 (no line matching /$2/)"; }
    run_x 0 agent-sandbox --help
    local cmd opt var code
    for cmd in $(help_commands "$output") allow deny log; do
        man_has "command $cmd" "^       $cmd( |\$)"
    done
    for opt in $(sed -n '/^options:/,/^$/p' <<<"$output" | grep -oE -- '(^  |, )-[-a-z]+' | sed 's/^[ ,]*//') \
               --agent --publish; do
        man_has "option $opt" "^       (.*, )?$opt( |,|\$)"
    done
    # shellcheck disable=SC2013  # one name a line
    for var in $(sed -n '/^environment:/,/^$/p' <<<"$output" | grep -oE '^  [A-Z_]+'); do
        man_has "variable $var" "^       $var\$"
    done
    for code in $(sed -n '/^exit status:/,$p' <<<"$output" | grep -oE '^ +[0-9]+(\+N)? ' | tr -d ' '); do
        man_has "exit code $code" "^       ${code/+/\\+}( |\$)"
    done
}
