#!/usr/bin/env bats
# The end-of-session check fails closed (threat model 40-43): what it cannot
# examine — an unreadable directory, a tree past a limit of the walk, a .git
# that git reads differently from a strict parser, a link through /proc — is
# disabled and named, never left live. Each test plants the attack inside a
# session, then runs real host git (or a host write) and checks that the
# payload's marker, outside the tree, never appears
# (docs/workspace-protection.md, "Complete, or fail closed").

load helpers

setup() {
    as_setup
    MARK=$AS_RUN_DIR/ran
    export GIT_AUTHOR_NAME=user GIT_AUTHOR_EMAIL=user@host.test
    export GIT_COMMITTER_NAME=user GIT_COMMITTER_EMAIL=user@host.test
    DISABLED="for host tools to run was DISABLED:"
}

teardown() {
    # a sealed directory (chmod 000) opens for the tree's removal
    [ -n "${AS_DIR:-}" ] && find "$AS_DIR" -type d -name '*.agent-sandbox-disabled*' -exec chmod u+rwx {} + 2>/dev/null
    [ -z "${AS_HOME_VOLUME:-}" ] || home_volume_teardown
    as_teardown
}

# git status, log and diff in every directory host git can enter, and
# `git add -A; git commit` in the ones given; fails if the payload ran.
host_git_in() {
    local d
    while IFS= read -r -d '' d; do
        (cd "$d" && git status && git log -1 && git diff) >/dev/null 2>&1 || true
    done < <(find "$AS_DIR" -type d -print0 2>/dev/null)
    for d in "$@"; do
        (cd "$AS_DIR/$d" && git status && git add -A && git commit -qm host) >/dev/null 2>&1 || true
    done
    [ ! -e "$MARK" ] || die "host git ran what the session planted"
}

@test "threat 40: a repository behind chmod 111 .git, and hooks behind chmod 111 .git/hooks, are disabled" {
    run_x --warns "$WARN_DISABLED" 0 agent-sandbox --exec sh -c '
        set -e
        git init -q a && git -C a config core.fsmonitor "touch $1" && echo x >a/f && chmod 111 a/.git
        git init -q h && echo x >h/f
        for hook in pre-commit post-index-change post-commit; do
            printf "#!/bin/sh\ntouch %s\n" "$1" >h/.git/hooks/$hook && chmod +x h/.git/hooks/$hook
        done
        chmod 111 h/.git/hooks' sh "$MARK"
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" contains "$DISABLED"
    assert "$stderr" contains "  a/.git/config: a git config with core.fsmonitor"
    assert "$stderr" contains "  h/.git/hooks/pre-commit: a git hook; moved to "
    assert "$stderr" contains "  h/.git/hooks/post-index-change: a git hook"
    # the modes the agent set are put back; host git needs only to search
    assert "$(stat -c %a a/.git h/.git/hooks)" == "111
111" "the modes after the check"
    host_git_in a h
}

