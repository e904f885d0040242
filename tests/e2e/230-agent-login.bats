#!/usr/bin/env bats
# Logging Claude Code in from inside the sandbox (README, "Logging in"),
# offline: the packaged default allowlist, with Claude Code's real names
# answered by the fake internet's origin (fake-internet.bash; its throwaway
# CA passed in with --env NODE_EXTRA_CA_CERTS). A fresh home in a real
# terminal shows the login choice, then the URL to open on the host and the
# field for the code, not a network error; the pasted code goes to the
# token endpoint through the router. Every screen goes into the test's
# output. The start stays quiet: the router denies no name on the way, and
# an idle start with the profile's CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC
# and DISABLE_AUTOUPDATER asks for less than one without them.

load helpers
load fake-internet
load tmux

setup_file() { fi_up; }
teardown_file() { fi_down; }
setup() {
    as_setup
    fi_setup
    home_volume_setup
    tmux_setup
    local name
    for name in $FI_CLAUDE_NAMES; do fi_dns_add "$FI_ORIGIN_IP" "$name"; done
    fi_mark
    # the packaged default, and the fake internet's addresses as upstreams
    { cat "$AS_TOP/config/allowed-hosts"; echo "allow-upstream-net $FI_P.0/25"; } >"$AS_RUN_DIR/allowed-hosts"
    export AGENT_SANDBOX_ALLOWLIST=$AS_RUN_DIR/allowed-hosts
}

teardown() {
    local rc=0
    tmux_teardown "^$AGENT_SANDBOX_BIN --env" || rc=1
    fi_dns_reset >/dev/null 2>&1 || true
    as_teardown || rc=1
    home_volume_teardown
    return $rc
}

# screen WHAT: the pane, into the test's output.
screen() {
    { echo "# $1:"; pane | sed 's/^/#   /'; } >&3
}

@test "login: a fresh home offers the login methods, then the URL to open and the code's field; the code reaches the token endpoint" {
    "${AS_TMUX[@]}" new-session -d -s as -x 100 -y 30 \
        "cd '$AS_DIR' && exec '$AGENT_SANDBOX_BIN' --env NODE_EXTRA_CA_CERTS='$AS_DIR/ca.pem' --agent claude"
    # Claude Code's connectivity check passes (api.anthropic.com/api/hello,
    # platform.claude.com/v1/oauth/hello), then its first question
    wait_pane 'Choose the text style' 90 || { screen "the first screen"; false; }
    screen "the first screen"
    "${AS_TMUX[@]}" send-keys -t as Enter
    wait_pane 'Select login method' 30 || { screen "after the theme"; false; }
    screen "the login choice"
    assert "$(pane)" contains "Claude account with subscription"
    assert "$(pane)" contains "Anthropic Console account"

    # a Claude account: the URL for the host's browser, and a field for the code
    "${AS_TMUX[@]}" send-keys -t as Enter
    wait_pane 'Paste code here' 30 || { screen "after choosing"; false; }
    screen "the URL and the code's field"
    assert "$(pane)" =~ "https://claude\.ai/oauth/authorize\?" "the URL to open"
    assert "$(pane)" !contains "Unable to connect" "a network error"

    # the paste-the-code flow: the code goes to the token endpoint, through
    # the router (the fake origin's answer is no token, so it stops there)
    "${AS_TMUX[@]}" send-keys -t as -l 'test-code#test-state'
    "${AS_TMUX[@]}" send-keys -t as Enter
    local n
    for ((n = 0; n < 300; n++)); do
        fi_log origin | grep -q 'sni="platform.claude.com" .*request="POST /v1/oauth/token ' && break
        sleep 0.1
    done
    screen "after pasting a code"
    fi_log origin | grep -q 'sni="platform.claude.com" .*request="POST /v1/oauth/token ' ||
        die "no token request reached platform.claude.com:"$'\n'"$(fi_log origin)"

    # the session ends with its terminal; what the router denied meanwhile:
    # nothing but the CLI's own readiness probe
    "${AS_TMUX[@]}" kill-server
    for ((n = 0; n < 300; n++)); do
        pgrep -u "$(id -u)" -f -- "^$AGENT_SANDBOX_BIN --env" >/dev/null || break
        sleep 0.1
    done
    local logs
    # shellcheck disable=SC2012  # the newest by mtime; session IDs are plain hex
    logs=$(ls -td "$XDG_STATE_HOME"/agent-sandbox/logs/*/ | head -1)
    assert "$(sed -n 's/.*config \(.*\) is NXDOMAIN$/\1/p' "$logs/dns.log" | sort -u | xargs)" == \
        "denied-probe.agent-sandbox.invalid" "names the router denied"
    fi_assert_no_hit
}

# idle_start LABEL [OPTION...]: Claude Code with a Console key, onboarding
# done, in its asking mode (autonomy on would first ask to accept it), IDLE_SECS at its prompt; then IDLE_DENIED (the names the router
# denied, the readiness probe left out) and IDLE_REQUESTS (what reached the
# fake origin, "NAME METHOD PATH" per line), both into the test's output.
# With IDLE_ENOUGH=FUNCTION, the idle time ends as soon as FUNCTION
# succeeds: a run whose claims are only "this was asked for" need not wait
# out the seconds that "nothing else was" needs.
IDLE_SECS=25
IDLE_KEY=sk-ant-api03-e2e-0123456789abcdefghijklmnopqrstuvwxyz
idle_start() {
    local label=$1 n logs
    shift
    printf '{"hasCompletedOnboarding":true,"theme":"dark","customApiKeyResponses":{"approved":["%s"],"rejected":[]},"projects":{"%s":{"hasTrustDialogAccepted":true}}}\n' \
        "${IDLE_KEY: -20}" "$AS_DIR" >"$AS_DIR/seed.json"
    run_x 0 agent-sandbox --agent claude --exec sh -c 'cp seed.json ~/.claude.json'
    fi_mark
    "${AS_TMUX[@]}" new-session -d -s as -x 100 -y 30 \
        "cd '$AS_DIR' && exec '$AGENT_SANDBOX_BIN' --env NODE_EXTRA_CA_CERTS='$AS_DIR/ca.pem' --agent claude --no-autonomy --env ANTHROPIC_API_KEY=$IDLE_KEY $*"
    wait_pane '^❯' 90 || { screen "$label: the prompt"; false; }
    local idle
    for ((idle = 0; idle < IDLE_SECS * 2; idle++)); do
        [ -n "${IDLE_ENOUGH:-}" ] && "$IDLE_ENOUGH" && break
        sleep 0.5
    done
    screen "$label: after $((idle / 2))s at the prompt"
    "${AS_TMUX[@]}" kill-server
    for ((n = 0; n < 300; n++)); do
        pgrep -u "$(id -u)" -f -- "^$AGENT_SANDBOX_BIN --env" >/dev/null || break
        sleep 0.1
    done
    # shellcheck disable=SC2012  # the newest by mtime; session IDs are plain hex
    logs=$(ls -td "$XDG_STATE_HOME"/agent-sandbox/logs/*/ | head -1)
    IDLE_DENIED=$(sed -n 's/.*config \(.*\) is NXDOMAIN$/\1/p' "$logs/dns.log" | grep -vx denied-probe.agent-sandbox.invalid | sort -u | xargs)
    IDLE_REQUESTS=$(fi_log origin | sed -nE 's/.*sni="([^"]*)".*request="([A-Z]+ [^ ?"]*).*/\1 \2/p' | sort -u)
    # shellcheck disable=SC2001  # a prefix on every line
    { echo "# $label: $((idle / 2)) s idle at the prompt; denied: ${IDLE_DENIED:-none}"; echo "$IDLE_REQUESTS" | sed "s/^/# $label: request: /"; } >&3
}

