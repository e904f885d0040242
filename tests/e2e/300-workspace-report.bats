#!/usr/bin/env bats
# The end-of-session warning: what can run on the host and changed anyway —
# new or changed executables, copies of protected paths deeper in the tree,
# a protected path changed by some other route (docs/workspace-protection.md).

load helpers

WARNING="files that can run on this machine changed in"

@test "no warning when only ordinary files change" {
    echo 'int main;' >main.c
    run_x 0 agent-sandbox --exec sh -c 'echo "int main(void);" >main.c; mkdir -p src; echo x >src/a.txt'
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" !contains "$WARNING"
}

@test "new executables and nested copies of protected paths are reported" {
    run_x 3 agent-sandbox --exec sh -c '
        printf "#!/bin/sh\n" >run.sh && chmod +x run.sh
        mkdir -p vendor/lib/.git/hooks && printf "[core]\n\tfsmonitor = x\n" >vendor/lib/.git/config
        echo "source evil" >vendor/.envrc
        exit 3'
    assert "$stderr" contains "$WARNING"
    # listed once, as disabled (tests/e2e/330-host-git.bats has the rest)
    assert "$stderr" contains "  vendor/.envrc: a tool config the tool obeys when run in that directory; moved to"
    assert "$stderr" !contains "  vendor/.envrc: created"
    # not a repository today (no HEAD), but a git init there would keep them
    assert "$stderr" contains "  vendor/lib/.git/config: created (a copy of a protected path)"
    assert "$stderr" contains "  vendor/lib/.git/hooks: created (a copy of a protected path)"
    assert "$stderr" contains "  run.sh: new or changed, executable"
    assert "$stderr" contains "Look at them before you run git, open the project in an editor"
}

@test "executables made or changed inside are reported; removed ones are not" {
    printf '#!/bin/sh\necho 1\n' >tool
    printf '#!/bin/sh\necho 1\n' >build.sh
    printf '#!/bin/sh\n' >old.sh
    chmod +x build.sh old.sh
    run_x --warns "$WARN_EXECUTABLES" 0 agent-sandbox --exec sh -c 'chmod +x tool; echo "echo 2" >>build.sh; rm old.sh'
    assert "$stderr" contains "  tool: made executable"
    assert "$stderr" contains "  build.sh: changed, executable"
    assert "$stderr" !contains "old.sh"
}

@test "a protected path changed on the host during the session is reported" {
    git init -q .
    bg_start agent-sandbox --exec sh -c 'touch .running; while [ ! -e .stop ]; do sleep 0.1; done'
    wait_for_file "$AS_DIR/.running" 120
    git config --local core.fsmonitor 'echo changed-by-another-route'
    echo '{}' >.vscode/tasks.json        # into the placeholder
    touch .stop
    bg_wait 60
    assert "$status" == 0
    assert "$stderr" contains "$WARNING"
    # disabled (git would run it), so listed once, as such
    assert "$stderr" contains "  .git/config: a git config with core.fsmonitor, which a plain git init or clone never writes; moved to .git/config.agent-sandbox-disabled"
    assert "$stderr" !contains "  .git/config: changed"
    assert "$stderr" contains "  .vscode/tasks.json: created (protected)"
    assert "$stderr" contains "left in place, the placeholders made for the session: .vscode (no longer empty"
    assert "$(cat .vscode/tasks.json)" == "{}" "what the host wrote into the placeholder"
}

@test "a symlinked protected path pointing outside is named at the start" {
    ln -s /etc/hostname .envrc
    run_x --warns '.envrc is a symlink to a place outside the launch directory' 0 agent-sandbox --exec true
    assert "$stderr" contains "warning: .envrc is a symlink to a place outside the launch directory, which the agent cannot see (/etc/hostname)"
    [ -L .envrc ] || die ".envrc is no longer the symlink"
}
