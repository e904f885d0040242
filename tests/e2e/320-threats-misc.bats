#!/usr/bin/env bats
# Threat-model items not covered by a file of their own: 21 (processes of
# the pod's other containers are out of sight and reach), 30 (a malformed
# allowlist or allowed-paths refuses the session, naming file and line), and
# `agent-sandbox verify` on this machine.

load helpers

# The suite's config directory, never the user's (helpers.bash).
AP_FILE=$AS_CONFIG_DIR/allowed-paths

setup() {
    as_setup
    AS_TEST_HOME=
}

teardown() {
    # a home of the test's own (threat 32 plants files there)
    [ -n "${AS_TEST_HOME:-}" ] && $PODMAN volume rm -f "$AS_TEST_HOME" >/dev/null 2>&1
    rm -f "$AP_FILE"
    as_teardown
}

@test "threat 21: the agent sees only its own processes, none of the router's or forwarder's" {
    run_x 0 agent-sandbox --exec sh -c \
        'for p in /proc/[0-9]*; do tr "\0" " " <"$p/cmdline"; echo; done 2>/dev/null'
    assert "$output" contains "for p in" "the agent's own shell is listed"
    assert "$output" !contains "socat" "the forwarder's processes"
    assert "$output" !contains "dnsmasq" "the router's processes"
    assert "$output" !contains "nginx" "the router's processes"
    assert "$output" !contains "conmon" "podman's monitors"
    # nothing outside its own PID namespace can be signalled: every pid it
    # can name is one of its own
    run_x 0 agent-sandbox --exec sh -c 'n=0; for p in /proc/[0-9]*; do n=$((n+1)); done; echo "$n"'
    [ "$output" -lt 10 ] || die "the agent sees $output processes"
}

@test "threat 30: a malformed allowlist refuses the session, naming the file and line" {
    local list=$AS_RUN_DIR/allowed-hosts
    printf '# mine\napi.allowed.test\nhttps://evil.test/x\n' >"$list"
    AGENT_SANDBOX_ALLOWLIST=$list run_x 65 agent-sandbox --exec touch "$AS_DIR/started"
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" contains "$list:3:" "the file and the line"
    [ ! -e "$AS_DIR/started" ] || die "the agent ran with a malformed allowlist"
    AGENT_SANDBOX_ALLOWLIST=$AS_RUN_DIR/missing run_x 65 agent-sandbox --exec touch "$AS_DIR/started"
    assert "$stderr" contains "$AS_RUN_DIR/missing" "the unreadable file"
    [ ! -e "$AS_DIR/started" ] || die "the agent ran without an allowlist"
}

@test "threat 30: a malformed allowed-paths refuses the launch, naming the file and line" {
    mkdir -p "$(dirname "$AP_FILE")"
    printf '# roots\n%s\nrelative/path\n' "$HOME" >"$AP_FILE"
    run_x 65 agent-sandbox --exec touch "$AS_DIR/started"
    assert "$stderr" contains "allowed-paths" "the file"
    assert "$stderr" contains ":3" "the line"
    [ ! -e "$AS_DIR/started" ] || die "the agent ran with a malformed allowed-paths"
}

@test "verify: every property holds on this machine, as a table and as JSON" {
    run_x 0 agent-sandbox verify
    assert "$output" contains "0 failed" "the verdict"
    assert "$output" !contains "FAIL " "no property failed"
    assert "$output" contains "PASS  only the launch directory is mounted from the host" "the mount check"
    assert "$output" contains "PASS  a TLS connection with a name off the allowlist is refused" "the SNI check"
    # its probes are refused on purpose: verify's, never the agent's
    assert "$stderr" !contains "blocked"
    assert "$stderr" !contains "allow with:"
    run_x 0 agent-sandbox log
    assert "$output" contains "  tls   spoof-"
    assert "$(grep -vc "  \[verify's probe\]$\|  \[the sandbox's own check, before the agent started\]$" <<<"$output")" == 0 "lines not marked as verify's or the sandbox's"
    assert "$output" !contains "allow with:"
    run_x 0 agent-sandbox log --denied
    assert "$output" == ""
    run_x 0 agent-sandbox verify --json
    run_x 0 python3 -c 'import json, sys
r = json.loads(sys.argv[1])
assert r["passed"] is True, r
ids = {p["id"]: p["result"] for p in r["probes"]}
assert all(v in ("PASS", "SKIP") for v in ids.values()), ids
assert ids["mounts"] == "PASS" and ids["environment"] == "PASS", ids
print(len(ids))' "$output"
    [ "$output" -ge 15 ] || die "only $output probes reported"
}

