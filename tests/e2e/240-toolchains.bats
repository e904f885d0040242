#!/usr/bin/env bats
# The toolchain images (docs/images.md): in each, a small project of its
# language, written here, builds and its tests pass in a session with no
# network at all (an empty allowlist): its dependency is local (a path, a
# vendored module, a local wheel). Each test runs the image
# localhost/agent-sandbox-claude-NAME, which only `make images
# TOOLCHAINS=NAME` builds (CI builds the default images only): without it
# the test is skipped with that command. Build output goes to the
# sandbox's /tmp or the home, not the launch directory.

load helpers

setup() {
    as_setup
    home_volume_setup
    allow_nothing
}

teardown() {
    local rc=0
    as_teardown || rc=1
    home_volume_teardown
    return $rc
}

# The image tag of this build: the one of AGENT_SANDBOX_IMAGE when set
# (make e2e SANDBOX_IMAGE=...), else the development builds' "dev".
image_tag() {
    local image=${AGENT_SANDBOX_IMAGE:-localhost/agent-sandbox:dev}
    echo "${image##*:}"
}

# use_toolchain NAME: this test's sessions run with --toolchain NAME (TC),
# or it is skipped with the command that builds that image.
use_toolchain() {
    local image
    image=localhost/agent-sandbox-claude-$1:$(image_tag)
    # shellcheck disable=SC2086  # $PODMAN splits, as make's $(PODMAN) does
    $PODMAN image exists "$image" ||
        skip "no image $image: \`make images AGENTS=claude TOOLCHAINS=$1\` builds it"
    TC=$1
}

@test "the base tools every project needs are in the default image" {
    run_x 0 agent-sandbox --exec sh -c '
        for t in g++ c++ jq zip unzip xz file less ssh pkg-config; do
            command -v "$t" >/dev/null || echo "missing: $t"
        done
        printf "#include <vector>\nint main() { std::vector<int> v{1, 2}; return v.size(); }\n" >/tmp/t.cc &&
            g++ -o /tmp/t /tmp/t.cc && { /tmp/t; echo "g++: $?"; }
        echo "{\"a\": [1, 2]}" | jq -c ".a"'
    assert "$output" == $'g++: 2\n[1,2]' "missing tools, or g++ or jq"
}

@test "node: npm test of a package with a local (file:) dependency, offline" {
    use_toolchain node
    mkdir -p lib/greet test
    printf '%s\n' '{ "name": "greet", "version": "1.0.0", "main": "index.js" }' >lib/greet/package.json
    printf '%s\n' 'module.exports = (n) => `hello ${n}`;' >lib/greet/index.js
    printf '%s\n' '{ "name": "app", "version": "1.0.0", "private": true,' \
        '  "scripts": { "test": "node --test --test-reporter=tap" },' \
        '  "dependencies": { "greet": "file:lib/greet" } }' >package.json
    printf '%s\n' "const test = require('node:test');" "const assert = require('node:assert');" \
        "const greet = require('greet');" \
        "test('greets', () => assert.strictEqual(greet('x'), 'hello x'));" >test/greet.test.js
    run_x 0 agent-sandbox --toolchain "$TC" --exec sh -c '
        node --version && npm --version &&
        npm install --offline --no-audit --no-fund >/dev/null && npm test 2>&1 | grep -E "^# (pass|fail) "'
    assert "${lines[0]}" =~ '^v24\.' "Node.js 24"
    assert "${lines[2]}" == "# pass 1"
    assert "${lines[3]}" == "# fail 0"
}

@test "python: venv, pip install of a wheel built inside, unittest and pytest, offline" {
    use_toolchain python
    mkdir -p greet/greet tests
    printf '%s\n' '[build-system]' 'requires = ["setuptools"]' 'build-backend = "setuptools.build_meta"' \
        '[project]' 'name = "greet"' 'version = "1.0"' >greet/pyproject.toml
    printf '%s\n' 'def hello(n):' '    return "hello " + n' >greet/greet/__init__.py
    printf '%s\n' 'import unittest' 'import greet' 'class T(unittest.TestCase):' \
        '    def test_hello(self):' '        self.assertEqual(greet.hello("x"), "hello x")' >tests/test_greet.py
    run_x 0 agent-sandbox --toolchain "$TC" --exec sh -c '
        set -e
        cp -r greet /tmp/greet
        pip wheel -q --no-deps --no-build-isolation --no-index -w /tmp/wheels /tmp/greet
        python3 -m venv --system-site-packages /tmp/venv
        /tmp/venv/bin/pip install -q --no-index /tmp/wheels/greet-1.0-py3-none-any.whl
        /tmp/venv/bin/python -m unittest discover -s tests 2>&1 | tail -n 1
        /tmp/venv/bin/python -m pytest -q -p no:cacheprovider tests | tail -n 1'
    assert "${lines[0]}" == "OK"
    assert "${lines[1]}" =~ '^1 passed in '
}

