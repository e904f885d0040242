#!/usr/bin/env bats
# Threat 64: the agent floods its output while the reader of the CLI's
# output has stopped (a FIFO nobody reads, a kill -STOPped less, a
# terminal nobody reads). The CLI holds the agent back (it reads no more of
# its output than its queue holds) and still serves the stop:
# `agent-sandbox stop`, Ctrl-C and `~.` end the session within its grace,
# and nothing of it is left (lib/podman/attach_output.h). The agent is
# `yes` with a word of the test's own, which tells from the host's process
# list whether it runs (keep-id: it is ours), whatever else runs.

load helpers
load tmux

HOLDER=

setup() {
    as_setup
    tmux_setup
}

teardown() {
    local rc=0
    [ -z "$HOLDER" ] || kill -KILL "$HOLDER" 2>/dev/null || true
    HOLDER=
    tmux_teardown "^$AGENT_SANDBOX_BIN --memory none --exec sh -c exec yes $(agent_tag)" || rc=1
    as_teardown || rc=1
    return $rc
}

agent_tag() {
    echo "flood-$(basename "$AS_DIR")"
}

agent_runs() {
    pgrep -u "$(id -u)" -fx "yes $(agent_tag)" >/dev/null
}

# wait_flooding: until this test's agent runs; then a few seconds for its
# reader and the CLI's queue to fill (the agent is held back).
wait_flooding() {
    local n
    for ((n = 0; n < 1200; n++)); do
        agent_runs && break
        sleep 0.1
    done
    agent_runs || die "the agent did not start within 120 s"
    sleep 3
}

# The ID of this test's session (launched in $AS_DIR; other tests' may run
# meanwhile).
running_id() {
    "$AGENT_SANDBOX_BIN" ps --json | python3 -c '
import json, sys
print(" ".join(s["id"] for s in json.load(sys.stdin) if s["launch_dir"] == sys.argv[1]))' "$AS_DIR"
}

# flood_into_fifo: a session whose agent floods a FIFO that a reader holds
# open and never reads, once it is held back.
flood_into_fifo() {
    local fifo=$AS_RUN_DIR/out.fifo
    mkfifo "$fifo"
    # shellcheck disable=SC2217  # it opens the FIFO to hold it, and reads nothing
    sleep 600 <"$fifo" &
    HOLDER=$!
    # shellcheck disable=SC2016  # the CLI's arguments, for the inner bash
    bg_start bash -c 'exec "$0" --memory none --exec sh -c "exec yes $2" >"$1"' agent-sandbox "$fifo" "$(agent_tag)"
    wait_flooding
    kill -0 "$AS_BG_PID" || die "the CLI ended before its stop"
}

@test "threat 64: an agent flooding a FIFO nobody reads: agent-sandbox stop ends it within its grace, 143" {
    flood_into_fifo
    local id t0
    id=$(running_id)
    assert "$id" =~ '^[0-9a-f]{12}$' "this test's session"
    t0=$SECONDS
    run_x 0 agent-sandbox stop "$id"
    bg_wait 30
    [ $((SECONDS - t0)) -lt 15 ] || die "the stop took $((SECONDS - t0)) s (grace: 10 s)"
    assert "$status" == 143 "the stopped session's exit status"
    # shellcheck disable=SC2154  # stderr: set by bg_wait (helpers.bash)
    assert "$stderr" =~ "agent-sandbox: session stopped by \`agent-sandbox stop\` \(PID [0-9]+\); the agent ended after SIGTERM \(exit 143\)"
    assert "$stderr" =~ "agent-sandbox: note: the last [0-9]+ bytes of the agent's output were dropped at the stop: their reader had stopped taking any"
}

@test "threat 64: an agent flooding a FIFO nobody reads: SIGINT (Ctrl-C without a terminal) ends it, 130" {
    flood_into_fifo
    kill -INT "$AS_BG_PID"
    bg_wait 30
    assert "$status" == 130 "the interrupted session's exit status"
    # shellcheck disable=SC2154  # stderr: set by bg_wait (helpers.bash)
    assert "$stderr" =~ "the agent ended after SIGINT \(exit 130\)"
}

