#!/usr/bin/env bats
# `make images` tells each step in short lines (issue 15, "First contact"):
# scripts/image-step, which mk/images.mk runs for every mmdebstrap, podman
# import, npm fetch and podman build, shows the step's name and a true
# estimate (how long it took the last time on this machine), and keeps the
# step's whole output in a log file that a failure names.

load helpers

STEP=$AS_TOP/scripts/image-step

@test "image-step: a short line, the output in the log, and the last run's time as the next estimate" {
    local log=$AS_RUN_DIR/logs/demo.log
    run_x 0 "$STEP" "demo step" 45 "$log" sh -c 'i=0; while [ $i -lt 200 ]; do echo "dpkg chatter $i"; i=$((i + 1)); done; sleep 1'
    assert "${lines[0]}" == "images: demo step (about 45 s)..." "the first estimate: the one given"
    assert "${lines[1]}" =~ "^images: demo step: done in [12] s$"
    assert "${#lines[@]}" == 2 "two lines, none of the command's"
    assert "$(wc -l <"$log")" == 200 "the whole output in the log"
    local took
    took=$(<"$AS_RUN_DIR/logs/demo.seconds")
    run_x 0 "$STEP" "demo step" 45 "$log" true
    assert "${lines[0]}" == "images: demo step (about $took s)..." "the estimate is the last run's time"
    # long steps in minutes
    echo 200 >"$AS_RUN_DIR/logs/demo.seconds"
    run_x 0 "$STEP" "demo step" 45 "$log" true
    assert "${lines[0]}" == "images: demo step (about 3 min)..."
}

@test "image-step: a failure names the log and shows its end; the estimate is kept" {
    local log=$AS_RUN_DIR/logs/fail.log
    mkdir -p "$AS_RUN_DIR/logs"
    echo 7 >"$AS_RUN_DIR/logs/fail.seconds"
    run_x 1 "$STEP" "failing step" 30 "$log" sh -c 'seq 1 100; echo "E: Unable to locate package nosuch" >&2; exit 100'
    assert "$output" == "images: failing step (about 7 s)..."
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" =~ "images: failing step failed after [0-9]+ s \(exit 100\); its whole output is in $log, which ends:"
    assert "$stderr" contains "    E: Unable to locate package nosuch"
    assert "$stderr" !contains "    75" "only the end of the log"
    assert "$(<"$AS_RUN_DIR/logs/fail.seconds")" == 7 "a failed run is no estimate"
    assert "$(wc -l <"$log")" == 101
}

@test "image-step: on a terminal the line counts the seconds in place" {
    local log=$AS_RUN_DIR/logs/tty.log
    run_x 0 script -qec "'$STEP' 'tty step' 5 '$log' sleep 2" /dev/null
    assert "$output" contains $'\rimages: tty step (about 5 s)... 1s'
    assert "$output" =~ $'\r\e\[Kimages: tty step: done in [0-9]+ s'
}
