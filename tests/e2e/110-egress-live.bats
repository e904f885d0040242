#!/usr/bin/env bats
# Live egress control (issue 15): `allow` and `deny` change a running
# session's allowlist without restarting its agent; `log` shows every query
# and connection; the end-of-session summary names what was blocked and
# what could not be reached upstream; the agent reads the list in effect
# and a 403 that says what the user can run; a desktop notification for the
# first refusal of each name (through a private session bus); whatever the
# agent sent is escaped wherever the host shows it; and nothing inside the
# sandbox reaches the control path. Against the fake internet
# (tests/e2e/fake-internet.bash).
#
# A session in the background and the test talk through files in the
# launch directory: the agent touches one when it is ready for the next
# step and waits for the test's.

load helpers
load fake-internet

setup_file() { fi_up; }
teardown_file() { fi_down; }
setup() { as_setup; fi_setup; fi_dns_reset; }
teardown() { as_teardown; }

# notifications on|off: the suite's settings (its agent kept), and a later
# line that wins.
notifications() {
    { cat "$AS_RUN_DIR/settings.suite"; printf 'notifications %s\n' "$1"; } >"$AS_CONFIG_DIR/settings"
}

# The one running session's ID.
session_id() {
    local d
    d=$(suite_session_dirs | head -1)
    [ -n "$d" ] || die "no session directory"
    basename "$d"
}

# agent_pid ID: the host PID of session ID's agent.
agent_pid() {
    $PODMAN inspect "agent-sandbox-$1-agent" --format '{{.State.Pid}}'
}

# An allowlist of this test's own: the fake internet's, then LINES.
own_allowlist() {
    { cat "$FI_DIR/allowed-hosts"; printf '%s\n' "$@"; } >"$AS_RUN_DIR/allowed-hosts"
    export AGENT_SANDBOX_ALLOWLIST=$AS_RUN_DIR/allowed-hosts
}

# Waits for the agent's step file.
step() {
    wait_for_file "$AS_DIR/$1" 60
}

# value_of LABEL: the value of the first "LABEL: ..." line of $output.
value_of() {
    sed -n "s/^$1: //p" <<<"$output" | head -n 1
}

# The session's resolver, inside.
R='R=$(awk "/^nameserver/ {print \$2; exit}" /etc/resolv.conf)'


@test "allow during a session: a refused name is reachable at once, the agent keeps its process and an open connection survives" {
    fi_dns_add "$FI_ORIGIN_IP" x.evil.test
    bg_start agent-sandbox --exec bash -c '
        exec 3<>/dev/tcp/db.allowed.test/5432; read -r banner <&3; echo "banner: $banner"
        echo "pid before: $$"
        getent hosts x.evil.test >/dev/null; echo "resolves before: $?"
        echo "https before: $(curl -sS -m 5 --cacert ca.pem https://x.evil.test/ 2>&1 | head -c 60)"
        touch asked; while [ ! -e allowed ]; do sleep 0.05; done
        # at once: no retry
        echo "resolves after: $(getent hosts x.evil.test | awk "{print \$1}")"
        echo "https after: $(curl -sS -m 5 --cacert ca.pem https://x.evil.test/ 2>&1)"
        echo "http after: $(curl -sS -m 5 http://x.evil.test/ 2>&1)"
        echo ping-after-reload >&3; read -r echoed <&3; echo "echo: $echoed"
        echo "pid after: $$"
        echo "view: $(grep -c "^x.evil.test$" /etc/agent-sandbox/allowed-hosts)"'
    step asked
    local id pid_before
    id=$(session_id)
    pid_before=$(agent_pid "$id")
    run_x 0 agent-sandbox allow x.evil.test
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" == "agent-sandbox: allowed x.evil.test in session $id: the agent can reach it now"
    assert "$(agent_pid "$id")" == "$pid_before" "the agent's process after allow"
    touch "$AS_DIR/allowed"
    bg_wait 120
    assert "$status" == 0
    expect banner db-banner
    expect "resolves before" 2
    expect "https before" =~ "^curl: \(6\) Could not resolve host"
    expect "resolves after" 127.0.0.2
    expect "https after" "origin tls sni=x.evil.test host=x.evil.test"
    expect "http after" "origin http host=x.evil.test"
    expect echo ping-after-reload
    assert "$(value_of "pid before")" == "$(value_of "pid after")" "the agent's PID inside"
    expect view 1
    assert "$(fi_log db | wc -l)" == 1 "connections the db saw (one, kept across the reload)"
    fi_assert_no_hit
}

