#!/usr/bin/env bats
# The agents (docs/agents.md), each run with `--agent NAME`: each built
# agent runs in the sandbox at its pinned version with no network, draws its
# first screen in a real terminal, runs any command in its image with its
# profile's variables (and only Claude Code gets the shared login), and
# `verify --agent NAME` holds; its image has nothing to escalate to and its
# telemetry off. An agent whose image was not built (`make images
# AGENTS=NAME`) is skipped with the command that builds it; a session of it
# stops with that command. And agent-fetch, which brings every agent's
# tarballs, takes nothing whose digest differs from the pin.

load helpers
load tmux
load autonomy

setup() {
    as_setup
    home_volume_setup
    allow_nothing
    tmux_setup
    # shellcheck disable=SC2018,SC2019  # ASCII on purpose: a podman name
    AS_PREFIX=as-e2e-$(basename "$AS_DIR" | tr 'A-Z' 'a-z')
    # every session finds its agent's image by the profile, with the tag
    # of this build
    AS_TAG=$(image_tag)
    unset AGENT_SANDBOX_IMAGE
}

teardown() {
    local rc=0
    tmux_teardown "^$AGENT_SANDBOX_BIN --agent " || rc=1
    [ -z "${AS_HTTP_PID:-}" ] || kill "$AS_HTTP_PID" 2>/dev/null || true
    as_teardown || rc=1
    home_volume_teardown
    # shellcheck disable=SC2086  # $PODMAN splits, as make's $(PODMAN) does
    $PODMAN volume ls -q | grep "^$AS_PREFIX-" | xargs -r $PODMAN volume rm -f >/dev/null 2>&1 || true
    return $rc
}

# The image tag of this build: the one of AGENT_SANDBOX_IMAGE when set
# (make e2e SANDBOX_IMAGE=...), else the development builds' "dev".
image_tag() {
    local image=${AGENT_SANDBOX_IMAGE:-localhost/agent-sandbox:dev}
    echo "${image##*:}"
}

# use_agent NAME: skip this test when NAME's image (mk/images.mk names it)
# was not built; the sessions run it with --agent NAME, which finds the
# image by the profile. Sets AS_PINNED, its pinned version.
use_agent() {
    local image
    image=localhost/agent-sandbox-$1:$AS_TAG
    AS_PINNED=$(sed -n 's/^version[[:space:]]*//p' "$AS_TOP/sandbox-image/agents/$1.version")
    assert "$AS_PINNED" =~ '^[0-9]+\.[0-9]+\.[0-9]+' "the pinned version of $1"
    $PODMAN image exists "$image" || skip "no image $image: \`make images AGENTS=$1\` builds it"
}

# first_screen NAME REGEX: `agent-sandbox --agent NAME` in a 100x30
# terminal runs the agent in its unattended mode (autonomy on, the
# default: its command line holds the profile's autonomy-args,
# 215-agent-autonomy.bats has the rest) and draws a line matching REGEX
# within 60 s (the screen goes into the test's output, the TAP stream,
# either way), and the agent ends on a SIGHUP.
first_screen() {
    "${AS_TMUX[@]}" new-session -d -s as -x 100 -y 30 \
        "cd '$AS_DIR' && exec '$AGENT_SANDBOX_BIN' --agent $1"
    agent_has_autonomy "$1" yes
    local rc=0
    wait_pane "$2" 60 || rc=1
    { echo "# $1's first screen:"; pane | sed 's/^/#   /'; } >&3
    [ $rc = 0 ] || return 1
    # A closed terminal: the CLI passes the SIGHUP on to the agent, once.
    # Sent here straight to the agent, so that nothing else (a write to the
    # closed terminal failing) can end the session in its stead.
    # (Claude Code, offline, ends by itself after its first screen.)
    local agent n
    agent=$($PODMAN ps --filter label=agent-sandbox.session --format '{{.Names}}' | grep -e '-agent$' || true)
    [ -z "$agent" ] || $PODMAN kill --signal HUP "$agent" >/dev/null 2>&1 || true
    for ((n = 0; n < 100; n++)); do
        pgrep -u "$(id -u)" -f -- "^$AGENT_SANDBOX_BIN --agent $1" >/dev/null || return 0
        sleep 0.1
    done
    die "$1 is still running 10 s after a SIGHUP:"$'\n'"$($PODMAN top "$agent" pid args)"
}

# version_offline NAME FORMAT: with no allowed name, `--agent NAME --
# --version` prints the pinned version in NAME's own FORMAT (printf, %s the
# version).
version_offline() {
    use_agent "$1"
    run_x 0 agent-sandbox --agent "$1" -- --version
    # shellcheck disable=SC2059  # $2 is the format, %s the pin
    assert "$output" == "$(printf "$2" "$AS_PINNED")"
}

