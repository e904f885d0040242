#!/usr/bin/env bats
# The default mode's attacks on the workspace (threat model 31, 35, 38, 40,
# 42, 44, 45: 330-host-git, 330-host-tools, 335-host-python,
# 336-agent-configs, 340-host-fail-closed; 55-59: 337-host-classes), planted in ONE review session
# and then applied with a plain `agent-sandbox apply`: the host tools they
# target run nothing afterwards (issue 27, docs/review-apply.md).

load helpers

setup() {
    as_setup
    # The payloads' trace: outside the tree, so only the host can write it.
    MARK=$AS_RUN_DIR/ran
    export GIT_AUTHOR_NAME=user GIT_AUTHOR_EMAIL=user@host.test
    export GIT_COMMITTER_NAME=user GIT_COMMITTER_EMAIL=user@host.test
}

# What the overlay leaves in a review's work/work belongs to the
# container's root (docs/review.md): podman's namespace removes it.
teardown() {
    $PODMAN unshare rm -rf "$XDG_STATE_HOME/agent-sandbox/reviews" || true
    as_teardown
}

# The protected files of the host tree: checksums, modes, link targets.
protected_state() {
    (cd "$AS_DIR" && find .git/config .git/hooks .venv/bin/activate .venv/pyvenv.cfg \
        -printf '%p %y %m %l\n' | LC_ALL=C sort &&
        find .git/config .git/hooks .venv -type f -exec sha256sum {} + | LC_ALL=C sort)
}

# Host git status, log, diff in every directory host git can enter, and
# add + commit at the top; host python and activate of the environment.
host_tools() {
    local d
    while IFS= read -r -d '' d; do
        (cd "$d" && git status && git log -1 && git diff) >/dev/null 2>&1 || true
    done < <(find "$AS_DIR" -path "$AS_DIR/.git" -prune -o -type d -print0 2>/dev/null)
    (git add -A && git commit -qm host) >/dev/null 2>&1 || true
    .venv/bin/python -c pass || die "host python in the environment fails"
    bash -c '. .venv/bin/activate && python -c pass' >/dev/null 2>&1 || true
}

# Inside the review session: an ordinary edit, then every attack at once.
# Writes to the frozen paths fail inside; the rest waits in the upper layer.
PLANT='
mark=$1 sp=$2
echo two >>a.txt
# 330-host-git (31, 35): the top .git, a nested repository with fsmonitor
# and hooks, an alias with !, a .gitattributes filter
{ printf "[core]\n\tfsmonitor = touch %s.top\n" "$mark" >>.git/config; } 2>/dev/null
{ printf "#!/bin/sh\ntouch %s.top\n" "$mark" >.git/hooks/pre-commit && chmod +x .git/hooks/pre-commit; } 2>/dev/null
git init -q nested && git -C nested config core.fsmonitor "touch $mark.nested" && echo x >nested/f
git -C nested config alias.st "!touch $mark.nested" && git -C nested config filter.x.clean "touch $mark.nested; cat"
echo "* filter=x" >nested/.gitattributes
for h in pre-commit post-commit post-index-change reference-transaction; do
    printf "#!/bin/sh\ntouch %s.nested\n" "$mark" >nested/.git/hooks/$h && chmod +x nested/.git/hooks/$h
