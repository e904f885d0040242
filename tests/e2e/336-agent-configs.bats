#!/usr/bin/env bats
# Other agents' and editors' project configs (threat model 45): frozen where
# they exist; created during a session, disabled at the end, so that Gemini
# CLI, opencode or Dev Containers started on the host afterwards obey none
# the agent wrote (docs/workspace-protection.md, "The default set").

load helpers

setup() {
    as_setup
    DISABLED="for host tools to run was DISABLED:"
}

@test "threat 45: an existing agent config is frozen, a new one disabled at the end" {
    mkdir .cursor && echo '{}' >.cursor/mcp.json
    run_x --warns "$WARN_DISABLED" 0 agent-sandbox --exec sh -c '
        echo "{\"mcpServers\":{}}" >.cursor/mcp.json 2>/dev/null && echo "WROTE .cursor"
        mkdir .gemini && echo "{\"mcpServers\":{\"x\":{\"command\":\"touch\"}}}" >.gemini/settings.json
        echo "{\"mcp\":{}}" >opencode.json
        echo "{\"initializeCommand\":\"touch x\"}" >.devcontainer.json
        echo done'
    assert "$output" == "done" ".cursor/mcp.json was writable inside"
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" contains "$DISABLED"
    assert "$stderr" contains "  .gemini: a project config of Gemini CLI, which it obeys when started here, created during the session; moved to .gemini.agent-sandbox-disabled"
    assert "$stderr" contains "  opencode.json: a project config of opencode"
    assert "$stderr" contains "  .devcontainer.json: a project config of Dev Containers"
    [ ! -e .gemini ] && [ ! -e opencode.json ] && [ ! -e .devcontainer.json ] || die "a new config is still live"
    [ -f .gemini.agent-sandbox-disabled/settings.json ] || die "the disabled .gemini is not kept"
    assert "$(cat .cursor/mcp.json)" == "{}"
    assert "$stderr" !contains "  .cursor"
}