@test "deny during a session: a name and a wildcard are refused for new lookups and connections; a name only a wildcard allows, or one with ports, stays" {
    bg_start agent-sandbox --exec bash -c '
        echo "before: $(curl -sS -m 5 --cacert ca.pem https://api.allowed.test/) / $(curl -sS -m 5 --cacert ca.pem https://x.wild.test/)"
        touch asked; while [ ! -e denied ]; do sleep 0.05; done
        getent hosts api.allowed.test; echo "resolves api: $?"
        getent hosts x.wild.test; echo "resolves wild: $?"
        echo "sni api: $(./netprobe hello 127.0.0.2 443 api.allowed.test)"
        echo "sni wild: $(./netprobe hello 127.0.0.2 443 x.wild.test)"
        echo "http api: $(curl -sS -m 5 -H "Host: api.allowed.test" http://127.0.0.2/ | head -n 1)"
        echo "db: $(getent hosts db.allowed.test | awk "{print \$1}")"
        echo "hosts file: $(grep -c allowed.test /etc/hosts)"
        echo "view: $(grep -cE "^(api.allowed.test|.wild.test)$" /etc/agent-sandbox/allowed-hosts)"'
    step asked
    local id
    id=$(session_id)
    run_x 64 agent-sandbox deny x.wild.test
    assert "$stderr" == "agent-sandbox: error: x.wild.test is allowed in session $id by .wild.test; deny .wild.test to take the whole domain off"
    run_x 0 agent-sandbox deny api.allowed.test .wild.test --session "${id:0:6}"
    assert "$stderr" contains "denied api.allowed.test in session $id: new connections to it are refused"
    assert "$stderr" contains "denied .wild.test in session $id"
    run_x 64 agent-sandbox deny db.allowed.test
    assert "$stderr" contains "error: db.allowed.test has ports of its own in session $id"
    run_x 0 agent-sandbox deny not-listed.test
    assert "$stderr" contains "not-listed.test is not allowed in session $id: nothing to take off"
    touch "$AS_DIR/denied"
    bg_wait 120
    assert "$status" == 0
    expect before "origin tls sni=api.allowed.test host=api.allowed.test / origin tls sni=x.wild.test host=x.wild.test"
    expect "resolves api" 2
    expect "resolves wild" 2
    expect "sni api" closed
    expect "sni wild" closed
    expect "http api" "blocked by agent-sandbox: api.allowed.test"
    expect db 127.0.0.3
    expect "hosts file" 5        # raw, db, internal, loop, meta: api.allowed.test is gone
    expect view 0
}

