#!/usr/bin/env bats
# Workspace protection: the paths that can run on the host later (git hooks
# and config, .envrc, editor and agent settings) are read-only inside the
# sandbox, whether they exist or not; git still works
# (docs/workspace-protection.md).

load helpers

# The default set, as in lib/workspace/workspace_rules.c.
WS_FILES=(.git/config .git/config.worktree .envrc .pre-commit-config.yaml .mcp.json)
WS_DIRS=(.git/hooks .git/modules .git/worktrees .vscode .idea .devcontainer .husky .claude)

# A git repository in the launch directory, with one commit.
git_repo() {
    git init -q .
    git config user.email agent@sandbox.test
    git config user.name agent
    echo one >file
    git add file
    git commit -qm one
}

# A listing of PATHS under the launch directory: type, mode, size, mtime,
# content hash. Equal listings: nothing changed.
ws_state() {
    (
        cd "$AS_DIR" || exit
        find "$@" -printf '%p %y %m %s %T@\n' 2>/dev/null | sort
        find "$@" -type f -exec sha256sum {} + 2>/dev/null | sort
    )
}

# Run inside: try every way to change each path given; print one line per
# success, and one per path that is not a read-only mount point.
ATTACK='
for p in "$@"; do
    if [ -d "$p" ]; then
        (: >"$p/new-file") 2>/dev/null && echo "WROTE $p/new-file"
        mkdir "$p/new-dir" 2>/dev/null && echo "MKDIR $p/new-dir"
        for f in "$p"/*; do
            [ -f "$f" ] || continue
            (echo x >>"$f") 2>/dev/null && echo "APPENDED $f"
            rm -f "$f" 2>/dev/null && echo "REMOVED $f"
        done
    else
        (echo x >>"$p") 2>/dev/null && echo "APPENDED $p"
        rm -f "$p" 2>/dev/null && echo "REMOVED $p"
        echo evil >/tmp/evil && mv -f /tmp/evil "$p" 2>/dev/null && echo "REPLACED $p"
        if echo evil >"$p.new" 2>/dev/null; then
            mv -f "$p.new" "$p" 2>/dev/null && echo "RENAMED-OVER $p"
            rm -f "$p.new"
        fi
    fi
    chmod 0777 "$p" 2>/dev/null && echo "CHMOD $p"
    mv "$p" "$p.moved" 2>/dev/null && echo "MOVED $p"
    grep -q " $PWD/$p ro," /proc/self/mountinfo || echo "NOT-A-READ-ONLY-MOUNT $p"
done
echo attack-done'

@test "threat 16: each default protected path that exists is read-only inside, and unchanged after" {
    git_repo
    mkdir -p .git/modules/sub .git/worktrees/wt .vscode .idea .devcontainer .husky .claude
    : >.git/config.worktree
    echo 'export A=1' >.envrc
    echo 'repos: []' >.pre-commit-config.yaml
    echo '{"mcpServers":{}}' >.mcp.json
    echo '{}' >.vscode/tasks.json
    echo '<project/>' >.idea/workspace.xml
    echo '{}' >.devcontainer/devcontainer.json
    printf '#!/bin/sh\nexit 0\n' >.husky/pre-commit
    echo '{}' >.claude/settings.json
    echo 'config' >.git/modules/sub/config
    echo '../..' >.git/worktrees/wt/commondir
    local before
    before=$(ws_state "${WS_FILES[@]}" "${WS_DIRS[@]}")

    run_x 0 agent-sandbox --exec sh -c "$ATTACK" sh "${WS_FILES[@]}" "${WS_DIRS[@]}"
    assert "$output" == attack-done "changes that got through, or paths not mounted read-only"
    assert "$(ws_state "${WS_FILES[@]}" "${WS_DIRS[@]}")" == "$before" "the protected paths on the host"
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" !contains "warning" "a warning after a session that changed nothing"
}

@test "threat 16: each default protected path that does not exist cannot be created, and no trace is left" {
    # Not a repository: .git itself is missing, so it stands in for every .git path.
    local p missing=(.envrc .pre-commit-config.yaml .mcp.json .vscode .idea .devcontainer .husky .claude .git)
    run_x 0 agent-sandbox --exec sh -c '
        for p in "$@"; do
            (echo x >"$p") 2>/dev/null && echo "CREATED $p"
            mkdir -p "$p/sub" 2>/dev/null && echo "MKDIR $p/sub"
            (: >"$p/file") 2>/dev/null && echo "CREATED $p/file"
            [ -e "$p" ] || echo "NO-PLACEHOLDER $p"
            [ -z "$(ls -A "$p" 2>/dev/null)" ] || echo "NOT-EMPTY $p"
            [ -f "$p" ] && echo "A-FILE $p"       # a directory: invisible to git
            rm -rf "$p" 2>/dev/null && echo "REMOVED $p"
            grep -q " $PWD/$p ro," /proc/self/mountinfo || echo "NOT-A-READ-ONLY-MOUNT $p"
        done
        git init -q . 2>/dev/null && echo "GIT-INIT"
        echo checked' sh "${missing[@]}"
    assert "$output" == checked "what got through"
    assert "$(ls -A)" == "" "the launch directory after the session (placeholders removed)"

    # In a repository, the missing paths inside .git.
    git_repo
    local inside=(.git/config.worktree .git/modules .git/worktrees)
    rm -rf "${inside[@]}"
    run_x 0 agent-sandbox --exec sh -c '
        for p in "$@"; do
            (echo x >"$p") 2>/dev/null && echo "CREATED $p"
            (: >"$p/config") 2>/dev/null && echo "CREATED $p/config"
            grep -q " $PWD/$p ro," /proc/self/mountinfo || echo "NOT-A-READ-ONLY-MOUNT $p"
        done
        echo checked' sh "${inside[@]}"
    assert "$output" == checked "what got through inside .git"
    for p in "${inside[@]}" .envrc .vscode .claude; do
        [ ! -e "$p" ] || die "$p is left on the host after the session"
    done
    git status --short >/dev/null || die "git on the host after the session"
}

@test "git commit, branch and diff work inside; config and hooks stay frozen" {
    git_repo
    local config hooks
    config=$(git config --local --list)
    hooks=$(ws_state .git/hooks)

    run_x 0 agent-sandbox --exec sh -c '
        set -e
        echo two >>file
        echo new >added
        git add file added
        git commit -qm "from the sandbox"
        git checkout -qb feature
        echo three >>file
        git commit -qam three
        git diff --stat HEAD~2 HEAD
        git log --oneline | wc -l
        git status --short --untracked-files=all
        if git config core.hooksPath /tmp 2>/dev/null; then echo CONFIG-WRITTEN; fi
        if git config --local core.fsmonitor "touch /tmp/x" 2>/dev/null; then echo FSMONITOR-WRITTEN; fi
        if (printf "#!/bin/sh\n" >.git/hooks/pre-commit) 2>/dev/null; then echo HOOK-WRITTEN; fi
        echo git-done'
    assert "$output" =~ "file +\| 2 \+\+" "git diff inside"
    assert "$output" =~ $'\n3\n' "three commits, seen inside"
    assert "$output" !contains "?? " "untracked files inside (a placeholder git would commit)"
    assert "$output" !contains WRITTEN "a write to the config or the hooks"
    assert "${lines[-1]}" == git-done
    # on the host
    assert "$(git log --format=%s | head -2 | tr '\n' ,)" == "three,from the sandbox," "commits, seen on the host"
    assert "$(git rev-parse --abbrev-ref HEAD)" == feature "branch, seen on the host"
    assert "$(git config --local --list)" == "$config" ".git/config on the host"
    assert "$(ws_state .git/hooks)" == "$hooks" ".git/hooks on the host"
    git fsck --no-progress >/dev/null || die "git fsck on the host"
}

@test "directories above a protected path cannot be renamed or removed to swap it out" {
    git_repo
    mkdir -p .vscode
    run_x 0 agent-sandbox --exec sh -c '
        mv .git .git-old 2>/dev/null && echo "MOVED .git"
        rmdir .git 2>/dev/null && echo "REMOVED .git"
        mv .vscode .vscode-old 2>/dev/null && echo "MOVED .vscode"
        grep -q " $PWD/.git rw," /proc/self/mountinfo || echo "NOT-PINNED .git"
        echo done'
    assert "$output" == "done"
    assert "$(git log --format=%s)" == one "the repository on the host"
}

@test "a protected path that is a symlink: its target is read-only, the link is watched" {
    git_repo
    rm -rf .git/hooks
    mkdir -p tools/hooks
    printf '#!/bin/sh\nexit 0\n' >tools/hooks/pre-commit
    chmod +x tools/hooks/pre-commit
    ln -s ../tools/hooks .git/hooks

    run_x --warns '.git/hooks is a symlink: what it points to is read-only inside' 0 agent-sandbox --exec sh -c '
        (echo evil >>tools/hooks/pre-commit) 2>/dev/null && echo "WROTE the target"
        (: >tools/hooks/post-checkout) 2>/dev/null && echo "CREATED in the target"
        echo done'
    assert "$output" == "done"
    assert "$stderr" !contains "DISABLED" "the user's own hook, through the link, is theirs"
    assert "$stderr" contains "warning: .git/hooks is a symlink: what it points to is read-only inside"
    assert "$stderr" contains "a link on the way that the agent re-points is put back at the end"

    # The link itself is not frozen (no mount can hold a symlink): replacing
    # it works inside; at the end it is put back, and the report says so.
    run_x --warns '.git/hooks is a symlink: what it points to is read-only inside' --warns "$WARN_DISABLED" 0 agent-sandbox --exec sh -c '
        rm .git/hooks && mkdir .git/hooks && printf "#!/bin/sh\n" >.git/hooks/post-checkout &&
        chmod +x .git/hooks/post-checkout && echo replaced'
    assert "$output" == replaced
    assert "$stderr" contains "  .git/hooks: a symlink on the way to the protected .git/hooks, replaced or removed during the session; put back to ../tools/hooks (the session's version is .git/hooks.agent-sandbox-disabled)"
    # what the session's version held is moved aside with it, listed once
    assert "$stderr" !contains "  .git/hooks/post-checkout: created"
    [ -x .git/hooks.agent-sandbox-disabled/post-checkout ] || die "the session's hooks are not kept aside"
    [ -x tools/hooks/pre-commit ] || die "the user's own hook was moved"
    assert "$(readlink .git/hooks)" == ../tools/hooks "the link, put back"
}

@test "a session ended by SIGTERM removes its placeholders too" {
    bg_start agent-sandbox --exec sh -c 'touch .running; exec sleep 100'
    wait_for_file "$AS_DIR/.running" 120
    [ -e .envrc ] && [ -d .vscode ] || die "no placeholders while the session runs: $(ls -A)"
    kill -TERM "$AS_BG_PID"
    bg_wait 60
    assert "$(ls -A)" == .running "the launch directory after SIGTERM"
}

@test "placeholders a killed session left are removed by the next session" {
    bg_start agent-sandbox --exec sh -c 'touch .running; exec sleep 100'
    wait_for_file "$AS_DIR/.running" 120
    kill -KILL "$AS_BG_PID"
    bg_wait 30
    assert "$status" == 137
    [ -e .envrc ] || die "the killed session left no placeholder (nothing to test)"
    getfattr -n user.agent-sandbox.placeholder .envrc >/dev/null 2>&1 ||
        python3 -c 'import os,sys; os.getxattr(sys.argv[1], "user.agent-sandbox.placeholder")' .envrc ||
        skip "no user xattrs on this file system: placeholders are not marked"

    run_x 0 agent-sandbox --exec true
    assert "$(ls -A)" == .running "the launch directory after the next session"
}