@test "verify runs on the inputs a session loads, loaded once: a duplicate of the allowlist is warned of once" {
    # the allowlist the suite's sessions use, with its first entry again
    local list=$AS_RUN_DIR/allowed-hosts first
    run_x 0 agent-sandbox --dry-run --exec true
    cp "$AS_CONFIG_DIR/allowed-hosts" "$list"
    first=$(grep -m1 -v '^[[:space:]]*\(#\|$\)' "$list" | awk '{print $1}')
    [ -n "$first" ] || die "the suite's allowlist has no entry"
    printf '%s\n' "$first" >>"$list"
    export AGENT_SANDBOX_ALLOWLIST=$list
    run_x --warns "is already listed on line" 0 agent-sandbox verify
    assert "$output" contains "0 failed" "the verdict"
    local told
    told=$(grep -c "warning: .*is already listed on line" "$AS_RUN_DIR/stderr" || true)
    assert "$told" == "1" "the duplicate's warnings"
}

@test "threat 39: a path and a refused name with C1 controls and a bidi override reach the terminal escaped, byte by byte" {
    # U+009B (CSI), U+009D (OSC) and U+202E (right-to-left override), UTF-8
    # encoded, and a raw 0x9b byte (CSI on an 8-bit terminal), in the name of
    # an executable the end-of-session report lists.
    # The same and an OSC title sequence in a TLS server name the router
    # refuses: the end-of-session summary names it.
    run_x --warns "$WARN_EXECUTABLES" 0 agent-sandbox --exec sh -c \
        'f=$(printf "run\302\233\302\235\342\200\256me\233x"); printf "#!/bin/sh\n" >"$f"; chmod +x "$f"
         openssl s_client -connect 127.0.0.2:443 -servername "$(printf "ev\302\233il\342\200\256\033]0;x.test")" \
             </dev/null >/dev/null 2>&1 || true'
    assert "$stderr" contains '  run\u{009B}\u{009D}\u{202E}me\x9bx: new or changed, executable' \
        "the report names the file, escaped"
    assert "$stderr" contains 'egress: 1 blocked: ev\u{009B}il\u{202E}\x1b]0;x.test (1x)' \
        "the egress summary names the refused name, escaped"
    # every byte the CLI wrote is printable ASCII or a newline
    local other
    other=$(LC_ALL=C tr -d '\n -~' <"$AS_RUN_DIR/stderr" | od -An -tx1)
    assert "$other" == "" "bytes on stderr other than printable ASCII and newlines"
}

@test "threat 32: what a session leaves in its home (~/.curlrc, ~/.bashrc, a curl earlier on PATH) changes no verdict of verify" {
    verdicts() {
        python3 -c 'import json, sys
r = json.loads(sys.argv[1])
print("\n".join(sorted(p["id"] + " " + p["result"] for p in r["probes"])))' "$1"
    }
    # its own home: what is planted must not reach the suite's other tests
    # shellcheck disable=SC2018,SC2019  # ASCII on purpose: a podman name
    AS_TEST_HOME=as-e2e-verify-home-$(basename "$AS_DIR" | tr 'A-Z' 'a-z')
    export AGENT_SANDBOX_HOME_VOLUME=$AS_TEST_HOME
    run_x 0 agent-sandbox verify --json
    local before
    before=$(verdicts "$output")
    # A previous agent's leftovers: a curl config that sends every
    # connection elsewhere (the command line does not set connect-to, so it
    # would hold), shell startup files that put a fake curl first on PATH,
    # and that fake curl, which "sees" every refusal.
    run_x 0 agent-sandbox --exec bash -c '
        printf "connect-to = \"::127.0.0.1:9\"\n" >~/.curlrc
        mkdir -p ~/bin ~/.local/bin
        printf "#!/bin/sh\necho \"HTTP 403 blocked by agent-sandbox\"\nexit 0\n" >~/bin/curl
        cp ~/bin/curl ~/.local/bin/curl
        chmod +x ~/bin/curl ~/.local/bin/curl
        for f in .bashrc .bash_profile .profile; do
            echo "export PATH=\$HOME/bin:\$HOME/.local/bin:\$PATH BASH_ENV=\$HOME/.bashrc" >~/$f
        done
        echo "export PATH=\$HOME/bin:\$PATH" >~/.bash_env'
    run_x '?' agent-sandbox verify --json
    assert "$(verdicts "$output")" == "$before" "the verdicts with the planted files"
    # the planted files are still there for the agent's own sessions
    run_x 0 agent-sandbox --exec cat /home/agent/.curlrc
    assert "$output" contains "connect-to"
}

