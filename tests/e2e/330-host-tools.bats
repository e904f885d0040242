#!/usr/bin/env bats
# What host tools do with the tree afterwards (threat model 37, 38): new
# links out of the tree, project configs that host tools obey, modules that
# shadow a tool. Real npm, cargo, yarn and hg on the host where installed
# (scripts/setup-host.sh installs them); docs/workspace-protection.md.

load helpers

setup() {
    as_setup
    MARK=$AS_RUN_DIR/ran
    LISTENER_PID=
}

teardown() {
    [ -z "$LISTENER_PID" ] || kill "$LISTENER_PID" 2>/dev/null || true
    as_teardown
}

# The tool configs of the default set outside .git: none can be written
# inside, whether it exists or not.
TOOL_FILES=(.npmrc .yarnrc .yarnrc.yml .pnpmfile.cjs .lfsconfig .bazelrc .bazelversion .tool-versions
            .mise.toml .mise.local.toml .cargo/config.toml .mvn/jvm.config)

@test "threat 38: the tool configs of the default set cannot be written inside" {
    mkdir -p .cargo
    echo 'registry=https://registry.npmjs.org/' >.npmrc
    run_x 0 agent-sandbox --exec sh -c '
        for p in "$@"; do
            (echo evil >"$p") 2>/dev/null && echo "WROTE $p"
            (echo evil >>"$p") 2>/dev/null && echo "APPENDED $p"
        done
        echo done' sh "${TOOL_FILES[@]}"
    assert "$output" == "done" "tool configs written inside"
    assert "$(cat .npmrc)" == 'registry=https://registry.npmjs.org/'
}

@test "threat 37: a new link out of the tree: npm install --ignore-scripts and an in-place save leave the outside file as it was" {
    command -v npm >/dev/null || skip "npm is not installed (scripts/setup-host.sh installs it)"
    local outside=$AS_RUN_DIR/bashrc
    printf '# the user file\n' >"$outside"
    cp "$outside" "$AS_RUN_DIR/bashrc.orig"
    run_x --warns "$WARN_DISABLED" 0 agent-sandbox --exec sh -c '
        ln -s "$1" package-lock.json && ln -s "$1" notes.md && ln -s src inside-link
        printf "{\"name\":\"x\",\"version\":\"1.0.0\",\"description\":\"\$(touch %s)\"}\n" "$2" >package.json
        mkdir -p src' sh "$outside" "$MARK"
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" contains "  package-lock.json: a symlink made or re-pointed during the session, to $outside, outside the launch directory; now a file that names its target"
    assert "$stderr" contains "  notes.md: a symlink made or re-pointed"
    assert "$stderr" !contains "inside-link:"
    [ -L inside-link ] || die "a link inside the tree was touched"
    timeout 120 npm install --ignore-scripts --offline --no-audit --no-fund >/dev/null 2>&1 || true
    printf 'appended by an editor\n' >>notes.md
    cmp "$outside" "$AS_RUN_DIR/bashrc.orig" || die "the file outside the tree changed: $(cat "$outside")"
}

# Starts a TCP listener on loopback that logs whatever reaches it; sets
# LISTENER_PORT and LISTENER_LOG.
start_listener() {
    LISTENER_LOG=$AS_RUN_DIR/listener.log
    : >"$LISTENER_LOG"
    python3 - "$LISTENER_LOG" "$AS_RUN_DIR/listener.port" <<'PY' &
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(8)
open(sys.argv[2], "w").write(str(s.getsockname()[1]))
while True:
    c, _ = s.accept()
    c.settimeout(2)
    try:
        data = c.recv(65536)
    except OSError:
        data = b"(connected)"
    open(sys.argv[1], "ab").write(data or b"(connected)")
    c.close()
PY
    LISTENER_PID=$!
    wait_for_file "$AS_RUN_DIR/listener.port" 10
    LISTENER_PORT=$(<"$AS_RUN_DIR/listener.port")
}