# exec_inside NAME: `--agent NAME --exec` runs any command in NAME's image,
# with the profile's variables (its telemetry switches) and its home; with
# per-project homes, only an agent with login-env (Claude Code) gets the
# shared login volume and the variable that points there.
exec_inside() {
    use_agent "$1"
    unset AGENT_SANDBOX_HOME_VOLUME
    export AGENT_SANDBOX_VOLUME_PREFIX=$AS_PREFIX
    run_x 0 agent-sandbox --agent "$1" --exec sh -c '
        command -v "$1"; echo "HOME=$HOME"; env
        ls -d /var/lib/agent-sandbox-login 2>/dev/null || echo "no login volume"' sh "$1"
    assert "${lines[0]}" == "/usr/local/bin/$1" "the agent's program, in its image"
    assert "${lines[1]}" == "HOME=/home/agent"
    local want
    # shellcheck disable=SC2013  # one word a line
    for want in $(sed -n 's/^telemetry-off[[:space:]]*//p; s/^env[[:space:]]*//p' "$AS_TOP/config/agents/$1"); do
        assert "$output" contains $'\n'"$want"$'\n' "the profile's $want"
    done
    if [ "$1" = claude ]; then
        assert "$output" contains $'\nCLAUDE_SECURESTORAGE_CONFIG_DIR=/var/lib/agent-sandbox-login\n'
        assert "${lines[-1]}" == /var/lib/agent-sandbox-login "the shared login volume"
    else
        assert "$output" !contains CLAUDE_SECURESTORAGE_CONFIG_DIR
        assert "${lines[-1]}" == "no login volume" "Claude Code's login, in $1's session"
    fi
}

@test "claude: --agent claude -- --version prints the pinned version, with no network" {
    version_offline claude '%s (Claude Code)'
}

@test "claude: its first screen in tmux" {
    # Offline it says it cannot reach api.anthropic.com, and ends.
    use_agent claude && first_screen claude "Welcome to Claude Code v$AS_PINNED"
}

@test "claude: --agent claude --exec runs in its image, with its variables and the shared login" {
    exec_inside claude
}

@test "codex: --agent codex -- --version prints the pinned version, with no network" {
    version_offline codex 'codex-cli %s'
}

@test "codex: its first screen in tmux offers the sign-in routes" {
    use_agent codex && first_screen codex 'Sign in with Device Code'
}

@test "codex: --agent codex --exec runs in its image, with its variables, without Claude's login" {
    exec_inside codex
}

@test "gemini: --agent gemini -- --version prints the pinned version, with Node.js from the npm registry" {
    version_offline gemini '%s'
    local node
    node=$(awk -v p="$("$AS_TOP/sandbox-image/agent-fetch" --platform)" '$1 == "tarball" && $2 == "node" && $3 == p { print $5 }' \
        "$AS_TOP/sandbox-image/agents/gemini.version")
    run_x 0 agent-sandbox --agent gemini --exec node --version
    assert "$output" == "v$node" "the pinned node"
}

@test "gemini: its first screen in tmux" {
    # A new launch directory: Gemini CLI first asks whether to trust it.
    use_agent gemini && first_screen gemini 'Do you trust the files in this folder\?'
}

@test "gemini: --agent gemini --exec runs in its image, with its variables, without Claude's login" {
    exec_inside gemini
}

@test "opencode: --agent opencode -- --version prints the pinned version, with no network" {
    version_offline opencode '%s'
}

@test "opencode: its first screen in tmux" {
    # "Build auto": its --auto (autonomy on) shows under the prompt
    use_agent opencode && first_screen opencode 'Build auto'
}

@test "opencode: --agent opencode --exec runs in its image, with its variables, without Claude's login" {
    exec_inside opencode
}

@test "verify --agent NAME: every property holds in each built agent's session, its profile's among them" {
    local name built=
    for name in claude codex gemini opencode; do
        $PODMAN image exists "localhost/agent-sandbox-$name:$AS_TAG" || continue
        built="$built $name"
        run_x 0 agent-sandbox verify --agent "$name"
        assert "$output" contains "0 failed" "verify of $name"
        assert "$output" =~ "PASS  the agent's profile holds[^"$'\n'"]*  $name at /usr/local/bin/$name;" "$name's profile"
    done
    [ -n "$built" ] || skip "no agent image built (make images)"
}

