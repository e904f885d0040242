#!/usr/bin/env bats
# Failures before the sandbox starts: nothing may be left behind.

load helpers

@test "threat 28: a missing image fails with 66, names the image and leaves nothing" {
    AGENT_SANDBOX_IMAGE=localhost/does-not-exist:x run_x "$EX_NOIMAGE" agent-sandbox --exec true
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" contains "localhost/does-not-exist:x" "the error names the image"
    assert "$output" == "" "nothing on stdout"
    leak_check "after the failed start" || die "a failed start left resources behind"
}