@test "threat 38: a project .npmrc cannot send the user's token to a listener the agent chose" {
    command -v npm >/dev/null || skip "npm is not installed (scripts/setup-host.sh installs it)"
    start_listener
    echo '{"name":"p","version":"1.0.0"}' >package.json
    run_x --warns "$WARN_DISABLED" 0 agent-sandbox --exec sh -c '
        rc="registry=http://127.0.0.1:$1/
//127.0.0.1:$1/:_authToken=\${SECRET_TOKEN}"
        (echo "$rc" >.npmrc) 2>/dev/null && echo "WROTE .npmrc"
        mkdir -p sub && echo "$rc" >sub/.npmrc && echo "{\"name\":\"s\",\"version\":\"1.0.0\"}" >sub/package.json
        echo done' sh "$LISTENER_PORT"
    assert "$output" == "done"
    assert "$stderr" contains "  sub/.npmrc: a tool config the tool obeys when run in that directory; moved to sub/.npmrc.agent-sandbox-disabled"
    # The user's own registry: a loopback port where nothing listens.
    echo 'registry=http://127.0.0.1:9/' >"$AS_RUN_DIR/npmrc"
    local d
    for d in . sub; do
        (cd "$d" && SECRET_TOKEN=s3cret-token npm_config_userconfig="$AS_RUN_DIR/npmrc" npm_config_fetch_retries=0 \
            timeout 60 npm view left-pad version >/dev/null 2>&1) || true
    done
    assert "$(cat "$LISTENER_LOG")" == "" "what reached the agent's listener"
}

@test "threat 38: .cargo/config.toml cannot be planted: cargo metadata runs no wrapper" {
    command -v cargo >/dev/null || skip "cargo is not installed (scripts/setup-host.sh installs it)"
    timeout 120 cargo init -q --vcs none --name p . || die "cargo init on the host"
    run_x --warns "$WARN_EXECUTABLES" 0 agent-sandbox --exec sh -c '
        printf "#!/bin/sh\ntouch %s\nexec \"\$@\"\n" "$1" >w.sh && chmod +x w.sh
        mkdir -p .cargo 2>/dev/null
        (printf "[build]\nrustc-wrapper = \"%s/w.sh\"\n" "$PWD" >.cargo/config.toml) 2>/dev/null && echo WROTE
        echo done' sh "$MARK"
    assert "$output" == "done" ".cargo/config.toml written inside"
    timeout 120 cargo metadata --offline --format-version 1 >/dev/null 2>&1 || true
    [ ! -e "$MARK" ] || die "cargo ran the planted wrapper"
}

@test "threat 38: .yarnrc.yml and .yarnrc cannot be planted: yarn runs no yarnPath" {
    command -v yarnpkg >/dev/null || skip "yarnpkg is not installed (scripts/setup-host.sh installs it)"
    run_x 0 agent-sandbox --exec sh -c '
        printf "require(\"fs\").writeFileSync(\"%s\", \"x\")\n" "$1" >y.cjs
        (echo "yarnPath: y.cjs" >.yarnrc.yml) 2>/dev/null && echo WROTE
        (echo "yarn-path \"y.cjs\"" >.yarnrc) 2>/dev/null && echo WROTE
        echo done' sh "$MARK"
    assert "$output" == "done"
    # Debian's yarn finds its modules in /usr/share/nodejs.
    NODE_PATH=/usr/share/nodejs timeout 60 yarnpkg --version >/dev/null 2>&1 || true
    [ ! -e "$MARK" ] || die "yarn ran the planted yarnPath"
}

@test "threat 38: .hg/hgrc cannot be planted: hg root and hg status run nothing" {
    command -v hg >/dev/null || skip "mercurial is not installed (scripts/setup-host.sh installs it)"
    hg init .
    run_x 0 agent-sandbox --exec sh -c '
        printf "import os\ndef extsetup(ui):\n    open(\"%s\", \"w\")\n" "$1" >evil.py
        (printf "[hooks]\npre-status = touch %s\n[extensions]\nevil = %s/evil.py\n" "$1" "$PWD" >>.hg/hgrc) 2>/dev/null && echo WROTE
        echo done' sh "$MARK"
    assert "$output" == "done"
    hg root >/dev/null 2>&1 || true
    hg status >/dev/null 2>&1 || true
    [ ! -e "$MARK" ] || die "hg ran what the session planted"
}

@test "threat 38, 57: a module shadowing pip when run from the tree is disabled" {
    command -v python3 >/dev/null || skip "no python3 on the host"
    run_x --warns "$WARN_DISABLED" 0 agent-sandbox --exec sh -c 'mkdir -p pip && echo "print(1)" >pip/__main__.py && echo "x=1" >setuptools.py'
    assert "$stderr" contains "  pip: a Python module named pip, like one of the host python's or what python3 -m runs"
    assert "$stderr" contains "  setuptools.py: a Python module named setuptools, like one"
    [ ! -e pip ] && [ ! -e setuptools.py ] || die "the modules are still there"
}
