#!/usr/bin/env bats
# `apply` and `apply --undo` (docs/review.md): a review's on-disk state is
# built here directly (reviews/ID/{meta,upper}, as a review session leaves
# it), so these tests need no session and stay fast. Whiteouts are the
# kernel overlay's, character devices 0/0 (which Linux lets anyone make).

load helpers

REVIEW_ID=0123456789ab

setup() {
    as_setup
    REVIEW_DIR=$XDG_STATE_HOME/agent-sandbox/reviews/$REVIEW_ID
    UPPER=$REVIEW_DIR/upper
}

# What the overlay of a real review session leaves in work/work belongs to
# the container's root (docs/review.md): podman's namespace removes it.
teardown() {
    $PODMAN unshare rm -rf "$XDG_STATE_HOME/agent-sandbox/reviews" || rm -rf "$REVIEW_DIR"
    as_teardown
}

# make_review: the review of $AS_DIR, started now (after the host files
# the test made before it), ended.
make_review() {
    mkdir -p "$UPPER" "$REVIEW_DIR/work"
    chmod 700 "$REVIEW_DIR"
    local now
    # the start by the clock file times come from, as the CLI takes it
    # (lib/session/session_review.c): date's finer clock may run a tick ahead
    touch "$REVIEW_DIR/.start"
    now=$(stat -c '%.9Z' "$REVIEW_DIR/.start" | tr -d .)
    rm -f "$REVIEW_DIR/.start"
    printf 'session %s\nroot %s\nstarted %s\nended %s\n' "$REVIEW_ID" "$AS_DIR" "$now" "$now" >"$REVIEW_DIR/meta"
}

# The tree as checksums, types, modes and link targets, one line per path.
tree_state() {
    (cd "$AS_DIR" && find . -printf '%p %y %m %l\n' | LC_ALL=C sort &&
        find . -type f -exec sha256sum {} + | LC_ALL=C sort)
}

@test "threat 49: apply lands an edit, an addition, a deletion, a mode change and a link; apply --undo restores the tree exactly" {
    printf 'old\n' >edit.txt
    printf 'bye\n' >gone.txt
    printf 'echo hi\n' >run.sh
    mkdir -p olddir/inner && printf 'a\n' >olddir/inner/a
    ln -s edit.txt link
    before=$(tree_state)
    make_review
    printf 'new\n' >"$UPPER/edit.txt"
    mknod "$UPPER/gone.txt" c 0 0
    mknod "$UPPER/olddir" c 0 0
    printf 'echo hi\n' >"$UPPER/run.sh" && chmod 755 "$UPPER/run.sh"
    ln -s run.sh "$UPPER/link"
    mkdir -p "$UPPER/new/deep" && printf 'added\n' >"$UPPER/new/deep/added.txt"
    ln -s ../edit.txt "$UPPER/new/back"
    run_x 0 agent-sandbox apply
    assert "$output" contains "changed   edit.txt"
    assert "$output" contains "deleted   gone.txt"
    assert "$output" contains "changed   run.sh (new executable bit)"
    assert "$output" contains "added     new/deep/added.txt"
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" contains "changes of review $REVIEW_ID applied to $AS_DIR"
    [ "$(cat edit.txt)" = new ]
    [ ! -e gone.txt ] && [ ! -e olddir ]
    [ "$(stat -c %a run.sh)" = 755 ]
    [ "$(readlink link)" = run.sh ] && [ "$(readlink new/back)" = ../edit.txt ]
    [ "$(cat new/deep/added.txt)" = added ]
    [ -z "$(find . -name '.agent-sandbox-*')" ]
    run_x 0 agent-sandbox apply --undo "$REVIEW_ID"
    assert "$stderr" contains "the last apply of review $REVIEW_ID to $AS_DIR is taken back"
    [ "$(tree_state)" = "$before" ]
    # once taken back, there is nothing more to take back
    run_x 64 agent-sandbox apply --undo "${REVIEW_ID:0:6}"
    assert "$stderr" contains "review $REVIEW_ID has no apply to take back"
}