@test "a missing agent image: exit 66 and the command that builds it; nothing left" {
    local image=localhost/agent-sandbox-crush:$AS_TAG
    ! $PODMAN image exists "$image" || skip "$image exists"
    run_x "$EX_NOIMAGE" agent-sandbox --agent crush --exec true
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" contains "the sandbox image $image is missing; build it with \`make images AGENTS=crush\`"
    assert "$output" == ""
    leak_check "after the failed start" || die "a failed start left resources behind"
}

@test "threat 20: no setuid or setgid file in any built agent image; telemetry off in its settings" {
    local name image built=
    for name in claude codex gemini opencode; do
        image=localhost/agent-sandbox-$name:$AS_TAG
        $PODMAN image exists "$image" || continue
        built="$built $name"
        # shellcheck disable=SC2086  # $PODMAN splits, as make's $(PODMAN) does
        run_x 0 $PODMAN run --rm --network none --user 0:0 "$image" \
            sh -c 'find / -xdev -perm /6000; echo "find: $?"'
        assert "$output" == "find: 0" "setuid/setgid files in $image"
    done
    [ -n "$built" ] || skip "no agent image built (make images)"
    # The switches agent-install writes, read back from each built image.
    local -A want=(
        [codex]='grep -A1 -x "\[analytics\]" /etc/codex/config.toml'
        [gemini]='grep -o "\"usageStatisticsEnabled\": false" /etc/gemini-cli/settings.json'
        [opencode]='grep -o "\"autoupdate\": false" /etc/opencode/opencode.json'
    )
    local -A expect=(
        [codex]=$'[analytics]\nenabled = false'
        [gemini]='"usageStatisticsEnabled": false'
        [opencode]='"autoupdate": false'
    )
    for name in $built; do
        [ -n "${want[$name]:-}" ] || continue
        # shellcheck disable=SC2086  # $PODMAN splits, as make's $(PODMAN) does
        run_x 0 $PODMAN run --rm --network none "localhost/agent-sandbox-$name:$AS_TAG" sh -c "${want[$name]}"
        assert "$output" == "${expect[$name]}" "$name's telemetry switch"
    done
}

# serve DIR: an HTTP server on loopback for DIR, as a fake npm registry;
# sets AS_REGISTRY to its URL.
serve() {
    python3 -c '
import functools, http.server, sys
h = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
s = http.server.HTTPServer(("127.0.0.1", 0), h)
print(s.server_address[1], flush=True)
s.serve_forever()' "$1" >"$AS_RUN_DIR/port" 2>/dev/null &
    AS_HTTP_PID=$!
    local n
    for ((n = 0; n < 100; n++)); do [ -s "$AS_RUN_DIR/port" ] && break; sleep 0.1; done
    [ -s "$AS_RUN_DIR/port" ] || die "the test's HTTP server did not start"
    AS_REGISTRY=http://127.0.0.1:$(head -n 1 "$AS_RUN_DIR/port")
}

@test "agent-fetch takes a tarball only when its digest is the pinned one, and then from its cache" {
    local reg=$AS_RUN_DIR/registry cache=$AS_RUN_DIR/cache good integrity
    mkdir -p "$reg/@as-test/agent/-"
    good=$AS_RUN_DIR/good.tgz
    printf 'the pinned tarball\n' >"$good"
    integrity=sha512-$(openssl dgst -sha512 -binary "$good" | base64 -w0)
    printf '%s\n' 'package @as-test/agent' 'version 1.0.0' \
        "tarball agent any @as-test/agent 1.0.0 $integrity" >"$AS_RUN_DIR/pin"
    serve "$reg"

    # The registry serves other bytes: refused, nothing kept.
    printf 'something else\n' >"$reg/@as-test/agent/-/agent-1.0.0.tgz"
    NPM_REGISTRY=$AS_REGISTRY run_x 1 "$AS_TOP/sandbox-image/agent-fetch" "$AS_RUN_DIR/pin" "$cache"
    assert "$stderr" contains "does not match the digest pinned in $AS_RUN_DIR/pin"
    assert "$(ls -A "$cache")" == "" "files kept after a digest mismatch"

    # The pinned bytes: downloaded, under npm's own file name.
    cp "$good" "$reg/@as-test/agent/-/agent-1.0.0.tgz"
    NPM_REGISTRY=$AS_REGISTRY run_x 0 "$AS_TOP/sandbox-image/agent-fetch" "$AS_RUN_DIR/pin" "$cache"
    assert "$output" == "agent $cache/as-test-agent-1.0.0.tgz"
    cmp "$good" "$cache/as-test-agent-1.0.0.tgz"

    # No registry at all: the cached copy serves; a changed one is refused.
    kill "$AS_HTTP_PID"
    NPM_REGISTRY=http://127.0.0.1:9 run_x 0 "$AS_TOP/sandbox-image/agent-fetch" "$AS_RUN_DIR/pin" "$cache"
    assert "$output" == "agent $cache/as-test-agent-1.0.0.tgz"
    printf 'tampered\n' >>"$cache/as-test-agent-1.0.0.tgz"
    NPM_REGISTRY=http://127.0.0.1:9 run_x 1 "$AS_TOP/sandbox-image/agent-fetch" "$AS_RUN_DIR/pin" "$cache"
    assert "$stderr" contains "download of http://127.0.0.1:9/@as-test/agent/-/agent-1.0.0.tgz failed"
}

# The route of Crush (sandbox-image/agents/crush.version): the npm package
# names its release archive and that archive's SHA-256; agent-fetch takes
# the archive only with that digest. github.com is unreachable here, so the
# archive's URL is on a name under .test, which never resolves, and the test
# serves the archive on loopback through AGENT_ARCHIVE_BASE.
@test "crush: agent-fetch takes the release archive only with the SHA-256 its npm package gives; without a route it says so" {
    local reg=$AS_RUN_DIR/registry cache=$AS_RUN_DIR/cache pkg=$AS_RUN_DIR/pkg
    local name=crush_1.0.0_Linux_x86_64.tar.gz sum integrity
    mkdir -p "$reg/@as-test/crush/-" "$reg/releases" "$pkg/package" "$AS_RUN_DIR/a/crush_1.0.0_Linux_x86_64"
    printf '#!/bin/sh\necho crush 1.0.0\n' >"$AS_RUN_DIR/a/crush_1.0.0_Linux_x86_64/crush"
    tar -czf "$AS_RUN_DIR/$name" -C "$AS_RUN_DIR/a" crush_1.0.0_Linux_x86_64
    sum=$(sha256sum <"$AS_RUN_DIR/$name" | cut -d' ' -f1)
    printf '{ "name": "@as-test/crush", "version": "1.0.0", "archives": { "linux-x64": { "name": "%s",
        "url": "https://github.test/charmbracelet/crush/releases/download/v1.0.0/%s",
        "checksum": { "algorithm": "sha256", "digest": "%s" } } } }\n' "$name" "$name" "$sum" >"$pkg/package/package.json"
    tar -czf "$reg/@as-test/crush/-/crush-1.0.0.tgz" -C "$pkg" package
    integrity=sha512-$(openssl dgst -sha512 -binary "$reg/@as-test/crush/-/crush-1.0.0.tgz" | base64 -w0)
    printf '%s\n' 'package @as-test/crush' 'version 1.0.0' \
        "tarball agent any @as-test/crush 1.0.0 $integrity" 'archive agent' >"$AS_RUN_DIR/pin"
    serve "$reg"
    export NPM_REGISTRY=$AS_REGISTRY AGENT_PLATFORM=linux-x64

    # No route to the archive's host: one sentence, nothing kept of it.
    run_x 1 "$AS_TOP/sandbox-image/agent-fetch" "$AS_RUN_DIR/pin" "$cache"
    assert "$stderr" contains "agent-fetch: error: no route to github.test from this machine: $name, the release archive its npm package names, cannot be downloaded (https://github.test/"
    assert "$(ls -A "$cache")" == "as-test-crush-1.0.0.tgz" "files kept without a route"

    # Other bytes than the package's SHA-256: refused, nothing kept.
    printf 'tampered\n' >"$reg/releases/$name"
    AGENT_ARCHIVE_BASE=$AS_REGISTRY/releases run_x 1 "$AS_TOP/sandbox-image/agent-fetch" "$AS_RUN_DIR/pin" "$cache"
    assert "$stderr" contains "$AS_REGISTRY/releases/$name does not match the SHA-256 its npm package gives ($sum)"
    assert "$(ls -A "$cache")" == "as-test-crush-1.0.0.tgz" "files kept after a SHA-256 mismatch"

    # The right bytes: downloaded and printed; then served from the cache
    # with no route at all.
    cp "$AS_RUN_DIR/$name" "$reg/releases/$name"
    AGENT_ARCHIVE_BASE=$AS_REGISTRY/releases run_x 0 "$AS_TOP/sandbox-image/agent-fetch" "$AS_RUN_DIR/pin" "$cache"
    assert "$output" == "agent $cache/as-test-crush-1.0.0.tgz"$'\n'"archive $cache/$name"
    cmp "$AS_RUN_DIR/$name" "$cache/$name"
    kill "$AS_HTTP_PID"
    NPM_REGISTRY=http://127.0.0.1:9 run_x 0 "$AS_TOP/sandbox-image/agent-fetch" "$AS_RUN_DIR/pin" "$cache"
    assert "$output" == "agent $cache/as-test-crush-1.0.0.tgz"$'\n'"archive $cache/$name"
}