# baseline_seen: the baseline's claims hold already: the running session's
# router denied raw.githubusercontent.com, and the bootstrap request reached
# the fake origin.
baseline_seen() {
    fi_log origin | grep -q 'sni="api.anthropic.com" .*request="GET /api/claude_cli/bootstrap' || return 1
    suite_session_dirs | xargs -r -I{} find {} -path '*/router-log/dns.log' -type f -print0 2>/dev/null |
        xargs -0 -r grep -qs 'config raw\.githubusercontent\.com is NXDOMAIN$'
}

@test "quiet: an idle start with the profile's variables asks for less than one without them (the baseline, same test)" {
    # the baseline: both variables emptied with --env (the profile's
    # DISABLE_TELEMETRY and DISABLE_ERROR_REPORTING stay)
    # downloads.claude.ai at the origin too, whose certificate does not
    # cover it: it fails, as it would without a route (not the canary)
    fi_dns_add "$FI_ORIGIN_IP" downloads.claude.ai
    IDLE_ENOUGH=baseline_seen idle_start without --env CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC= --env DISABLE_AUTOUPDATER=
    local without_denied=$IDLE_DENIED without_requests=$IDLE_REQUESTS
    assert "$without_denied" contains "raw.githubusercontent.com" "the baseline's denied names"
    assert "$without_requests" contains "api.anthropic.com GET /api/claude_cli/bootstrap" "the baseline's requests"

    idle_start with
    assert "$IDLE_DENIED" !contains "raw.githubusercontent.com" "denied names"
    # github.com: Claude Code's fallback for the plugin marketplace when
    # downloads.claude.ai fails, as it does here (docs/allowlist.md)
    # shellcheck disable=SC2143  # reads as the claim: no other line
    [ -z "$(tr ' ' '\n' <<<"$IDLE_DENIED" | grep -vx github.com)" ] || die "denied: $IDLE_DENIED"
    # nothing but the managed settings and policy limits
    # shellcheck disable=SC2143  # reads as the claim: no other line
    [ -z "$(grep -vE '^api\.anthropic\.com GET /api/claude_code/(settings|policy_limits)$' <<<"$IDLE_REQUESTS")" ] ||
        die "requests besides settings and policy limits:"$'\n'"$IDLE_REQUESTS"
    fi_assert_no_hit
}