done
# 330-host-git (31): a bare-shaped directory whose config runs fsmonitor
git init -q --bare /tmp/b && mkdir bare && cp -r /tmp/b/HEAD /tmp/b/objects /tmp/b/refs bare/
printf "[core]\n\tfsmonitor = \"touch %s.bare\"\n\tbare = false\n\tworktree = .\n" "$mark" >bare/config
# 340-host-fail-closed (42): chmod 111 .git, a .git symlink to a gitfile,
# a gitfile with a NUL
git init -q locked && git -C locked config core.fsmonitor "touch $mark.locked" && echo x >locked/f
chmod 111 locked/.git
git init -q "$HOME/evil" && git -C "$HOME/evil" config core.fsmonitor "touch $mark.gitfile"
printf "gitdir: %s/evil/.git\n" "$HOME" >pointer
mkdir la lb && ln -s ../pointer la/.git && echo x >la/f
printf "gitdir: %s/evil/.git\0\n" "$HOME" >lb/.git && echo x >lb/f
# 330-host-tools (37, 38): tool configs, a link out of the tree
{ echo "registry=http://127.0.0.1:9/" >.npmrc; } 2>/dev/null
mkdir -p tools && echo "registry=http://127.0.0.1:9/" >tools/.npmrc && ln -s "$mark.link" notes.md
# 336-agent-configs (45) and editors: .envrc, tasks, MCP configs
{ echo "touch $mark.envrc" >.envrc; } 2>/dev/null
{ mkdir -p .vscode && echo "{}" >.vscode/tasks.json; } 2>/dev/null
mkdir -p sub && echo "touch $mark.envrc" >sub/.envrc
echo "{\"mcpServers\":{\"x\":{\"command\":\"touch\",\"args\":[\"$mark.mcp\"]}}}" >.mcp.json 2>/dev/null
# 335-host-python (44): a .pth, a sitecustomize, an appended activate
printf "import os; open(\"%s.pth\", \"w\")\n" "$mark" >"$sp/evil.pth"
printf "open(\"%s.site\", \"w\")\n" "$mark" >"$sp/sitecustomize.py"
printf "touch %s.activate\n" "$mark" >>.venv/bin/activate
echo planted'

@test "threat 49: the default mode's attacks, planted in a review session and applied, run nothing on the host" {
    command -v python3 >/dev/null || skip "no python3 on the host"
    git init -q -b main .
    echo one >a.txt
    python3 -m venv --without-pip .venv
    local sp
    sp=$(echo .venv/lib/python3*/site-packages)
    git add -A && git commit -qm host
    local before
    before=$(protected_state)
    run_x 0 agent-sandbox --review --exec sh -c "$PLANT" sh "$MARK" "$sp"
    assert "$output" == planted
    run_x 1 agent-sandbox apply
    echo "$output" >"$AS_RUN_DIR/apply.out"
    local p
    for p in nested/.git la/.git lb/.git; do
        assert "$output" contains "refused   $p: inside a nested .git" "apply refuses $p"
    done
    assert "$output" contains "refused   locked/.git: cannot be examined: a directory that cannot be read or searched"
    for p in bare/HEAD bare/config bare/objects bare/refs; do
        assert "$output" contains "refused   $p: inside a directory that host git would take for a repository" "apply refuses $p"
    done
    assert "$output" contains "refused   $sp/evil.pth: a .pth file of a virtual environment"
    assert "$output" contains "refused   $sp/sitecustomize.py: a sitecustomize or usercustomize module"
    assert "$output" contains "refused   .venv/bin/activate: an activate script of a virtual environment"
    assert "$output" contains "refused   tools/.npmrc: a protected path (.npmrc)"
    assert "$output" contains "refused   sub/.envrc: a protected path (.envrc)"
    assert "$output" contains "refused   notes.md: a link that leads out of the tree (to $MARK.link)"
    assert "$output" contains "changed   a.txt"
    assert "$(cat a.txt)" == $'one\ntwo' "the ordinary edit landed"
    assert "$(protected_state)" == "$before" "the host tree's protected files"
    [ ! -e .envrc ] && [ ! -e sub/.envrc ] && [ ! -e tools/.npmrc ] && [ ! -e .vscode ] || die "a protected path landed"
    [ ! -e nested/.git ] && [ ! -e locked/.git ] && [ ! -e la/.git ] && [ ! -e lb/.git ] || die "a nested .git landed"
    [ -z "$(ls -A bare)" ] || die "the bare-shaped directory's content landed: $(ls -A bare)"
    [ ! -e "$sp/evil.pth" ] && [ ! -e "$sp/sitecustomize.py" ] || die "a venv start-up file landed"
    host_tools
    local m ran=
    for m in "$MARK".*; do
        [ ! -e "$m" ] || ran+=" ${m##*.}"
    done
    [ -z "$ran" ] || die "host tools ran what the review session planted:$ran"
}