@test "allow --save: the names go to the end of the allowlist file, every byte of it kept; a new port only for the next session; a file with errors is not touched" {
    own_allowlist '# the user'"'"'s own comment' 'no-final-newline.allowed.test'
    truncate -s -1 "$AS_RUN_DIR/allowed-hosts"           # its last line has no newline
    local list=$AS_RUN_DIR/allowed-hosts before
    before=$(cat "$list")
    bg_start agent-sandbox --exec bash -c 'touch up; while [ ! -e done ]; do sleep 0.1; done
        echo "view: $(grep -E "^(late.allowed.test|db.allowed.test:5433)$" /etc/agent-sandbox/allowed-hosts | paste -sd " ")"'
    step up
    local id
    id=$(session_id)
    run_x 0 agent-sandbox allow late.allowed.test db.allowed.test:5433 --save
    assert "$stderr" contains "allowed late.allowed.test in session $id: the agent can reach it now"
    assert "$stderr" contains "note: db.allowed.test:5433: a running session cannot open a new port; it is saved for the next sessions"
    assert "$stderr" contains "saved 2 names to $list"
    local today
    today=$(date +%Y-%m-%d)
    assert "$(head -n -2 "$list")" == "$before" "the file as it was"
    assert "$(tail -n 2 "$list")" == "late.allowed.test  # added by agent-sandbox allow, $today"$'\n'"db.allowed.test:5433  # added by agent-sandbox allow, $today"
    # again: nothing new
    local saved
    saved=$(cat "$list")
    run_x 0 agent-sandbox allow late.allowed.test --save
    assert "$stderr" contains "late.allowed.test is already allowed in session $id"
    assert "$stderr" contains "$list allows 1 of them already"
    assert "$(cat "$list")" == "$saved"
    # without --save, a new port is an error
    run_x 64 agent-sandbox allow db.allowed.test:5434
    assert "$stderr" contains "error: db.allowed.test:5434: a running session cannot open a new port; add --save"
    touch "$AS_DIR/done"
    bg_wait 120
    expect view late.allowed.test

    # No session: --save alone, through a symlink that stays one.
    ln -s "$list" "$AS_RUN_DIR/link"
    export AGENT_SANDBOX_ALLOWLIST=$AS_RUN_DIR/link
    run_x 64 agent-sandbox allow later.allowed.test
    assert "$stderr" == "agent-sandbox: error: allow: no session is running"
    run_x 0 agent-sandbox allow later.allowed.test --save
    assert "$(tail -n 1 "$list")" == "later.allowed.test  # added by agent-sandbox allow, $today"
    [ -L "$AS_RUN_DIR/link" ] || die "the symlink was replaced"
    # A file with errors: every one named, nothing written.
    printf 'bad_name.test\n*\n' >>"$list"
    saved=$(cat "$list")
    run_x 65 agent-sandbox allow last.allowed.test --save
    local n
    n=$(wc -l <"$list")
    assert "$stderr" contains "error: saving to $AS_RUN_DIR/link: the file has errors; nothing was added until they are fixed: $AS_RUN_DIR/link:$((n - 1)): invalid character '_'"
    assert "$stderr" contains "agent-sandbox: error: $AS_RUN_DIR/link:$n: \`*\` would allow every host"
    assert "$(cat "$list")" == "$saved"
    # and the names themselves go through the file's checks
    run_x 64 agent-sandbox allow '*.example.test' --save
    assert "$stderr" contains "error: cannot allow \`*.example.test\`: \`*.example.test\`: \`*\` is not supported"
}

@test "allow --save in a session started from the config directory: the names go to allowed-hosts (the agent's allowed-hosts.d file untouched)" {
    unset AGENT_SANDBOX_ALLOWLIST
    local list=$AS_CONFIG_DIR/allowed-hosts before
    cp "$list" "$AS_RUN_DIR/allowed-hosts.suite"
    cp -r "$AS_CONFIG_DIR/allowed-hosts.d" "$AS_RUN_DIR/allowed-hosts.d.suite"
    before=$(cat "$list")
    bg_start agent-sandbox --exec bash -c 'touch up; while [ ! -e done ]; do sleep 0.1; done'
    step up
    run_x 0 agent-sandbox allow saved.allowed.test --save
    local saved said=$stderr
    saved=$(tail -n 1 "$list")
    cp "$AS_RUN_DIR/allowed-hosts.suite" "$list"           # the suite's again, before any assert
    touch "$AS_DIR/done"
    bg_wait 120
    assert "$said" contains "saved 1 name to $list"
    assert "$saved" == "saved.allowed.test  # added by agent-sandbox allow, $(date +%Y-%m-%d)"
    diff -r "$AS_RUN_DIR/allowed-hosts.d.suite" "$AS_CONFIG_DIR/allowed-hosts.d" || die "an agent's file changed"
}