@test "threat 64: an agent flooding a kill -STOPped less: Ctrl-C on its terminal ends the session, 130" {
    local rc=$AS_RUN_DIR/rc pane less n
    # a script (no job control): the stopped less stays in the terminal's
    # foreground group with the CLI
    printf '{ "$1" --memory none --exec sh -c "exec yes $2" 2>"$3.err"; echo $? >"$3"; } | less\n' \
        >"$AS_RUN_DIR/pipeline"
    "${AS_TMUX[@]}" new-session -d -s as -x 200 -y 30 \
        "cd '$AS_DIR' && exec bash --norc --noprofile '$AS_RUN_DIR/pipeline' '$AGENT_SANDBOX_BIN' '$(agent_tag)' '$rc'"
    wait_flooding
    pane=$("${AS_TMUX[@]}" display-message -p -t as '#{pane_pid}')
    less=$(pgrep -P "$pane" -x less) || die "no less under the pane's shell $pane"
    HOLDER=$less
    kill -STOP "$less"
    sleep 2
    "${AS_TMUX[@]}" send-keys -t as C-c
    for ((n = 0; n < 150; n++)); do
        [ -s "$rc" ] && break
        sleep 0.1
    done
    [ -s "$rc" ] || die "the CLI still runs 15 s after Ctrl-C:"$'\n'"$(cat "$rc.err")"
    assert "$(<"$rc")" == 130 "the interrupted session's exit status"
    assert "$(<"$rc.err")" =~ "the agent ended after SIGINT \(exit 130\)"
    kill -CONT "$less"
}

@test "threat 64: ~. on a terminal nobody reads stops the agent within its grace, 143" {
    # A terminal of its own whose reader stops once the agent runs, types
    # ~., checks that the agent is gone while it still reads nothing, then
    # reads again so that the CLI can say its last lines and end.
    cat >"$AS_RUN_DIR/harness.py" <<'PY'
import os, pty, select, subprocess, sys, time
cli, tag, screen = sys.argv[1:4]
pid, fd = pty.fork()
if pid == 0:
    os.execv(cli, [cli, "--memory", "none", "--exec", "sh", "-c", "exec yes " + tag])

def agent_runs():
    return subprocess.run(["pgrep", "-u", str(os.getuid()), "-fx", "yes " + tag],
                          stdout=subprocess.DEVNULL).returncode == 0

seen, deadline = bytearray(), time.time() + 120
while tag.encode() not in seen:
    if time.time() > deadline:
        sys.exit("the agent's output did not show: " + seen[-2000:].decode(errors="replace"))
    if select.select([fd], [], [], 1)[0]:
        seen += os.read(fd, 65536)
time.sleep(3)                 # nobody reads: the terminal and the CLI's queue fill
if not agent_runs():
    sys.exit("the agent is not running")
os.write(fd, b"~.")
t0 = time.time()
while agent_runs():
    if time.time() - t0 > 15:
        sys.exit("the agent still runs 15 s after ~. on a terminal nobody reads")
    time.sleep(0.1)
print("the agent was gone %.1f s after ~." % (time.time() - t0))
while True:
    try:
        chunk = os.read(fd, 65536)
    except OSError:
        break
    if not chunk:
        break
    seen += chunk
_, status = os.waitpid(pid, 0)
with open(screen, "wb") as f:
    f.write(seen[-4000:])
print("status=%d" % os.waitstatus_to_exitcode(status))
PY
    run_x 0 python3 "$AS_RUN_DIR/harness.py" "$AGENT_SANDBOX_BIN" "$(agent_tag)" "$AS_RUN_DIR/screen"
    assert "$output" contains "status=143" "the stopped session's exit status"
    assert "$(tr -d '\r' <"$AS_RUN_DIR/screen")" contains "session stopped by ~. on its terminal; the agent ended after SIGHUP (exit 143)"
}
