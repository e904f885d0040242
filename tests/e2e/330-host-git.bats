#!/usr/bin/env bats
# Host git never runs what a session planted (threat model 31, 35, 36): a
# repository git would find in the tree — a bare-shaped directory, the launch
# directory itself, a .git file, a nested repository with a command-running
# config or hooks — and a re-pointed link on the way to the hooks. Each test
# plants the attack inside a session, then runs real host git in every
# directory of the tree (docs/workspace-protection.md, "Repositories").

load helpers

setup() {
    as_setup
    # The payload's trace: outside the tree, so only the host can write it.
    MARK=$AS_RUN_DIR/ran
    export GIT_AUTHOR_NAME=user GIT_AUTHOR_EMAIL=user@host.test
    export GIT_COMMITTER_NAME=user GIT_COMMITTER_EMAIL=user@host.test
    DISABLED="for host tools to run was DISABLED:"
}

# Inside the sandbox: plant_bare DIR MARK makes DIR bare-shaped (HEAD,
# objects, refs copied from a fresh bare repository) with a config that runs
# `touch MARK`: core.fsmonitor (git status, where git takes the directory for
# a work tree) and gpg.program with log.showSignature (git log, which git
# 2.39 runs in an implicitly bare repository: its HEAD commit carries a
# signature to verify).
PLANT_BARE='
plant_bare() {
    b=/tmp/b.$$ && git init -q --bare $b && mkdir -p "$1" && cp -r $b/HEAD $b/objects $b/refs "$1"/
    printf "#!/bin/sh\ntouch %s\n" "$2" >"$1/gpg.sh" && chmod +x "$1/gpg.sh"
    t=$(git --git-dir=$b mktree </dev/null)
    c=$(printf "tree %s\nauthor a <a@b.test> 0 +0000\ncommitter a <a@b.test> 0 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n -----END PGP SIGNATURE-----\n\nx\n" "$t" |
        git --git-dir="$1" hash-object -w -t commit --stdin)
    git --git-dir="$1" update-ref HEAD "$c"
    printf "[core]\n\tfsmonitor = \"touch %s\"\n\tbare = false\n\tworktree = .\n[log]\n\tshowSignature = true\n[gpg]\n\tprogram = %s\n" \
        "$2" "$(cd "$1" && pwd)/gpg.sh" >"$1/config"
}'