@test "log: every query and connection with time, name, port, verdict and bytes; --denied lines end with the allow command; --follow streams until the session ends; --json" {
    bg_start agent-sandbox --exec bash -c '
        curl -sS -m 5 --cacert ca.pem https://api.allowed.test/ >/dev/null
        touch up; while [ ! -e go ]; do sleep 0.05; done
        for n in blocked-one.test blocked-two.test; do getent hosts $n; sleep 0.3; done
        curl -sS -m 5 -H "Host: blocked-three.test" http://127.0.0.2/ >/dev/null
        while [ ! -e done ]; do sleep 0.05; done'
    step up
    local id
    id=$(session_id)
    timeout 120 "$AGENT_SANDBOX_BIN" log --follow --denied >"$AS_RUN_DIR/follow" 2>"$AS_RUN_DIR/follow.err" &
    local follower=$! n
    touch "$AS_DIR/go"
    for ((n = 0; n < 200; n++)); do
        grep -q blocked-three.test "$AS_RUN_DIR/follow" && break
        sleep 0.1
    done
    local live
    live=$(cat "$AS_RUN_DIR/follow")
    assert "$live" =~ "  dns   blocked-one\.test A  denied; allow with: agent-sandbox allow blocked-one\.test --session $id" "a refused lookup, while the session runs"
    assert "$live" =~ "  http  blocked-three\.test:80  denied; allow with: agent-sandbox allow blocked-three\.test --session $id"
    assert "$live" !~ "api\.allowed\.test" "--denied shows only what was refused"
    touch "$AS_DIR/done"
    bg_wait 120
    assert "$status" == 0
    # the follower ends with the session, by itself
    for ((n = 0; n < 50; n++)); do kill -0 $follower 2>/dev/null || break; sleep 0.1; done
    kill -0 $follower 2>/dev/null && die "log --follow still runs after the session ended"
    wait $follower || die "log --follow exited with $?: $(cat "$AS_RUN_DIR/follow.err")"

    # afterwards: the kept logs, the latest session by default
    run_x 0 agent-sandbox log
    assert "$output" =~ "[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8}  tls   api\.allowed\.test:443  allowed, sent [0-9]+ B, received [0-9]+ B"
    assert "$output" =~ "  dns   api\.allowed\.test A  allowed: 127\.0\.0\.2"
    assert "$output" =~ "  dns   blocked-two\.test A  denied; allow with: agent-sandbox allow blocked-two\.test --save"
    run_x 0 agent-sandbox log "${id:0:5}" --denied --json
    assert "$(python3 -c 'import json, sys
for l in sys.stdin:
    e = json.loads(l)
    print(e["kind"], e["name"], e["port"], e["verdict"], e.get("type", "-"), e["allow"])' <<<"$output" | sort -u)" == \
        "dns blocked-one.test 53 deny A agent-sandbox allow blocked-one.test --save
dns blocked-one.test 53 deny AAAA agent-sandbox allow blocked-one.test --save
dns blocked-two.test 53 deny A agent-sandbox allow blocked-two.test --save
dns blocked-two.test 53 deny AAAA agent-sandbox allow blocked-two.test --save
http blocked-three.test 80 deny - agent-sandbox allow blocked-three.test --save"
    run_x 64 agent-sandbox log ffffffffffff
    assert "$stderr" == "agent-sandbox: error: no session ffffffffffff, running or with its logs kept"
}

