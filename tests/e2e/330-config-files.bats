#!/usr/bin/env bats
# Every config file is read by one reader with one policy (lib/base/file_read.h;
# issue 17 bugs 6 and 7, issue 12 "a FIFO hangs the CLI"): a regular file
# only, so a FIFO is refused at once; a symlink to a missing file is a
# configuration error, not an absent file; a NUL byte or a UTF-8 byte-order
# mark is refused by name; invisible bytes in the message are escaped.

load helpers

CFG=${XDG_CONFIG_HOME:-$HOME/.config}/agent-sandbox
FILES=(allowed-hosts limits allowed-paths protected-paths)

# The user's real files are put aside for the test and back afterwards.
setup() {
    as_setup
    mkdir -p "$CFG" "$AS_RUN_DIR/saved"
    local f
    for f in "${FILES[@]}"; do
        if [ -e "$CFG/$f" ] || [ -L "$CFG/$f" ]; then cp -a "$CFG/$f" "$AS_RUN_DIR/saved/$f"; fi
    done
}

# restore FILE: the user's own FILE back in place (or none, as before).
restore() {
    rm -rf "${CFG:?}/$1"
    if [ -e "$AS_RUN_DIR/saved/$1" ] || [ -L "$AS_RUN_DIR/saved/$1" ]; then
        cp -a "$AS_RUN_DIR/saved/$1" "$CFG/$1"
    fi
}

teardown() {
    local f
    for f in "${FILES[@]}"; do restore "$f"; done
    as_teardown
}

# refused FILE TEXT...: the CLI refuses with exit 65, naming FILE and saying
# each TEXT; the agent never ran.
refused() {
    local file=$1 text
    shift
    run_x --timeout 20 "$EX_CONFIG" agent-sandbox --memory none --exec touch "$AS_DIR/started"
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" contains "cannot read " "the message for $file"
    for text in "$@"; do
        assert "$stderr" contains "$text" "the message for $file"
    done
    if [ "$file" = allowed-hosts ]; then
        assert "$stderr" !contains "created " "no default was installed over $file"
    fi
    [ ! -e "$AS_DIR/started" ] || die "the agent ran with a broken $file"
}

@test "bug 6: a config file that is a symlink to a missing file is a configuration error, for every file" {
    local f missing=$AS_RUN_DIR/missing$'\e'"[31m"
    for f in "${FILES[@]}"; do
        rm -rf "${CFG:?}/$f"
        ln -s "$missing" "$CFG/$f"
        refused "$f" "$f: it is a symlink to $AS_RUN_DIR/missing\\x1b[31m, which does not exist"
        restore "$f"
    done
    # the rule that says so, for the launch policy's and the workspace's files
    ln -s "$missing" "$CFG/allowed-paths"
    refused allowed-paths "[rule: bad-config]"
    restore allowed-paths
    ln -s "$missing" "$CFG/protected-paths"
    refused protected-paths "[rule: protected-paths-unreadable]"
}

@test "issue 12: a FIFO in place of any config file is refused at once, not waited on" {
    local f
    for f in "${FILES[@]}"; do
        rm -rf "${CFG:?}/$f"
        mkfifo "$CFG/$f"
        refused "$f" "$f: it is a FIFO; a config file must be a regular file"
        restore "$f"
    done
}

@test "bug 7: a NUL byte is refused in every config file, naming the line" {
    local f
    for f in "${FILES[@]}"; do
        rm -rf "${CFG:?}/$f"
        printf '# first line\n#\0second\n' >"$CFG/$f"
        refused "$f" "$f: it has a NUL byte on line 2; a config file is text"
        restore "$f"
    done
}

@test "bug 7: a UTF-8 byte-order mark is refused by name in every config file" {
    local f
    for f in "${FILES[@]}"; do
        rm -rf "${CFG:?}/$f"
        printf '\xef\xbb\xbf# first line\n' >"$CFG/$f"
        refused "$f" "$f: it starts with a UTF-8 byte-order mark (bytes EF BB BF); save it without one"
        restore "$f"
    done
}