@test "threat 49: a killed CLI's review is refused while its containers are there, then diffable and applicable" {
    echo one >a.txt
    bg_start agent-sandbox --review --exec sh -c 'echo two >>a.txt; echo new >b.txt; touch .ready; exec sleep 600'
    local n
    for ((n = 0; n < 600; n++)); do
        compgen -G "$XDG_STATE_HOME/agent-sandbox/reviews/*/upper/.ready" >/dev/null && break
        [ -s "$AS_RUN_DIR/bg.rc" ] && die "the session ended early: $(cat "$AS_RUN_DIR/bg.stderr")"
        sleep 0.1
    done
    kill -KILL "$AS_BG_PID"
    bg_wait 30
    assert "$status" == 137 "the killed CLI"
    # its agent may still write the upper layer: apply refuses until
    # cleanup has removed the killed CLI's containers
    run_x 64 agent-sandbox apply
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" contains "are still there (its CLI was killed, its agent may still write): \`agent-sandbox cleanup\` removes them"
    [ ! -e b.txt ] || die "apply wrote while the session's containers were there"
    run_x 0 agent-sandbox cleanup
    run_x 0 agent-sandbox diff --stat
    assert "$output" contains "a.txt"
    assert "$output" contains "b.txt"
    run_x 0 agent-sandbox apply
    assert "$output" contains "changed   a.txt"
    assert "$output" contains "added     b.txt"
    assert "$(cat a.txt)" == $'one\ntwo' "the edit landed"
    assert "$(cat b.txt)" == new "the addition landed"
}

# Issue 46, route 9: the agent's view is the kernel overlay, which takes
# other flavours' markers for plain data. A `.wh.NAME` file, a
# `.wh..wh..opq` and fuse-overlayfs' opaque xattr, made inside, are what
# the agent saw: files it added, a directory it added to. The review
# deletes nothing the agent still saw; a deletion by the kernel's own
# marker (its whiteout) and a directory it replaced whole still count.
@test "threat 49: another overlay's markers are plain files in the review; apply deletes nothing the agent still saw" {
    echo keep >keep.txt
    echo old >old.txt
    mkdir -p d f r && echo d >d/kept && echo f >f/kept && echo r >r/gone
    run_x 0 agent-sandbox --review --exec python3 -c '
import os, shutil
open(".wh.keep.txt", "w").close()
open("d/.wh..wh..opq", "w").close()
open("f/new", "w").write("new\n")
os.setxattr("f", "user.fuseoverlayfs.opaque", b"y")
os.remove("old.txt")
shutil.rmtree("r"); os.mkdir("r"); open("r/fresh", "w").write("fresh\n")
print(sorted(os.listdir(".")), sorted(os.listdir("d")), sorted(os.listdir("f")))'
    assert "$output" == "['.wh.keep.txt', 'd', 'f', 'keep.txt', 'r'] ['.wh..wh..opq', 'kept'] ['kept', 'new']" \
        "what the agent saw"
    run_x 0 agent-sandbox diff --stat
    assert "$output" contains " A .wh.keep.txt"
    assert "$output" contains " A d/.wh..wh..opq"
    assert "$output" contains " A f/new"
    assert "$output" contains " D old.txt"
    assert "$output" contains " D r/gone"
    assert "$output" !contains " D keep.txt"
    assert "$output" !contains " D d/kept"
    assert "$output" !contains " D f/kept"
    run_x 0 agent-sandbox apply
    [ "$(cat keep.txt)" = keep ] && [ "$(cat d/kept)" = d ] && [ "$(cat f/kept)" = f ] ||
        die "apply deleted what the agent still saw: $(ls -la . d f)"
    [ ! -e old.txt ] && [ ! -e r/gone ] && [ "$(cat r/fresh)" = fresh ] || die "the kernel's own deletions did not land"
    [ -e .wh.keep.txt ] && [ -e d/.wh..wh..opq ] && [ "$(cat f/new)" = new ] || die "the agent's files did not land"
}

# Issue 46's routes 1-8, planted in one review session and applied: apply's
# filter judges the same classes as the default mode's end of session.
@test "threat 55-59: the class attacks of issue 46, planted in a review session and applied, run nothing on the host" {
    command -v python3 >/dev/null || skip "no python3 on the host"
    command -v hg >/dev/null || skip "mercurial is not installed (scripts/setup-host.sh installs it)"
    hg init old
    python3 -m venv --without-pip .venv
    printf 'X = "from the source"\n#%0300d\n' 0 >mod.py
    printf 'import mod\nprint(mod.X)\n' >app.py
    run_x 0 agent-sandbox --review --exec sh -c '
        mark=$1
        printf "[hooks]\npre-status = touch %s.hg\n" "$mark" >old/.hg/hgrc-not-shared
        mkdir -p sub/.hg/store && printf "store\n" >sub/.hg/requires && printf "[hooks]\npre-status = touch %s.hg\n" "$mark" >sub/.hg/hgrc
        mkdir -p tc/bin && ln -s /bin/sh tc/bin/cargo && printf "[toolchain]\npath = \"%s/tc\"\n" "$PWD" >rust-toolchain.toml
        ln -s /bin/sh .venv/bin/git && printf "touch %s.git\n" "$mark" >status
        printf "open(\"%s.argparse\", \"w\")\n" "$mark" >argparse.py
        printf "[global]\nindex-url = http://127.0.0.1:9/simple\n" >.venv/pip.conf
        printf "pnpmfile: hooks.cjs\n" >pnpm-workspace.yaml
        mkdir -p __pycache__ && printf "x" >"__pycache__/mod.$(python3 -c "import sys; print(sys.implementation.cache_tag)").pyc"
        echo planted' sh "$MARK"
    assert "$output" == planted
    run_x 1 agent-sandbox apply
    assert "$output" contains "refused   old/.hg/hgrc-not-shared: the metadata of a version-control tool"
    assert "$output" contains "refused   sub/.hg: the metadata of a version-control tool"
    assert "$output" contains "refused   tc/bin/cargo: a link that leads out of the tree (to /"
    assert "$output" contains "refused   rust-toolchain.toml: a protected path (rust-toolchain.toml)"
    assert "$output" contains "refused   .venv/bin/git: "
    assert "$output" contains "refused   argparse.py: a Python module named argparse"
    assert "$output" contains "refused   .venv/pip.conf: a config file in a virtual environment"
    assert "$output" contains "refused   pnpm-workspace.yaml: a protected path (pnpm-workspace.yaml)"
    assert "$output" contains "refused   __pycache__/mod."
    [ ! -e argparse.py ] && [ ! -e rust-toolchain.toml ] && [ ! -e .venv/pip.conf ] && [ ! -e .venv/bin/git ] ||
        die "a refused change landed"
    (cd old && hg status) >/dev/null 2>&1 || true
    bash -c '. .venv/bin/activate && git status' >/dev/null 2>&1 || true
    timeout 60 python3 -m venv --without-pip "$AS_RUN_DIR/v" >/dev/null 2>&1 || true
    run_x 0 python3 app.py
    assert "$output" == "from the source"
    local m ran=
    for m in "$MARK".*; do
        [ ! -e "$m" ] || ran+=" ${m##*.}"
    done
    [ -z "$ran" ] || die "host tools ran what the review session planted:$ran"
}