@test "the end-of-session summary: the names blocked most, with counts and the command that allows the first" {
    run_x 0 agent-sandbox --exec bash -c '
        for n in pypi.org pypi.org pypi.org files.pythonhosted.org files.pythonhosted.org example.test other.test; do
            getent hosts $n
        done
        curl -sS -m 5 -H "Host: PyPI.org" http://127.0.0.2/ >/dev/null'
    local id
    # shellcheck disable=SC2012  # the newest by mtime; session IDs are plain hex
    id=$(ls -t "$XDG_STATE_HOME/agent-sandbox/logs" | head -1)
    assert "$stderr" contains "agent-sandbox: egress: 4 blocked: pypi.org (4x), files.pythonhosted.org (2x), example.test (1x) and 1 more (agent-sandbox log $id --denied); allow with: agent-sandbox allow pypi.org --save"
    assert "$stderr" contains "agent-sandbox: egress: every query and connection: agent-sandbox log $id"
}

@test "upstream failures: an allowed name that does not resolve upstream, or whose connection is refused, is named by the summary and by log" {
    own_allowlist gone.unresolvable.test refused.allowed.test
    fi_dns_add "$FI_DB_IP" refused.allowed.test          # nothing listens on its 443 and 80
    run_x 0 agent-sandbox --exec bash -c '
        for i in 1 2; do curl -sS -m 5 --cacert ca.pem https://gone.unresolvable.test/ -o /dev/null; echo "gone $i: $?"; done
        curl -sS -m 5 http://refused.allowed.test/ -o /dev/null -w "%{http_code}\n"'
    expect "gone 1" 35
    assert "$stderr" contains "agent-sandbox: egress: gone.unresolvable.test: allowed, but it could not be resolved upstream (2x)"
    assert "$stderr" contains "agent-sandbox: egress: a name that exists but does not resolve: \`agent-sandbox doctor\` checks the router's upstream resolver (AGENT_SANDBOX_RESOLVER, or /etc/resolv.conf's) and that its egress network has a route out"
    assert "$stderr" contains "agent-sandbox: egress: refused.allowed.test: allowed, but the connection to it failed upstream"
    run_x 0 agent-sandbox log
    assert "$output" =~ "  tls   gone\.unresolvable\.test:443  allowed, but not resolved upstream"
    assert "$output" =~ "  http  refused\.allowed\.test:80  allowed, but the connection upstream failed \($FI_DB_IP:80\)"
}

