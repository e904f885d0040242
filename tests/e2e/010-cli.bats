#!/usr/bin/env bats
# The CLI's own surface: version and usage errors. No sandbox is started.

load helpers

@test "--version prints the name and the VERSION file's version" {
    run_x 0 agent-sandbox --version
    assert "$output" == "agent-sandbox $(<"$AS_TOP/VERSION")"
}

@test "--exec without a command is a usage error (64)" {
    run_x $EX_USAGE agent-sandbox --exec
    assert "$stderr" contains "--exec" "the error names the option"
}