# Host git status, log -1 and diff (and the extra git command given) in
# every directory of the tree; fails if the payload ran.
host_git_everywhere() {
    local d
    while IFS= read -r -d '' d; do
        (
            cd "$d" || exit 0
            git status >/dev/null 2>&1
            git log -1 >/dev/null 2>&1
            git diff >/dev/null 2>&1
            [ $# -eq 0 ] || git "$@" >/dev/null 2>&1
        ) || true
    done < <(find "$AS_DIR" -type d -print0)
    [ ! -e "$MARK" ] || die "host git ran what the session planted"
}

@test "threat 31: a bare-shaped subdirectory" {
    run_x --warns "$WARN_DISABLED" 0 agent-sandbox --exec sh -c "$PLANT_BARE"'
        plant_bare sub "$1" && echo x >sub/file && echo planted' sh "$MARK"
    assert "$output" == planted
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" contains "$DISABLED"
    assert "$stderr" contains "  sub/config: a git config with core.fsmonitor"
    host_git_everywhere
}

@test "threat 31: the launch directory without .git cannot become a repository" {
    run_x --warns "$WARN_DISABLED" 0 agent-sandbox --exec sh -c "$PLANT_BARE"'
        plant_bare . "$1" 2>/dev/null
        [ -f HEAD ] && echo "WROTE HEAD"
        grep -q " $PWD/HEAD ro," /proc/self/mountinfo || echo "HEAD NOT FROZEN"
        echo done' sh "$MARK"
    assert "$output" == "done" "the launch directory's HEAD could be written"
    host_git_everywhere
    [ ! -e HEAD ] || die "the HEAD placeholder is left"
}

@test "threat 31: a .git file pointing at a directory the agent wrote" {
    run_x --warns "$WARN_DISABLED" 0 agent-sandbox --exec sh -c "$PLANT_BARE"'
        plant_bare store "$1"
        mkdir -p work && echo "gitdir: ../store" >work/.git && echo x >work/file' sh "$MARK"
    assert "$stderr" contains "  store/config: a git config with core.fsmonitor"
    host_git_everywhere
}

@test "threat 31: a nested repository with core.fsmonitor, and one with an executable hook" {
    run_x --warns "$WARN_DISABLED" 0 agent-sandbox --exec sh -c '
        git init -q fsm && git -C fsm config core.fsmonitor "touch $1" && echo x >fsm/file
        git init -q hooked && echo x >hooked/file
        for h in post-index-change pre-commit post-commit reference-transaction; do
            printf "#!/bin/sh\ntouch %s\n" "$1" >hooked/.git/hooks/$h && chmod +x hooked/.git/hooks/$h
        done' sh "$MARK"
    assert "$stderr" contains "  fsm/.git/config: a git config with core.fsmonitor"
    assert "$stderr" contains "  hooked/.git/hooks/post-index-change: a git hook; moved to hooked/.git/hooks/post-index-change.agent-sandbox-disabled"
    assert "$stderr" contains "  hooked/.git/hooks/pre-commit: a git hook"
    host_git_everywhere add -A
    (cd hooked && git commit -qm host) >/dev/null 2>&1 || true
    [ ! -e "$MARK" ] || die "a hook ran on commit"
}

@test "threat 31: an alias with !" {
    run_x --warns "$WARN_DISABLED" 0 agent-sandbox --exec sh -c 'git init -q al && git -C al config alias.st "!touch $1"' sh "$MARK"
    assert "$stderr" contains "  al/.git/config: a git config with alias.st"
    host_git_everywhere st
}

@test "threat 31: a filter named by .gitattributes" {
    run_x --warns "$WARN_DISABLED" 0 agent-sandbox --exec sh -c '
        set -e
        git init -q fl && cd fl
        git config user.email a@b.test && git config user.name a
        echo "* filter=x diff=x" >.gitattributes && echo one >f
        git add -A && git commit -qm one
        git config filter.x.clean "touch $1; cat" && git config diff.x.textconv "touch $1; cat"
        echo two >>f' sh "$MARK"
    assert "$stderr" contains "  fl/.git/config: a git config with "
    host_git_everywhere
}

@test "threat 31: a plain git clone inside still works as a repository on the host" {
    run_x 0 agent-sandbox --exec sh -c '
        set -e
        git init -q origin && cd origin
        git config user.email a@b.test && git config user.name a
        echo one >f && git add f && git commit -qm one && cd ..
        git clone -q origin dep'
    assert "$stderr" !contains "$DISABLED"
    assert "$(git -C dep log -1 --format=%s)" == one "the clone's history on the host"
    assert "$(git -C dep config remote.origin.url)" == "$AS_DIR/origin" "the clone's config on the host"
    git -C dep status --short >/dev/null || die "git status in the clone on the host"
}

@test "threat 35: a link on the way to the hooks, re-pointed, is put back; host git commit runs nothing" {
    git init -q .
    mkdir -p tools/hooks
    rm -rf .git/hooks
    ln -s ../.githooks .git/hooks
    ln -s tools/hooks .githooks
    git commit -q --allow-empty -m one
    run_x --warns '.git/hooks is a symlink: what it points to is read-only inside' --warns "$WARN_DISABLED" 0 agent-sandbox --exec sh -c '
        mkdir -p .git/objects/hk
        printf "#!/bin/sh\ntouch %s\n" "$1" >.git/objects/hk/pre-commit && chmod +x .git/objects/hk/pre-commit
        ln -sfn .git/objects/hk .githooks && echo re-pointed' sh "$MARK"
    assert "$output" == re-pointed
    assert "$stderr" contains "  .githooks: a symlink on the way to the protected .git/hooks, re-pointed during the session; put back to tools/hooks"
    assert "$stderr" contains "  .git/objects/hk/pre-commit: new or changed, executable"
    assert "$(readlink .githooks)" == tools/hooks
    git commit -q --allow-empty -m two
    [ ! -e "$MARK" ] || die "host git commit ran the planted hook"
}

@test "threat 36: an executable hidden in a fake .git/objects is reported" {
    run_x --warns "$WARN_EXECUTABLES" 0 agent-sandbox --exec sh -c '
        mkdir -p vendor/.git/objects/ab vendor/x/objects
        printf "#!/bin/sh\n" >vendor/.git/objects/ab/payload && chmod +x vendor/.git/objects/ab/payload
        printf "#!/bin/sh\n" >vendor/x/objects/run && chmod +x vendor/x/objects/run'
    assert "$stderr" contains "  vendor/.git/objects/ab/payload: new or changed, executable"
    assert "$stderr" contains "  vendor/x/objects/run: new or changed, executable"
}

# A session whose CLI is killed never reaches its own end-of-session check:
# the next CLI runs it from the session's journal, once the sandbox is gone.
# plant_then_kill: plants a bare-shaped sub/ inside a session, then kills its
# CLI with SIGKILL.
plant_then_kill() {
    bg_start agent-sandbox --exec sh -c "$PLANT_BARE"'
        plant_bare sub "$1" && touch .planted && exec sleep 600' sh "$MARK"
    wait_for_file "$AS_DIR/.planted" 60
    kill -KILL "$AS_BG_PID"
    bg_wait 30
    assert "$status" == 137 "the killed CLI"
    [ -e "$AS_DIR/sub/config" ] || die "the planted config is not there"
}

@test "threat 31: a killed CLI's check runs at the next session's start, before its own set-up" {
    plant_then_kill
    run_x --warns "$WARN_UNCHECKED" 0 agent-sandbox --exec sh -c 'test -e sub/config && echo planted-left || echo disabled'
    assert "$output" == disabled "what the new session sees of the planted config"
    assert "$stderr" contains "ended without its end-of-session check (its CLI was killed); checked now:"
    assert "$stderr" contains "  sub/config: a git config with core.fsmonitor"
    host_git_everywhere
    assert "$(ls -A "$XDG_STATE_HOME/agent-sandbox/journals")" == "" "journals left"
}

@test "threat 31: a killed CLI's check runs at the next cleanup" {
    plant_then_kill
    run_x --warns "$WARN_UNCHECKED" 0 agent-sandbox cleanup
    assert "$stderr" contains "ended without its end-of-session check (its CLI was killed); checked now:"
    assert "$stderr" contains "  sub/config: a git config with core.fsmonitor"
    host_git_everywhere
    assert "$(ls -A "$XDG_STATE_HOME/agent-sandbox/journals")" == "" "journals left"
}

@test "threat 31: a killed CLI's check runs at the next session's start, from another tree" {
    plant_then_kill
    local other
    other=$(mktemp -d "$AS_E2E_ROOT/XXXXXXXX")
    cd "$other"
    run_x --warns "$WARN_UNCHECKED" 0 agent-sandbox --exec true
    cd "$AS_DIR"
    rm -rf "$other"
    assert "$stderr" contains "  sub/config: a git config with core.fsmonitor"
    host_git_everywhere
}
