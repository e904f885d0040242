#!/usr/bin/env bats
# Who the agent is inside (docs/home.md, "Who the agent is"): commits carry
# the user's git identity, read from the host's global git config without
# running git, and a repository's own config still wins; `git-identity off`
# in the settings file turns it off; whoami, ~, $HOME and the passwd entry name
# the host user; the environment keeps Claude Code quiet.

load helpers
load fake-internet      # expect

setup() {
    as_setup
    home_volume_setup
    GIT_XDG_CONFIG=$XDG_CONFIG_HOME/git/config
    SETTINGS=$AS_CONFIG_DIR/settings
}

teardown() {
    rm -f "$GIT_XDG_CONFIG" "$AS_RUN_DIR/included"
    rmdir "$XDG_CONFIG_HOME/git" 2>/dev/null || true
    as_teardown
    home_volume_teardown
}

# settings TEXT: the settings file is TEXT, then the suite's own lines
# (kept by as_setup, put back by as_teardown).
settings() {
    { printf '%s' "$1"; cat "$AS_RUN_DIR/settings.suite"; } >"$SETTINGS"
}

# global_identity NAME EMAIL: the global git config (the suite's own
# $XDG_CONFIG_HOME/git/config, named by GIT_CONFIG_GLOBAL: no ~/.gitconfig
# of the user's counts) with this identity, and keys that must not travel with it:
# an include that names another identity, an alias and a credential helper.
global_identity() {
    mkdir -p "$(dirname "$GIT_XDG_CONFIG")"
    printf '[user]\n\tname = A. Other\n' >"$AS_RUN_DIR/included"
    cat >"$GIT_XDG_CONFIG" <<EOF
[user]
	name = "$1"
	email = $2
[include]
	path = $AS_RUN_DIR/included
[alias]
	ci = !touch $AS_RUN_DIR/alias-ran
[credential]
	helper = store
EOF
}

@test "git identity: a commit made inside carries the host's user.name and user.email, as host git reads them" {
    global_identity 'Ada \"Tester\" Lovelace' ada@example.test
    # Host git is the reference: `--global` reads the same files and, like
    # the CLI, follows no include.
    local want
    want="$(git config --global --get user.name) <$(git config --global --get user.email)>"
    assert "$want" != " <>" "the identity host git sees"
    git init -q "$AS_DIR"

    run_x 0 agent-sandbox --exec bash -c '
        git commit -q --allow-empty -m "made inside" && echo "launch repo: $(git log -1 --format="%an <%ae>|%cn <%ce>")"
        echo "system config: $(git config --system --get-regexp "." | tr "\n" ";")"
        # a repository of its own overrides it, as on the host
        git init -q /tmp/own && cd /tmp/own && git config user.name "Agent Override" &&
            git commit -q --allow-empty -m x && echo "own repo: $(git log -1 --format="%an <%ae>")"'
    expect "launch repo" "$want|$want"
    expect "system config" "user.name $(git config --global --get user.name);user.email ada@example.test;"
    expect "own repo" "Agent Override <ada@example.test>"
    # the commit is the host's to see, with that identity
    assert "$(git -C "$AS_DIR" log -1 --format='%an <%ae> %s')" == "$want made inside" "host git log"
    [ ! -e "$AS_RUN_DIR/alias-ran" ] || die "an alias of the global config ran"
}

@test "git identity: \`git-identity off\` in the settings file passes none; a config git cannot read is a warning" {
    global_identity "Ada Lovelace" ada@example.test
    settings $'# keep my identity out of the sandbox\ngit-identity off\n'
    run_x 0 agent-sandbox --exec bash -c '
        echo "system config: $(ls /etc/gitconfig 2>&1 | head -c 80)"
        echo "name: [$(git config --get user.name)]"
        git init -q /tmp/r && cd /tmp/r && git commit -q --allow-empty -m x 2>&1 | grep -m1 -o "Author identity unknown" | sed "s/^/commit: /"'
    expect "system config" =~ "No such file"
    expect name "[]"
    expect commit "Author identity unknown"

    # on again, but the global config is not git's syntax: the session runs,
    # without an identity, and says why and how to silence it
    settings $'git-identity on\n'
    printf '[user]\n\tname = "unterminated\n' >"$GIT_XDG_CONFIG"
    run_x --warns "commits in the sandbox carry no identity of yours: $GIT_XDG_CONFIG:2: not read as git config" \
        0 agent-sandbox --exec sh -c 'echo "name: [$(git config --get user.name)]"'
    expect name "[]"
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" contains "\`git-identity off\` in $SETTINGS"

    # a malformed settings file refuses the session, naming the line
    settings $'git-identity maybe\n'
    run_x 65 agent-sandbox --exec true
    assert "$stderr" contains "$SETTINGS:1: git-identity is on or off"
}

@test "whoami names the host user; ~, \$HOME and the passwd entry agree" {
    run_x 0 agent-sandbox --exec bash -c '
        echo "whoami: $(whoami)"
        echo "id: $(id -un) $(id -u)"
        echo "passwd: $(getent passwd "$(id -u)" | cut -d: -f1,6)"
        echo "home: $HOME $(echo ~) $(cd && pwd)"'
    local user
    user=$(id -un)
    expect whoami "$user"
    expect id "$user $(id -u)"
    expect passwd "$user:/home/agent"
    expect home "/home/agent /home/agent /home/agent"
}

@test "the agent's environment keeps Claude Code quiet; --env NAME=VALUE overrides" {
    run_x 0 agent-sandbox --agent claude --exec sh -c 'env | grep -E "^(CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC|DISABLE_AUTOUPDATER)=" | sort'
    assert "$output" == $'CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1\nDISABLE_AUTOUPDATER=1'
    run_x 0 agent-sandbox --agent claude --env CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=0 --exec sh -c 'echo "$CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"'
    assert "$output" == 0
}
