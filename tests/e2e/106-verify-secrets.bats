#!/usr/bin/env bats
# `agent-sandbox verify --secret VAR` (docs/secrets.md): the router holds
# VAR, the probe gets only the stand-in and reports every string of its
# shape it can read anywhere in the sandbox; the CLI finds the value in
# none of them. Claude Code's ANTHROPIC_API_KEY, held for api.anthropic.com
# (the suite's allowlist's first entry): no network is needed, the router
# only has to terminate.

load helpers

REAL=sk-ant-api03-Real0Value0Of0The0User0KEY0123456789abcdef-AA

setup() { as_setup; }
teardown() { as_teardown; }

held_line() {
    python3 -c 'import json, sys
r = json.loads(sys.argv[1])
h = [p for p in r["probes"] if p["id"] == "held-secrets"]
print(h[0]["result"] + " " + h[0]["evidence"] if h else "none")' "$1"
}

@test "verify --secret: no held value is readable in the sandbox; the value left in the launch directory fails the line" {
    export ANTHROPIC_API_KEY=$REAL
    run_x 0 agent-sandbox verify --secret ANTHROPIC_API_KEY --json
    local line
    line=$(held_line "$output")
    assert "$line" =~ "^PASS 1 held; each stand-in found where planted .*, the value nowhere: [0-9]+ strings" "the held line"
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$output$stderr" !contains "$REAL" "the value in verify's output"
    # the agent's own credential variable is set inside to the stand-in: named, so no FAIL
    assert "$output" !contains '"FAIL"' "no property failed"

    # the negative: the value in a file the sandbox can read (the launch
    # directory is mounted) is found, and named by its path only
    printf 'ANTHROPIC_API_KEY=%s\n' "$REAL" >"$AS_DIR/.env"
    run_x 1 agent-sandbox verify --secret ANTHROPIC_API_KEY --json
    line=$(held_line "$output")
    assert "$line" == "FAIL ANTHROPIC_API_KEY: its value is readable in $AS_DIR/.env" "the held line"
    assert "$output$stderr" !contains "$REAL" "the value in verify's output"
}