@test "threat 39: a flood of DNS queries for 20 s leaves no more than the ceiling in the runtime and state directories" {
    # ceiling: 3 logs of 2 MiB each (lib/egress/session_logs.h), plus their counts
    local ceiling=$((3 * 2097152 + 4096)) state=$AS_RUN_DIR/state
    mkdir -p "$state"
    XDG_STATE_HOME=$state bg_start agent-sandbox --exec perl -e '
        use Socket;
        open(my $rc, "<", "/etc/resolv.conf") or die;
        my ($ns) = map { /^nameserver\s+(\S+)/ ? $1 : () } <$rc>;
        socket(my $s, PF_INET, SOCK_DGRAM, 0) or die;
        my $to = sockaddr_in(53, inet_aton($ns));
        # two 60-byte labels: each logged line is ~200 bytes, so that the
        # ~10,000 queries a slow machine answers in 20 s overflow 2 MiB
        my ($end, $i, $pad) = (time + 20, 0, "p" x 60);
        while (time < $end) {
            for (1 .. 500) {
                my $q = pack("n n n n n n", $i & 0xffff, 0x0100, 1, 0, 0, 0);
                $q .= pack("C/a*", "flood" . $i++) . pack("C/a*", $pad) . pack("C/a*", $pad)
                    . pack("C/a*", "example") . pack("C/a*", "test") . "\0";
                send($s, $q . pack("n n", 1, 1), 0, $to);
            }
        }
        print "sent $i\n";'
    # while it runs: the session's router logs in the runtime directory
    local n size max=0
    for ((n = 0; n < 300; n++)); do
        [ -s "$AS_RUN_DIR/bg.rc" ] && break
        size=$(suite_session_dirs | xargs -r -I{} find {} -path '*/router-log/*' -type f -printf '%s\n' 2>/dev/null | awk '{ t += $1 } END { print t + 0 }')
        [ "$size" -gt "$max" ] && max=$size
        sleep 0.2
    done
    bg_wait 120
    assert "$status" == 0 "the flood's session"
    assert "$output" =~ "^sent [0-9]+$"
    local sent=${output#sent }
    [ "$sent" -gt 100000 ] || die "only $sent queries sent: no flood"
    [ "$max" -gt 0 ] || die "no router log seen in the runtime directory while the flood ran"
    [ "$max" -le "$ceiling" ] || die "the runtime directory held $max bytes of logs (ceiling $ceiling)"
    # afterwards: the kept copy
    local kept
    kept=$(find "$state/agent-sandbox/logs" -type f -printf '%s\n' | awk '{ t += $1 } END { print t + 0 }')
    [ "$kept" -gt 0 ] && [ "$kept" -le "$ceiling" ] || die "the state directory holds $kept bytes of logs (ceiling $ceiling)"
    assert "$stderr" =~ "egress: the router's logs reached their ceiling \(2 MiB each\): [0-9]+ lines? w(as|ere) dropped" \
        "the summary says how many lines were dropped"
    local dropped
    dropped=$(cat "$state"/agent-sandbox/logs/*/dns.log.dropped)
    [ "$dropped" -gt 1000 ] || die "only $dropped lines counted as dropped"
    echo "# $sent queries; at most $max bytes of logs while running, $kept kept; $dropped DNS log lines dropped" >&3
}
