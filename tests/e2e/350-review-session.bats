#!/usr/bin/env bats
# Review mode's session half (docs/review.md, issue 27): the agent works on
# an overlay of the launch directory, the host tree is never written, the
# changes wait in a review that diff shows, reviews lists and discard
# removes; a killed CLI's review stays. Apply's tests are in 505-review-apply.bats.

load helpers

REVIEWS() { echo "$XDG_STATE_HOME/agent-sandbox/reviews"; }

# What the overlay leaves in a review's work/work belongs to the
# container's root (docs/review.md): discard removes it through a short
# container; should a test fail before that, podman's namespace does.
teardown() {
    $PODMAN unshare rm -rf "$(REVIEWS)" || true
    as_teardown
}

# tree_state: every entry of the launch directory with its type, mode and
# link target, and the checksum of every file: what "byte-identical" means.
tree_state() {
    (cd "$AS_DIR" && find . -printf '%p %y %m %l\n' | LC_ALL=C sort &&
        find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)
}

make_tree() {
    printf 'one\ntwo\n' >a.txt
    echo gone >del.txt
    printf '#!/bin/sh\necho hi\n' >run.sh
    chmod 0644 run.sh
    mkdir sub
    echo keep >sub/keep
    ln -s a.txt lnk
}

# The agent: an edit, an addition, a deletion, a mode change, a new link
# and a re-pointed one; then it waits for the test to look at the host.
AGENT_EDITS='printf "three\n" >>a.txt; echo new >b.txt; rm del.txt; chmod 0755 run.sh;
ln -s /etc/passwd out; ln -sf sub/keep lnk; touch sub/.ready'

@test "threat 49: a review session never writes the host tree; diff shows the edit, addition, deletion, mode change and links; discard removes it" {
    make_tree
    local before id
    before=$(tree_state)
    bg_start agent-sandbox --review --exec sh -c "$AGENT_EDITS; sleep 3; cat a.txt"
    local n
    for ((n = 0; n < 600; n++)); do
        compgen -G "$(REVIEWS)/*/upper/sub/.ready" >/dev/null && break
        [ -s "$AS_RUN_DIR/bg.rc" ] && break
        sleep 0.1
    done
    assert "$(tree_state)" == "$before" "the host tree while the agent writes"
    bg_wait 120
    assert "$status" == 0 "the session's exit status"
    assert "$output" == $'one\ntwo\nthree' "the agent read its own edit"
    assert "$(tree_state)" == "$before" "the host tree after the session"
    id=$(basename "$(compgen -G "$(REVIEWS)/*")")
    # shellcheck disable=SC2154  # stderr: set by bg_wait (helpers.bash)
    assert "$stderr" =~ "review $id: 3 added, 3 changed, 1 deleted, 1 mode change, 2 links" "the summary"
    assert "$stderr" =~ "agent-sandbox diff $id" "the summary names the ID"
    grep -qx "ended [0-9]*" "$(REVIEWS)/$id/meta" || die "the meta records the end"

    run_x 0 agent-sandbox diff --stat
    assert "$output" contains " M a.txt  (8 -> 14 bytes)" "--stat: the edit"
    assert "$output" contains " A b.txt  (4 bytes)" "--stat: the addition"
    assert "$output" =~ " D del.txt" "--stat: the deletion"
    assert "$output" contains " M run.sh  (mode 0644 -> 0755)" "--stat: the mode change"
    run_x 0 agent-sandbox diff "${id:0:6}"
    assert "$output" contains $'--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,3 @@\n one\n two\n+three' "the unified diff of the edit"
    assert "$output" contains $'new file b.txt (mode 0644)\n--- /dev/null\n+++ b/b.txt' "the addition"
    assert "$output" =~ "deleted file del.txt" "the deletion named"
    assert "$output" =~ "mode run.sh 0644 -> 0755" "the mode change named"
    assert "$output" contains "symlink out -> /etc/passwd (new)" "the new link named"
    assert "$output" contains "symlink lnk -> sub/keep (was -> a.txt)" "the re-pointed link named"
    run_x 0 agent-sandbox diff "$id" sub b.txt
    assert "$output" =~ "b.txt" "PATH... keeps b.txt"
    [[ $output != *a.txt* ]] || die "PATH... leaves a.txt out"

    run_x 0 agent-sandbox reviews
    assert "$output" =~ "$id +[0-9]+[smhd] +[0-9.]+[KMG] +ended +$AS_DIR" "reviews lists it"
    run_x 0 agent-sandbox discard "$id"
    assert "$stderr" =~ "discarded review $id" "discard says so"
    [[ $stderr != *"podman unshare"* ]] || die "discard left the overlay's scratch: $stderr"
    [ ! -e "$(REVIEWS)/$id" ] || die "the review is gone"
    [ -z "$(ls -A "$(REVIEWS)")" ] || die "discard left something: $(ls -A "$(REVIEWS)")"
    run_x 64 agent-sandbox diff "$id"
    assert "$(tree_state)" == "$before" "the host tree after discard"
}

@test "threat 49: a killed CLI's review is still listed and diffable; cleanup leaves it; discard removes it" {
    make_tree
    local before id
    before=$(tree_state)
    bg_start agent-sandbox --review --exec sh -c 'echo new >b.txt; rm del.txt; touch .ready; exec sleep 600'
    local n
    for ((n = 0; n < 600; n++)); do
        compgen -G "$(REVIEWS)/*/upper/.ready" >/dev/null && break
        [ -s "$AS_RUN_DIR/bg.rc" ] && die "the session ended early: $(cat "$AS_RUN_DIR/bg.stderr")"
        sleep 0.1
    done
    id=$(basename "$(compgen -G "$(REVIEWS)/*")")
    run_x 0 agent-sandbox reviews
    assert "$output" =~ "$id .* running +$AS_DIR" "a running session's review"
    run_x 64 agent-sandbox discard "$id"
    assert "$stderr" =~ "belongs to a running session" "discard refuses a running session's review"
    kill -KILL "$AS_BG_PID"
    bg_wait 30
    assert "$status" == 137 "the killed CLI"
    run_x 0 agent-sandbox cleanup
    grep -q "^ended" "$(REVIEWS)/$id/meta" && die "a killed CLI's review has no end"
    run_x 0 agent-sandbox reviews
    assert "$output" =~ "$id .* killed +$AS_DIR" "the killed CLI's review is listed"
    run_x 0 agent-sandbox diff --stat
    assert "$output" =~ " A b.txt" "and diffable"
    assert "$output" =~ " D del.txt" "with its deletion"
    assert "$(tree_state)" == "$before" "the host tree"
    run_x 0 agent-sandbox discard
    [ ! -e "$(REVIEWS)/$id" ] || die "discard without an ID removed the directory's review"
    [ -z "$(ls -A "$(REVIEWS)")" ] || die "discard left something: $(ls -A "$(REVIEWS)")"
}