@test "a plain session: its own host name answers inside and never reaches the router; the readiness check is the sandbox's own, not blocked, not the agent's" {
    run_x 0 agent-sandbox --exec bash -c '
        h=$(cat /proc/sys/kernel/hostname); echo "host: $h"
        echo "getent: $(getent hosts "$h" | tr -s " \t" " ")"
        echo "ahostsv4: $(getent ahostsv4 "$h" | awk "NR == 1 {print \$1}")"
        echo "ahosts: $(getent ahosts "$h" | awk "{print \$1}" | sort -u | xargs)"
        if command -v hostname >/dev/null; then echo "fqdn: $(hostname -f)"; else echo "fqdn: $h"; fi'
    local id logs
    # shellcheck disable=SC2012  # the newest by mtime; session IDs are plain hex
    id=$(ls -t "$XDG_STATE_HOME/agent-sandbox/logs" | head -1)
    logs=$XDG_STATE_HOME/agent-sandbox/logs/$id
    expect host "agent-sandbox-$id"
    expect getent "::ffff:127.0.1.1 agent-sandbox-$id"
    expect ahostsv4 127.0.1.1
    expect ahosts =~ "^(::ffff:)?127\.0\.1\.1( (::ffff:)?127\.0\.1\.1)?$"
    expect fqdn "agent-sandbox-$id"
    assert "$(grep "agent-sandbox-$id" "$logs/dns.log")" == "" "the router's log lines of the host name"
    assert "$stderr" !contains "blocked"
    assert "$stderr" !contains "egress:"
    # the readiness check, before the agent: in the log, marked as the sandbox's own
    run_x 0 agent-sandbox log
    assert "$output" contains "dns   denied-probe.agent-sandbox.invalid A  denied  [the sandbox's own check, before the agent started]"
    assert "$(grep -vc "\[the sandbox's own check, before the agent started\]$" <<<"$output")" == 0 "lines not marked as the sandbox's own"
    assert "$output" !contains "allow with:"
    run_x 0 agent-sandbox log --denied
    assert "$output" == ""
    run_x 0 agent-sandbox log --json
    assert "$(python3 -c 'import json, sys
print(" ".join(sorted({json.loads(l)["by"] for l in sys.stdin})))' <<<"$output")" == "sandbox"
}

@test "threat 39: the agent using the readiness probe's name (DNS, SNI, Host) is shown in log, the summary and ps like any refusal" {
    local probe=denied-probe.agent-sandbox.invalid
    bg_start agent-sandbox --exec bash -c "$R"'
        touch up; while [ ! -e go ]; do sleep 0.05; done
        getent hosts '"$probe"'; echo "getent: $?"
        ./netprobe dns $R A '"$probe"'
        ./netprobe hello 127.0.0.2 443 '"$probe"'
        curl -sS -m 5 -H "Host: '"$probe"'" http://127.0.0.2/ -o /dev/null -w "http: %{http_code}\n"
        touch asked; while [ ! -e done ]; do sleep 0.05; done'
    step up
    # the agent runs and has asked nothing: the readiness check counts for nothing
    run_x 0 agent-sandbox ps --json
    assert "$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])[0]["denied"])' "$output")" == 0 "denied before the agent asked"
    touch "$AS_DIR/go"
    step asked
    local denied n
    for ((n = 0; n < 50; n++)); do      # the router's log writer may be a moment behind
        run_x 0 agent-sandbox ps --json
        denied=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])[0]["denied"])' "$output")
        [ "$denied" -ge 4 ] && break
        sleep 0.1
    done
    [ "$denied" -ge 4 ] || die "ps counts $denied denied after the agent's 4 refusals"
    touch "$AS_DIR/done"
    bg_wait 120
    assert "$status" == 0
    expect getent 2
    expect http 403
    local id
    # shellcheck disable=SC2012  # the newest by mtime; session IDs are plain hex
    id=$(ls -t "$XDG_STATE_HOME/agent-sandbox/logs" | head -1)
    assert "$stderr" contains "agent-sandbox: egress: 1 blocked: $probe ("
    assert "$stderr" contains "allow with: agent-sandbox allow $probe --save"
    run_x 0 agent-sandbox log --denied
    assert "$output" =~ "  dns   $probe A  denied; allow with: agent-sandbox allow $probe --save"$'\n'
    assert "$output" =~ "  tls   $probe:443  denied; allow with"
    assert "$output" =~ "  http  $probe:80  denied; allow with"
    assert "$output" !contains "the sandbox's own"
    # the same name from the readiness check, before the agent, stays the sandbox's own
    run_x 0 agent-sandbox log
    assert "$output" contains "$probe A  denied  [the sandbox's own check, before the agent started]"
}

