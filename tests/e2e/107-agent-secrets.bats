#!/usr/bin/env bats
# Held secrets with each shipped agent's own HTTP client (docs/secrets.md,
# "Each agent's client"): the agent's key is held (--secret), the agent runs
# once non-interactively against its real API name, which the fake
# internet's DNS points at the origin (whose certificate covers it), and the
# origin must get the real key in the header its profile's rule names. So
# the agent's client trusted the session CA through the variables the
# sandbox sets, and sent the stand-in where the rule says. An agent whose
# image was not built is skipped with the command that builds it.

load helpers
load fake-internet

setup_file() { fi_up; }
teardown_file() { fi_down; }
setup() {
    as_setup
    fi_setup
    local name
    for name in $FI_CLAUDE_NAMES $FI_AGENT_API_NAMES; do fi_dns_add "$FI_ORIGIN_IP" "$name"; done
    fi_mark
    # shellcheck disable=SC2086  # one line per name
    { cat "$FI_DIR/allowed-hosts"; printf '%s\n' $FI_CLAUDE_NAMES $FI_AGENT_API_NAMES; } >"$AS_RUN_DIR/allowed-hosts"
    export AGENT_SANDBOX_ALLOWLIST=$AS_RUN_DIR/allowed-hosts AGENT_SANDBOX_UPSTREAM_CA=$FI_DIR/ca.pem
    unset AGENT_SANDBOX_IMAGE
}
teardown() {
    fi_dns_reset >/dev/null 2>&1 || true
    as_teardown
}

# reaches AGENT VAR VALUE HOST FIELD CMD...: with VAR=VALUE held, CMD (the
# agent, once, non-interactively) run by `--agent AGENT --exec` makes a
# request to HOST that arrives at the origin with VALUE in the headers log's
# FIELD (its start, as in the log: x_api_key="), and never with the
# stand-in. The agent fails on the origin's answer (not its API's) and
# retries: it is stopped as soon as the origin has its first request.
reaches() {
    local agent=$1 var=$2 value=$3 host=$4 field=$5
    shift 5
    $PODMAN image exists "localhost/agent-sandbox-$agent:dev" ||
        skip "no image localhost/agent-sandbox-$agent:dev: \`make images AGENTS=$agent\` builds it"
    export "$var=$value"
    bg_start agent-sandbox --agent "$agent" --secret "$var" --exec sh -c '
        echo "stand-in: $(printenv "$1")"; shift
        timeout 90 "$@" </dev/null >agent.out 2>&1 & pid=$!
        while [ ! -e got ] && kill -0 $pid 2>/dev/null; do sleep 0.2; done
        kill $pid 2>/dev/null; wait $pid; echo "agent exit: $?"' sh "$var" "$@"
    local n got=
    for ((n = 0; n < 900; n++)); do
        got=$(fi_log headers | grep -F "sni=\"$host\"" || true)
        if [ -n "$got" ] || [ -s "$AS_RUN_DIR/bg.rc" ]; then break; fi
        sleep 0.1
    done
    touch "$AS_DIR/got"
    bg_wait 60
    { echo "# $agent's output:"; head -n 20 "$AS_DIR/agent.out"; echo "# the origin got:"; echo "$got"; } |
        sed 's/^/#   /' >&3
    assert "$status" == 0 "exit status of the session"
    assert "$(grep '^stand-in: ' <<<"$output")" != "stand-in: $value" "the sandbox's $var is a stand-in"
    assert "$(head -n 1 <<<"$got")" contains "$field$value\"" "$agent's first request to $host: the real $var in $field"
    local stand_in
    stand_in=$(grep '^stand-in: ' <<<"$output" | cut -c11-)
    assert "$got" !contains "$stand_in" "the stand-in at the origin"
    # the agent's ordinary requests pass the router's checks (threat 60's
    # classes judge no client's own headers, its IDs among them)
    # shellcheck disable=SC2154  # stderr: set by bg_wait (helpers.bash)
    assert "$stderr" !contains "refused by the rules of allowed names" "$agent's requests the router refused"
    fi_assert_no_hit
}

@test "claude: its own client sends the held ANTHROPIC_API_KEY; api.anthropic.com gets the real one in x-api-key" {
    reaches claude ANTHROPIC_API_KEY sk-ant-api03-Real0key0of0the0user0AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA-AAAAAAAA \
        api.anthropic.com 'x_api_key="' claude -p hi
}

# The pinned Codex sends no key from OPENAI_API_KEY by itself (its requests
# came without one): `codex login --with-api-key`
# takes it (the stand-in, here) into ~/.codex/auth.json.
@test "codex: its own client sends the held OPENAI_API_KEY; api.openai.com gets the real one as a bearer token" {
    reaches codex OPENAI_API_KEY sk-proj-Real0key0of0the0user0AAAAAAAAAAAAAAAAAAAAAAAAAAAA \
        api.openai.com 'authorization="Bearer ' \
        sh -c 'printenv OPENAI_API_KEY | codex login --with-api-key && codex exec --skip-git-repo-check hi'
}

@test "gemini: its own client sends the held GEMINI_API_KEY; generativelanguage.googleapis.com gets the real one in x-goog-api-key" {
    reaches gemini GEMINI_API_KEY AIzaSyReal0key0of0the0user0AAAAAAAAAAA \
        generativelanguage.googleapis.com 'x_goog_api_key="' gemini --skip-trust -p hi
}

@test "opencode: its own client sends the held ANTHROPIC_API_KEY; api.anthropic.com gets the real one in x-api-key" {
    # Its models fetch off (models.opencode.ai is blocked here, and opencode
    # waited on it before its first API request, once past 90 s): it uses
    # the models list built into the pinned binary (which reads the variable).
    reaches opencode ANTHROPIC_API_KEY sk-ant-api03-Real0key0of0the0user0AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA-AAAAAAAA \
        api.anthropic.com 'x_api_key="' env OPENCODE_DISABLE_MODELS_FETCH=1 opencode run -m anthropic/claude-sonnet-4-5 hi
}