@test "go: go test ./... with a vendored module, no proxy; the build cache in the home" {
    use_toolchain go
    mkdir -p vendor/example.com/greet
    printf '%s\n' 'module example.com/app' '' 'go 1.19' '' 'require example.com/greet v1.0.0' >go.mod
    printf '%s\n' 'package greet' '' 'func Hello(n string) string { return "hello " + n }' \
        >vendor/example.com/greet/greet.go
    printf '%s\n' '# example.com/greet v1.0.0' '## explicit' 'example.com/greet' >vendor/modules.txt
    printf '%s\n' 'package app' '' 'import "example.com/greet"' '' \
        'func Greet(n string) string { return greet.Hello(n) }' >app.go
    printf '%s\n' 'package app' '' 'import "testing"' '' \
        'func TestGreet(t *testing.T) {' '	if Greet("x") != "hello x" {' '		t.Fatal(Greet("x"))' '	}' '}' >app_test.go
    run_x 0 agent-sandbox --toolchain "$TC" --exec sh -c '
        GOFLAGS=-mod=vendor GOPROXY=off go test ./... &&
        test -d "$(go env GOCACHE)" && test -w "$(go env GOCACHE)" && echo "cache: $(go env GOCACHE)"'
    assert "${lines[0]}" =~ $'^ok  \texample.com/app\t'
    assert "${lines[1]}" =~ '^cache: /home/.*/\.cache/go-build$'
}

@test "rust: cargo test --offline with a path dependency; cargo's home writable" {
    use_toolchain rust
    mkdir -p greet/src src
    printf '%s\n' '[package]' 'name = "greet"' 'version = "0.1.0"' 'edition = "2021"' >greet/Cargo.toml
    printf '%s\n' 'pub fn hello(n: &str) -> String { format!("hello {n}") }' >greet/src/lib.rs
    printf '%s\n' '[package]' 'name = "app"' 'version = "0.1.0"' 'edition = "2021"' \
        '[dependencies]' 'greet = { path = "greet" }' >Cargo.toml
    printf '%s\n' 'pub fn greet(n: &str) -> String { greet::hello(n) }' \
        '#[cfg(test)]' 'mod tests {' '    #[test]' '    fn greets() { assert_eq!(super::greet("x"), "hello x"); }' '}' >src/lib.rs
    run_x 0 agent-sandbox --toolchain "$TC" --exec sh -c '
        CARGO_TARGET_DIR=/tmp/target cargo test -q --offline 2>&1 | grep "^test result" | head -n 1 &&
        mkdir -p "$HOME/.cargo/registry" && test -w "$HOME/.cargo/registry" && echo "cargo home: writable"'
    assert "${lines[0]}" =~ '^test result: ok\. 1 passed; 0 failed'
    assert "${lines[1]}" == "cargo home: writable"
}

@test "java: javac and java run a test class against a library class; mvn runs" {
    use_toolchain java
    mkdir -p src/greet test
    printf '%s\n' 'package greet;' 'public class Greet {' \
        '    public static String hello(String n) { return "hello " + n; }' '}' >src/greet/Greet.java
    printf '%s\n' 'public class GreetTest {' '    public static void main(String[] a) {' \
        '        if (!greet.Greet.hello("x").equals("hello x")) throw new AssertionError("hello");' \
        '        System.out.println("GreetTest: ok");' '    }' '}' >test/GreetTest.java
    run_x 0 agent-sandbox --toolchain "$TC" --exec sh -c '
        javac -d /tmp/classes src/greet/Greet.java test/GreetTest.java &&
        java -cp /tmp/classes GreetTest && mvn -B -v >/tmp/mvn.out && grep -o -m 1 "Apache Maven [0-9.]*" /tmp/mvn.out'
    assert "${lines[0]}" == "GreetTest: ok"
    assert "${lines[1]}" =~ '^Apache Maven 3\.'
}

@test "threat 20: no setuid or setgid file in any built toolchain image" {
    local name image tag built=''
    tag=$(image_tag)
    for name in go java node python rust; do
        image=localhost/agent-sandbox-claude-$name:$tag
        # shellcheck disable=SC2086  # $PODMAN splits, as make's $(PODMAN) does
        $PODMAN image exists "$image" || continue
        built="$built $name"
        # shellcheck disable=SC2086
        run_x 0 $PODMAN run --rm --network none --user 0:0 "$image" \
            sh -c 'find / -xdev -perm /6000; echo "find: $?"'
        assert "$output" == "find: 0" "setuid/setgid files in $image"
    done
    [ -n "$built" ] || skip "no toolchain image built (make images TOOLCHAINS=\"go java node python rust\")"
}