@test "threat 41: past 300,000 entries and 256 levels, every planted repository is disabled" {
    run_x --timeout 300 --warns "$WARN_DISABLED" 0 agent-sandbox --exec sh -c '
        set -e
        python3 -c "
import os
os.mkdir(\"many\")
for i in range(300100):
    open(\"many/%d\" % i, \"w\").close()
"
        for i in $(seq 1 12); do
            git init -q "z$i" && git -C "z$i" config core.fsmonitor "touch $1" && echo x >"z$i/f"
        done
        deep=$(printf "d/%.0s" $(seq 1 260))
        mkdir -p "$deep" && git init -q "$deep" && git -C "$deep" config core.fsmonitor "touch $1"
        echo planted' sh "$MARK"
    assert "$output" == planted
    local i
    for i in $(seq 1 12); do
        assert "$stderr" contains "  z$i/.git/config: a git config with core.fsmonitor"
    done
    assert "$stderr" contains "a directory deeper than 256 levels, which the check does not examine; moved to "
    assert "$stderr" contains " and closed (chmod 000)"
    assert "$stderr" !contains "partial"
    [ ! -e "$(printf "d/%.0s" $(seq 1 257))" ] || die "the directory past the limit is still in place"
    for i in $(seq 1 12); do
        (cd "z$i" && git status) >/dev/null 2>&1 || true
    done
    [ ! -e "$MARK" ] || die "host git ran what the session planted"
}

# The home volume's host path: a directory outside the tree that the agent
# writes. An agent reads it from mountinfo where the storage is on the root
# file system; the test asks podman, so that the attack is real wherever the
# storage is mounted (in the podman 5 test bed, mountinfo names the path from
# the disk's root, not the bed's).
@test "threat 42: a .git symlink to a gitfile, and a gitfile with a NUL, pointing at a repository in the home volume" {
    home_volume_setup
    run_x 0 agent-sandbox --exec true
    local vol
    vol=$($PODMAN volume inspect --format '{{.Mountpoint}}' "$AS_HOME_VOLUME")
    run_x --warns "$WARN_DISABLED" 0 agent-sandbox --exec sh -c '
        set -e
        vol=$2
        git init -q "$HOME/evil" && git -C "$HOME/evil" config core.fsmonitor "touch $1"
        printf "gitdir: %s/evil/.git\n" "$vol" >pointer
        mkdir a b && ln -s ../pointer a/.git && echo x >a/f
        printf "gitdir: %s/evil/.git\0\n" "$vol" >b/.git && echo x >b/f' sh "$MARK" "$vol"
    [ -d "$vol/evil/.git" ] || die "the attack is not real here: $vol/evil/.git is not the home volume's repository"
    assert "$stderr" contains "  a/.git: a .git file naming a git directory outside the launch directory"
    assert "$stderr" contains "  b/.git: a .git file naming a git directory outside the launch directory"
    host_git_in a b
}

@test "threat 43: a link through /proc/self/cwd counts as leading out of the tree" {
    run_x --warns "$WARN_DISABLED" 0 agent-sandbox --exec sh -c 'ln -s /proc/self/cwd/.target notes.txt && ln -s /proc/self/root/tmp/x other.txt'
    assert "$stderr" contains "  notes.txt: a symlink made or re-pointed during the session, to /proc/self/cwd/.target, outside the launch directory; now a file that names its target"
    assert "$stderr" contains "  other.txt: a symlink made or re-pointed during the session, to /proc/self/root/tmp/x"
    [ -f notes.txt ] && [ ! -L notes.txt ] || die "notes.txt is still a link"
    # a host tool started elsewhere (an editor from the run directory) saves it
    (cd "$AS_RUN_DIR" && echo saved >"$AS_DIR/notes.txt")
    [ ! -e "$AS_RUN_DIR/.target" ] || die "the host write went out of the tree"
}

@test "git init's sample hooks and a plain clone give no warning; a long report is kept whole in the state directory" {
    run_x 0 agent-sandbox --exec sh -c '
        set -e
        git init -q fresh
        git init -q origin && cd origin && git config user.email a@b.test && git config user.name a
        echo one >f && git add f && git commit -qm one && cd .. && git clone -q origin dep'
    assert "$stderr" !contains "warning:"
    run_x --warns "$WARN_DISABLED" 0 agent-sandbox --exec sh -c '
        for i in $(seq 1 40); do git init -q "r$i" && git -C "r$i" config core.fsmonitor "touch $1"; done' sh "$MARK"
    assert "$stderr" contains "  ... and 10 more, each renamed"
    local file
    file=$(sed -n 's/^The whole report: //p' <<<"$stderr")
    [ -n "$file" ] || die "no path of the whole report"
    assert "$file" =~ "^$XDG_STATE_HOME/agent-sandbox/reports/[0-9a-f]+\.txt$"
    local i
    for i in $(seq 1 40); do
        grep -q "^  r$i/.git/config: a git config with core.fsmonitor" "$file" || die "r$i is not in $file"
    done
    assert "$(stat -c %a "$file")" == 600
    host_git_in
}

@test "threat 40, 42: a killed CLI's check, run by the next cleanup, fails closed too; its placeholders go" {
    bg_start agent-sandbox --exec sh -c '
        git init -q a && git -C a config core.fsmonitor "touch $1" && chmod 111 a/.git
        mkdir b && printf "gitdir: /elsewhere/.git\0\n" >b/.git
        touch .planted && exec sleep 600' sh "$MARK"
    wait_for_file "$AS_DIR/.planted" 60
    [ -d .envrc ] || die "no placeholder while the session runs"
    kill -KILL "$AS_BG_PID"
    bg_wait 30
    assert "$status" == 137 "the killed CLI"
    run_x --warns "$WARN_UNCHECKED" 0 agent-sandbox cleanup
    assert "$stderr" contains "ended without its end-of-session check (its CLI was killed); checked now:"
    assert "$stderr" contains "  a/.git/config: a git config with core.fsmonitor"
    assert "$stderr" contains "  b/.git: a .git file naming a git directory outside the launch directory"
    assert "$(stat -c %a a/.git)" == 111 "the mode the agent set, put back"
    [ ! -e .envrc ] || die "the session's placeholders are left after the check"
    host_git_in a b
}