@test "threat 49: each filter rule refuses its case with its line; a protected path lands only when named, shown before" {
    git init -q .
    make_review
    mkfifo "$UPPER/pipe"
    printf 'x\n' >"$UPPER/suid" && chmod 4755 "$UPPER/suid"
    ln -s "$HOME/.bashrc" "$UPPER/out-link"
    mkdir -p "$UPPER/.git/hooks" && printf '#!/bin/sh\ntouch %s/planted\n' "$AS_RUN_DIR" >"$UPPER/.git/hooks/pre-commit"
    chmod 755 "$UPPER/.git/hooks/pre-commit"
    printf 'touch %s/planted\n' "$AS_RUN_DIR" >"$UPPER/.envrc"
    mkdir "$UPPER/.vscode" && echo '{}' >"$UPPER/.vscode/tasks.json" && echo '{}' >"$UPPER/.vscode/settings.json"
    run_x 1 agent-sandbox apply
    assert "$output" contains "refused   pipe: a FIFO: only regular files, directories and links are applied"
    assert "$output" contains "refused   out-link: a link that leads out of the tree (to "
    assert "$output" contains "refused   .git/hooks/pre-commit: inside .git: never applied as a file"
    assert "$output" contains "refused   .envrc: a protected path (.envrc): name it with --include to apply it"
    assert "$output" contains "added     suid (setuid bit dropped; new executable bit)"
    assert "$output" contains "refused   .vscode: a protected path (.vscode): name it with --include to apply it"
    assert "$output" contains "refused   2 more below the directories above"
    assert "$stderr" contains "7 not applied (above)"
    [ ! -e pipe ] && [ ! -L out-link ] && [ ! -e .envrc ] && [ ! -e .git/hooks/pre-commit ]
    [ "$(stat -c %a suid)" = 755 ]
    run_x 1 agent-sandbox apply --include .envrc
    assert "$output" contains $'Protected paths named with --include, written now:\n  added     .envrc'
    [ -f .envrc ]
    [ ! -e "$AS_RUN_DIR/planted" ]
}

@test "threat 49: a path changed on the host since the review started is refused, never overwritten" {
    printf 'base\n' >both.txt
    printf 'base\n' >mine.txt
    make_review
    printf 'agent\n' >"$UPPER/both.txt"
    printf 'agent\n' >"$UPPER/mine.txt"
    printf 'user\n' >both.txt         # the user's edit during the review
    run_x 1 agent-sandbox apply
    assert "$output" contains "conflict  both.txt: changed on the host since the review started; left as it is"
    assert "$output" contains "changed   mine.txt"
    [ "$(cat both.txt)" = user ] && [ "$(cat mine.txt)" = agent ]
    # a PATH chooses what to apply: nothing of it left
    run_x 0 agent-sandbox apply "$REVIEW_ID" mine.txt
    assert "$stderr" contains "0 changes of review"
}

@test "threat 49: the agent's commit arrives as a branch and host git runs nothing planted while fetching it" {
    git init -q -b main .
    echo one >a.txt
    git add a.txt && git -c user.name=u -c user.email=u@e.test commit -qm host
    local host_head id
    host_head=$(git rev-parse HEAD)
    # the agent commits; it plants what it can (the frozen .git/hooks and
    # .git/config refuse it inside) and leaves its ID
    bg_start agent-sandbox --review --exec sh -c 'echo two >>a.txt &&
        git -c user.name=agent -c user.email=agent@e.test commit -qam agent-change &&
        { printf "[core]\n\tfsmonitor = touch planted-tree\n" >>.git/config; true; }'
    bg_wait 120
    assert "$status" == 0 "the session's exit status"
    id=$(basename "$(compgen -G "$XDG_STATE_HOME/agent-sandbox/reviews/*")")
    # and what got past the frozen paths would have planted: hooks git runs
    # on fetch and checkout, and an fsmonitor in the repository's config,
    # each writing outside the tree (what host git would run) and into it
    # (what git in the bundle's container would)
    local upper=$XDG_STATE_HOME/agent-sandbox/reviews/$id/upper hook
    mkdir -p "$upper/.git/hooks"
    for hook in post-checkout reference-transaction pre-auto-gc; do
        printf '#!/bin/sh\ntouch "%s/planted-%s" "%s/planted-tree"\n' "$AS_RUN_DIR" "$hook" "$AS_DIR" \
            >"$upper/.git/hooks/$hook"
        chmod 755 "$upper/.git/hooks/$hook"
    done
    { cat .git/config; printf '[core]\n\tfsmonitor = %s\n\thooksPath = %s\n' \
        "$upper/.git/hooks/post-checkout" "$upper/.git/hooks"; } >"$upper/.git/config"
    run_x 0 agent-sandbox apply "$id"
    assert "$output" contains "branch    agent-sandbox/$id: the agent's commits"
    assert "$output" contains "changed   a.txt"
    [[ $output != *.git/* ]] || die ".git's changes are not listed as files"
    assert "$(git log -1 --format=%s "agent-sandbox/$id")" == agent-change "the agent's commit on the branch"
    assert "$(git rev-parse "agent-sandbox/$id^")" == "$host_head" "on top of the host's HEAD"
    assert "$(git rev-parse HEAD)" == "$host_head" "the host's HEAD stays"
    [ ! -e "$upper/planted-tree" ] || die "git in the bundle's container ran a planted program"
    [ -z "$(compgen -G "$AS_RUN_DIR/planted-*")" ] && [ ! -e planted-tree ] ||
        die "host git ran a planted program"
    ! cmp -s .git/config "$upper/.git/config" || die "the host's .git/config was replaced"
    [ ! -e .git/hooks/post-checkout ] && [ ! -e .git/hooks/reference-transaction ] ||
        die "a planted hook landed"
    # a second apply never moves the branch
    run_x 1 agent-sandbox apply "$id"
    assert "$stderr" contains "branch agent-sandbox/$id exists in $AS_DIR already"
}