@test "errors in the allowlist file: every one is named at once, and the session does not start" {
    printf 'ok.allowed.test\nbad_name.test\nfine.test\n*\nhttps://x.test/\n' >"$AS_RUN_DIR/allowed-hosts"
    export AGENT_SANDBOX_ALLOWLIST=$AS_RUN_DIR/allowed-hosts
    run_x 65 agent-sandbox --exec true
    local f=$AS_RUN_DIR/allowed-hosts
    assert "$(grep -v '^agent-sandbox: note: ' <<<"$stderr")" == "agent-sandbox: error: $f:2: invalid character '_' in host name \`bad_name.test\` (RFC 1123 allows letters, digits, '-' and '.')
agent-sandbox: error: $f:4: \`*\` would allow every host; list the host names instead
agent-sandbox: error: $f:5: \`https://x.test/\` is a URL; write only the host name (e.g. api.example.com)
agent-sandbox: the session was not started: fix the allowlist, or point AGENT_SANDBOX_ALLOWLIST at another"
}

@test "inside: the allowlist in effect at /etc/agent-sandbox/allowed-hosts, read-only; a refused HTTP request's 403 names the host and the command" {
    run_x 0 agent-sandbox --exec bash -c '
        cat /etc/agent-sandbox/allowed-hosts
        echo x >>/etc/agent-sandbox/allowed-hosts 2>/dev/null; echo "write: $?"
        curl -sS -m 5 -H "Host: pypi.org" http://127.0.0.2/; curl -sS -m 5 -H "Host: 10.1.2.3" http://127.0.0.2/'
    local id
    # shellcheck disable=SC2012  # the newest by mtime; session IDs are plain hex
    id=$(ls -t "$XDG_STATE_HOME/agent-sandbox/logs" | head -1)
    assert "$output" == "# The names this sandbox may reach now (agent-sandbox session $id).
# Nothing else resolves, and the router refuses every other name. This file
# is read-only: the user changes the list on the host, with
#   agent-sandbox allow NAME --session $id
#   agent-sandbox deny NAME --session $id
$(grep -v '^#' "$FI_DIR/allowed-hosts")
write: 1
blocked by agent-sandbox: pypi.org
This sandbox reaches only the names in /etc/agent-sandbox/allowed-hosts.
To allow it, the user runs on the host: agent-sandbox allow pypi.org --session $id
blocked by agent-sandbox: 10.1.2.3
This sandbox reaches only the names in /etc/agent-sandbox/allowed-hosts.
It is not a host name an allowlist can hold."
}

# notify_session NOTES SCRIPT: a session running SCRIPT under a private
# session bus whose notification service records each Notify call in NOTES.
notify_session() {
    local notes=$1 script=$2
    NOTES=$notes READY=$AS_RUN_DIR/ready LISTENER=$AS_TOP/tests/e2e/fixtures/notification-listener \
        BIN=$AGENT_SANDBOX_BIN SCRIPT=$script run_x 0 dbus-run-session -- bash -c '
        "$LISTENER" "$NOTES" "$READY" & listener=$!
        for i in $(seq 100); do [ -e "$READY" ] && break; sleep 0.05; done
        [ -e "$READY" ] || { echo "the listener did not start" >&2; exit 1; }
        "$BIN" --exec bash -c "$SCRIPT"; rc=$?
        kill $listener; exit $rc'
}

@test "a desktop notification for the first refusal of each name, with the command that allows it, through a private session bus; none with notifications off" {
    notifications on
    local script='for n in pypi.org pypi.org files.pythonhosted.org; do getent hosts $n; done
        curl -sS -m 5 -H "Host: pypi.org" http://127.0.0.2/ >/dev/null'
    notify_session "$AS_RUN_DIR/notes" "$script"
    local id
    # shellcheck disable=SC2012  # the newest by mtime; session IDs are plain hex
    id=$(ls -t "$XDG_STATE_HOME/agent-sandbox/logs" | head -1)
    assert "$(cat "$AS_RUN_DIR/notes")" == \
'{"app": "agent-sandbox", "summary": "agent-sandbox blocked pypi.org", "body": "The agent in session '"$id"' tried to reach pypi.org. To allow it, run: agent-sandbox allow pypi.org --session '"$id"'", "actions": []}
{"app": "agent-sandbox", "summary": "agent-sandbox blocked files.pythonhosted.org", "body": "The agent in session '"$id"' tried to reach files.pythonhosted.org. To allow it, run: agent-sandbox allow files.pythonhosted.org --session '"$id"'", "actions": []}'
    notifications off
    notify_session "$AS_RUN_DIR/notes-off" "$script"
    [ ! -s "$AS_RUN_DIR/notes-off" ] || die "a notification with notifications off: $(cat "$AS_RUN_DIR/notes-off")"
}

@test "threat 39: an SNI and DNS names carrying ESC ] and <a href=...> are escaped in log, log --json, the summary and the notification" {
    notifications on
    local script=$R'
        ./netprobe hello 127.0.0.2 443 "\x1b]0;evil\x07<a href=\"https://evil.test/\">click</a>"
        ./netprobe dns $R A "\x1b]8;;https://evil.test/\x07x.test"
        ./netprobe dns $R A "<b>bold</b>.test"; sleep 1'
    notify_session "$AS_RUN_DIR/notes" "$script"
    local id esc
    # shellcheck disable=SC2012  # the newest by mtime; session IDs are plain hex
    id=$(ls -t "$XDG_STATE_HOME/agent-sandbox/logs" | head -1)
    esc='\x1b]0;evil\x07<a href="https://evil.test/">click</a>'
    assert "$stderr" contains "egress: 3 blocked: "
    assert "$stderr" contains "$esc (1x)"
    assert "$stderr" contains "<b>bold</b>.test (1x)"
    run_x 0 agent-sandbox log --denied
    assert "$output" contains "  tls   $esc:443  denied"
    assert "$output" contains "  dns   <name unprintable> A  denied"
    local text=$output
    run_x 0 agent-sandbox log --denied --json
    assert "$(python3 -c 'import json, sys
print("\n".join(sorted(json.loads(l)["name"] for l in sys.stdin)))' <<<"$output")" == \
        "<b>bold</b>.test"$'\n'"<name unprintable>"$'\n'"$esc"
    local notes
    notes=$(python3 -c 'import json, sys
for l in open(sys.argv[1]): print(json.loads(l)["summary"] + " | " + json.loads(l)["body"])' "$AS_RUN_DIR/notes" | sort)
    assert "$notes" contains "agent-sandbox blocked \\x1b]0;evil\\x07&lt;a href=&quot;https://evil.test/&quot;&gt;click&lt;/a&gt; | The agent in session $id tried to reach \\x1b]0;evil\\x07&lt;a href=&quot;https://evil.test/&quot;&gt;click&lt;/a&gt;, which is not a host name"
    assert "$notes" contains "agent-sandbox blocked &lt;b&gt;bold&lt;/b&gt;.test"
    assert "$notes" !contains "<"
    # every byte anything printed is printable ASCII or a newline
    local other
    other=$(printf '%s\n%s\n%s\n%s' "$stderr" "$text" "$output" "$notes" | LC_ALL=C tr -d '\n -~' | od -An -tx1)
    assert "$other" == "" "bytes shown other than printable ASCII and newlines"
}

@test "the control path is out of the agent's reach: no session directory, socket or state inside; its view and /etc/hosts cannot be written; the list stays as it was" {
    fi_dns_add "$FI_ORIGIN_IP" x.evil.test
    run_x 0 agent-sandbox --exec bash -c '
        echo "sockets: $(find / -xdev \( -name podman.sock -o -name "*.sock" \) 2>/dev/null | wc -l)"
        echo "run user: $(ls /run/user 2>&1 | head -n 1)"
        echo "view dir: $(ls -A /etc/agent-sandbox | paste -sd " ")"
        # what of the runtime directory is mounted: the name files and the view only
        echo "mounted: $(awk "\$4 ~ /agent-sandbox\// {n = split(\$4, p, \"/\"); print p[n]}" /proc/self/mountinfo | sort | paste -sd " ")"
        echo x.evil.test >>/etc/agent-sandbox/allowed-hosts 2>/dev/null; echo "write view: $?"
        echo "127.0.0.2 x.evil.test" >>/etc/hosts 2>/dev/null; echo "write hosts: $?"
        getent hosts x.evil.test; echo "resolves: $?"
        echo "sni: $(./netprobe hello 127.0.0.2 443 x.evil.test)"'
    expect sockets 0
    expect "run user" =~ "No such file or directory"
    expect "view dir" allowed-hosts
    expect mounted "agent-view hosts resolv.conf"
    expect "write view" 1
    expect "write hosts" 1
    expect "resolves" 2
    expect sni closed
    fi_assert_no_hit
}
