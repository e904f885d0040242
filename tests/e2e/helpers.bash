# Shared set-up, helpers and leak check of the end-to-end suite, in the style
# of podman's test/system/helpers.bash and bubblewrap's tests/libtest.sh.
#
# Each test runs as the invoking (rootless) user, in a launch directory of
# its own under $HOME (the CLI refuses /tmp), against $AGENT_SANDBOX_BIN.
# After each test, teardown() fails the test if anything of the suite's
# sessions is left: a container, pod, network or volume labelled
# agent-sandbox.session, a `podman system service` process, or a directory
# under $XDG_RUNTIME_DIR/agent-sandbox/. It removes what it found, so one
# leak fails one test, not every test after it. The user's own sessions,
# launched elsewhere, are never counted or touched (see "Leak check").
#
# Tests talk to podman through its CLI; only the product may not shell out.
#
# shellcheck disable=SC2034  # a library: the test files use what it sets
#
# The suite never reads or writes the invoking user's own agent-sandbox
# files: setup_suite points XDG_CONFIG_HOME and XDG_STATE_HOME at a directory
# of its own ($AS_E2E_ROOT/.xdg-<id>/, removed at the end), and every session
# uses the suite's home volume (AGENT_SANDBOX_HOME_VOLUME). Podman reads its
# own config from $XDG_CONFIG_HOME/containers/ (containers.conf with the
# runtime, storage.conf with the driver) and, under the CNI backend, its
# networks from $XDG_CONFIG_HOME/cni/: the suite's config directory links
# both to the user's, so podman behaves as it does for the user. Its storage
# follows XDG_DATA_HOME (~/.local/share/containers), which the suite leaves
# alone: the images `make images` built are the ones the tests run. Tests
# find the suite's config directory in $AS_CONFIG_DIR. git's global config
# is the suite's $XDG_CONFIG_HOME/git/config, named by GIT_CONFIG_GLOBAL, so
# that the user's ~/.gitconfig (an identity, anything) changes no test.
#
# Environment:
#   AGENT_SANDBOX_BIN  the CLI under test (default: build/agent-sandbox)
#   AS_TIMEOUT         seconds a CLI run may take before it is killed (120)
#   AS_E2E_ROOT        parent of the per-test launch directories ($HOME/as-e2e)
#   PODMAN             podman CLI used by the tests (podman)

AS_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
AGENT_SANDBOX_BIN=${AGENT_SANDBOX_BIN:-$AS_TOP/build/agent-sandbox}
AS_TIMEOUT=${AS_TIMEOUT:-120}
AS_E2E_ROOT=${AS_E2E_ROOT:-$HOME/as-e2e}
PODMAN=${PODMAN:-podman}
AS_LABEL=agent-sandbox.session
AS_SESSIONS_DIR=${XDG_RUNTIME_DIR:-/nonexistent}/agent-sandbox
AS_CONFIG_DIR=${XDG_CONFIG_HOME:-$HOME/.config}/agent-sandbox
# The suite's sessions are launched under here (resolved; setup_suite sets
# it, the leak check's mark of what is the suite's).
AS_TEST_ROOT=${AGENT_SANDBOX_TEST_ROOT:-$AS_E2E_ROOT}

# Exit codes of the CLI's own failures.
EX_USAGE=64 EX_CONFIG=65 EX_NOIMAGE=66 EX_SERVICE=69 EX_SOFTWARE=70
EX_SETUP=71 EX_OUTPUT=74 EX_SERVICE_LOST=75 EX_REMOVED=76 EX_REFUSED=77
EX_NO_RUNTIME_DIR=78 EX_NOT_EXEC=126 EX_NOT_FOUND=127

###############################################################################
# Failure reporting

# die MESSAGE...: fail the test with a framed message.
die() {
    local sep='#\^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^'
    {
        echo "#/vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
        local line
        while IFS= read -r line; do echo "#| $line"; done <<<"FAIL: $*"
        echo "$sep"
    } >&2
    false
}

# Prints VALUE for a failure message, one "> " line per line of it.
_show() {
    local label=$1 value=$2 line first=1
    if [[ $value != *$'\n'* ]]; then
        printf "#| %10s: '%s'\n" "$label" "$value"
        return
    fi
    while IFS= read -r line; do
        if [ $first = 1 ]; then printf '#| %10s: > %s\n' "$label" "$line"; first=0
        else printf '#| %10s  > %s\n' "" "$line"; fi
    done <<<"$value"
}

# assert ACTUAL OP EXPECTED [DESCRIPTION]
#   OP: == != (strings), =~ !~ (extended regex), contains !contains (substring)
# assert -z|-n VALUE [DESCRIPTION]
assert() {
    local actual op expected desc ok=
    if [ "$1" = -z ] || [ "$1" = -n ]; then
        op=$1 actual=$2 expected='' desc=${3:-}
    else
        actual=$1 op=$2 expected=$3 desc=${4:-}
    fi
    case $op in
        ==) [[ $actual == "$expected" ]] && ok=1 ;;
        !=) [[ $actual != "$expected" ]] && ok=1 ;;
        =~) [[ $actual =~ $expected ]] && ok=1 ;;
        !~) [[ $actual =~ $expected ]] || ok=1 ;;
        contains) [[ $actual == *"$expected"* ]] && ok=1 ;;
        !contains) [[ $actual == *"$expected"* ]] || ok=1 ;;
        -z) [ -z "$actual" ] && ok=1 ;;
        -n) [ -n "$actual" ] && ok=1 ;;
        *) die "assert: unknown operator '$op'" ;;
    esac
    [ -n "$ok" ] && return 0
    {
        echo "#/vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
        echo "#|     FAIL: ${desc:-assert $op}"
        case $op in
            -z) _show actual "$actual"; echo "#| expected: empty" ;;
            -n) echo "#|   actual: empty, expected something" ;;
            *) _show expected "$op $expected"; _show actual "$actual" ;;
        esac
        echo '#\^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^'
    } >&2
    false
}

# Fails if FILE holds a sanitizer report (SANITIZE=1 builds).
check_sanitizer() {
    if grep -Eq 'ERROR: (Address|Leak|Memory|Thread)Sanitizer|runtime error: ' "$1" 2>/dev/null; then
        die "sanitizer report from the CLI:"$'\n'"$(cat "$1")"
    fi
}

###############################################################################
# Running the CLI

# shellcheck disable=SC1007,SC2004  # run_x: x= is an empty value, cmd[$i] is cmd[i]
# run_x [OPTIONS] [EXPECTED_STATUS] COMMAND [ARGS...]
#   Runs COMMAND with a timeout ($AS_TIMEOUT) and stdin from /dev/null, then
#   checks its exit status against EXPECTED_STATUS (default 0; '?' accepts any).
#   The first argument that is exactly `agent-sandbox` becomes
#   $AGENT_SANDBOX_BIN, so `run_x 42 agent-sandbox --exec sh -c 'exit 42'` and
#   `run_x 0 strace -o LOG agent-sandbox --exec true` both run the CLI under test.
#   Sets $status, $output (stdout, trailing newlines removed), $lines (stdout
#   lines) and $stderr.
#   OPTIONS: --input STRING   stdin is STRING
#            --stdin FILE     stdin is FILE
#            --stdout FILE    stdout goes to FILE ($output stays empty)
#            --timeout SECS   instead of $AS_TIMEOUT
#            --warns TEXT     the command is expected to warn with TEXT (repeatable)
#   A command that succeeds (exit 0) but prints a warning ("agent-sandbox:
#   warning: ..." on stderr or stdout) fails the test, as podman's run_podman
#   does, unless every such line contains one of the --warns TEXTs; each TEXT
#   must then be in some warning, so a declaration that no longer applies
#   fails too. EXPECTED_STATUS `0+w` accepts exit 0 with any warnings (and
#   none), for a warning that depends on the host.
run_x() {
    local stdin=/dev/null input= have_input= stdout_file= secs=$AS_TIMEOUT expected=0
    local any_warnings='' warns=()
    while :; do
        case $1 in
            --input) input=$2 have_input=1; shift 2 ;;
            --stdin) stdin=$2; shift 2 ;;
            --stdout) stdout_file=$2; shift 2 ;;
            --timeout) secs=$2; shift 2 ;;
            --warns) warns+=("$2"); shift 2 ;;
            *) break ;;
        esac
    done
    if [ "$1" = 0+w ]; then expected=0 any_warnings=1; shift
    elif [[ $1 =~ ^([0-9]+|\?)$ ]]; then expected=$1; shift; fi
    local cmd=("$@") i
    for i in "${!cmd[@]}"; do
        if [ "${cmd[$i]}" = agent-sandbox ]; then cmd[$i]=$AGENT_SANDBOX_BIN; break; fi
    done

    local out=$AS_RUN_DIR/stdout err=$AS_RUN_DIR/stderr
    [ -n "$stdout_file" ] && out=$stdout_file
    echo "\$ $*"
    status=0
    if [ -n "$have_input" ]; then
        timeout --kill-after=10 "$secs" "${cmd[@]}" >"$out" 2>"$err" <<<"$input" || status=$?
    else
        timeout --kill-after=10 "$secs" "${cmd[@]}" >"$out" 2>"$err" <"$stdin" || status=$?
    fi
    output=
    [ -z "$stdout_file" ] && output=$(<"$out")
    stderr=$(<"$err")
    lines=()
    [ -n "$output" ] && mapfile -t lines <<<"$output"
    [ -n "$output" ] && printf '%s\n' "$output"
    [ -n "$stderr" ] && printf '%s\n' "$stderr" | sed 's/^/[stderr] /'
    echo "[exit $status]"

    check_sanitizer "$err"
    if [ "$status" = 124 ] || [ "$status" = 137 ] && [ "$expected" != "$status" ]; then
        die "timed out or killed after ${secs}s (exit $status): $*"
    fi
    if [ "$expected" != '?' ] && [ "$status" != "$expected" ]; then
        die "exit status $status, expected $expected: $*"
    fi
    if [ "$status" = 0 ] && [ -z "$any_warnings" ]; then
        check_warnings "$*" "${warns[@]}" <<<"$stderr"$'\n'"$output"
    fi
}

# The end-of-session check's warnings (cmd/shared/workspace_check.c), for --warns.
WARN_DISABLED='for host tools to run was DISABLED:'
WARN_EXECUTABLES='files that can run on this machine changed in'
WARN_UNCHECKED='ended without its end-of-session check (its CLI was killed); checked now:'

# check_warnings COMMAND [TEXT...] <LINES: the "succeeded, but issued
# unexpected warnings" check of run_x (see there).
check_warnings() {
    local what=$1 line text found unexpected=''
    shift
    local -a seen=()
    while IFS= read -r line; do
        [[ $line == 'agent-sandbox: warning: '* ]] || continue
        found=
        for text in "$@"; do
            if [[ $line == *"$text"* ]]; then found=1; seen+=("$text"); fi
        done
        [ -n "$found" ] || unexpected+=$line$'\n'
    done
    if [ -n "$unexpected" ]; then
        die "command succeeded, but issued unexpected warnings: $what"$'\n'"${unexpected%$'\n'}"
        return 1
    fi
    for text in "$@"; do
        for line in "${seen[@]}"; do [ "$line" = "$text" ] && continue 2; done
        die "command succeeded, but did not issue the expected warning \"$text\": $what"
        return 1
    done
}

# bg_start [--as NAME] COMMAND [ARGS...]: start COMMAND (`agent-sandbox`
# replaced as in run_x) in the background as the leader of a new process
# group, with SIGINT and SIGQUIT at their defaults (a shell starts background
# jobs with them ignored; a terminal's CLI has them at default). Sets
# $AS_BG_PID; its output goes to $AS_RUN_DIR/bg.{stdout,stderr}; bg_wait
# collects its exit status. With --as NAME (several at once), the files are
# $AS_RUN_DIR/NAME.*, its PID is $AS_BG_PIDS[NAME], and `bg_wait --as NAME`
# collects it; the teardown ends whatever still runs.
declare -gA AS_BG_PIDS=()
bg_start() {
    local name=bg
    if [ "$1" = --as ]; then name=$2; shift 2; fi
    local cmd=("$@") i
    for i in "${!cmd[@]}"; do
        # shellcheck disable=SC2004  # cmd[$i] is cmd[i]
        if [ "${cmd[$i]}" = agent-sandbox ]; then cmd[$i]=$AGENT_SANDBOX_BIN; break; fi
    done
    rm -f "$AS_RUN_DIR/$name.pid" "$AS_RUN_DIR/$name.rc"
    echo "\$ $* &"
    # The subshell's own stderr (bash's "Killed" notices) is not the CLI's.
    (
        rc=0
        setsid --wait bash -c 'echo $$ >"$0"; exec env --default-signal=INT,QUIT "$@"' \
            "$AS_RUN_DIR/$name.pid" "${cmd[@]}" \
            </dev/null >"$AS_RUN_DIR/$name.stdout" 2>"$AS_RUN_DIR/$name.stderr" || rc=$?
        echo "$rc" >"$AS_RUN_DIR/$name.rc"
    ) </dev/null >/dev/null 2>&1 3>&- &
    local n
    for ((n = 0; n < 100; n++)); do
        [ -s "$AS_RUN_DIR/$name.pid" ] && break
        sleep 0.05
    done
    local pid
    pid=$(<"$AS_RUN_DIR/$name.pid") || die "background command did not start"
    if [ "$name" = bg ]; then AS_BG_PID=$pid; else AS_BG_PIDS[$name]=$pid; fi
}

# bg_wait [--as NAME] [SECS]: wait (default 60 s) for the background command
# to end; sets $status, $output and $stderr like run_x.
bg_wait() {
    local name=bg
    if [ "$1" = --as ]; then name=$2; shift 2; fi
    local secs=${1:-60} n
    for ((n = 0; n < secs * 10; n++)); do
        [ -s "$AS_RUN_DIR/$name.rc" ] && break
        sleep 0.1
    done
    [ -s "$AS_RUN_DIR/$name.rc" ] || die "background command $name still running after ${secs}s"
    status=$(<"$AS_RUN_DIR/$name.rc")
    output=$(<"$AS_RUN_DIR/$name.stdout")
    stderr=$(<"$AS_RUN_DIR/$name.stderr")
    if [ "$name" = bg ]; then AS_BG_PID=; else unset "AS_BG_PIDS[$name]"; fi
    [ -n "$output" ] && printf '%s\n' "$output"
    [ -n "$stderr" ] && printf '%s\n' "$stderr" | sed 's/^/[stderr] /'
    echo "[exit $status]"
    check_sanitizer "$AS_RUN_DIR/$name.stderr"
}

# wait_for_file PATH [SECS]: wait until PATH exists (default 60 s).
wait_for_file() {
    local path=$1 secs=${2:-60} n
    for ((n = 0; n < secs * 10; n++)); do
        [ -e "$path" ] && return 0
        if [ -n "${AS_BG_PID:-}" ] && [ -s "$AS_RUN_DIR/bg.rc" ]; then
            die "background command exited ($(<"$AS_RUN_DIR/bg.rc")) before $path appeared:"$'\n'"$(cat "$AS_RUN_DIR/bg.stderr")"
        fi
        sleep 0.1
    done
    die "$path did not appear within ${secs}s"
}

###############################################################################
# Leak check
#
# The suite touches only what it made: the user's own sessions, running in
# other trees while the suite runs, are left alone. A session is the suite's
# when it was launched under $AS_E2E_ROOT (AGENT_SANDBOX_TEST_ROOT, which
# also keeps the suite's `ps` and `stop --all` to its own sessions). Every
# session directory, podman service (its socket is in a session directory)
# and labelled resource carries its session's ID; an ID is someone else's
# when its directory records a launch directory elsewhere (session.json), or
# has no record yet while its lock is held (a CLI starting, or cleanup's and
# doctor's own), or when it was there before the suite began
# ($AS_BASELINE_IDS). Everything else is the suite's: a leak.

# _session_ids_elsewhere: the IDs of the session directories that are not
# the suite's, one a line.
_session_ids_elsewhere() {
    local d id rc
    for d in "$AS_SESSIONS_DIR"/*/; do
        d=${d%/} id=${d##*/}
        [[ $id =~ ^[0-9a-f]{12}$ ]] || continue
        if [ -f "$d/session.json" ]; then
            grep -qF "\"launch_dir\":\"$AS_TEST_ROOT/" "$d/session.json" 2>/dev/null || echo "$id"
        else
            # 0: nobody holds the lock (a dead CLI's); anything else (held,
            # or the directory going away) leaves it alone.
            rc=0
            flock -n -E 75 "$d/lock" true 2>/dev/null || rc=$?
            [ $rc = 0 ] || echo "$id"
        fi
    done
}

# suite_session_dirs: the directories of the suite's sessions that have a
# record (session.json) of their launch directory, one a line.
suite_session_dirs() {
    local d
    for d in "$AS_SESSIONS_DIR"/*/; do
        d=${d%/}
        [[ ${d##*/} =~ ^[0-9a-f]{12}$ ]] || continue
        grep -qF "\"launch_dir\":\"$AS_TEST_ROOT/" "$d/session.json" 2>/dev/null && echo "$d"
    done
    return 0
}

# _all_session_ids: every ID a session directory, a service's socket or a
# labelled resource carries now, one a line.
_all_session_ids() {
    local d
    for d in "$AS_SESSIONS_DIR"/*/; do d=${d%/}; echo "${d##*/}"; done
    _service_list | cut -d' ' -f2
    _labelled_all | cut -d' ' -f2
}

# _labelled_all: "KIND ID WHAT" of every labelled container, pod, network
# and volume (KIND: containers, pods, networks, volumes; ID and WHAT as
# _labelled gives them). The four listings run at once: each is a podman
# start-up of a fraction of a second, and the leak check after every test
# waited for them one by one (about a second a test, ~270 tests).
_labelled_all() {
    local tmp kind jobs=()
    # the suite's own service answers in milliseconds (setup_suite.bash)
    if [ -n "${AS_SUITE_PODMAN_SOCK:-}" ]; then
        "$AS_TOP/tests/e2e/podman-labelled" "$AS_SUITE_PODMAN_SOCK" "$AS_LABEL"
        return
    fi
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/as-e2e-leaks-XXXXXX") || return 1
    _labelled ps -a >"$tmp/containers" & jobs+=($!)
    _labelled pod ps >"$tmp/pods" & jobs+=($!)
    _labelled network ls >"$tmp/networks" & jobs+=($!)
    _labelled volume ls >"$tmp/volumes" & jobs+=($!)
    wait "${jobs[@]}"
    for kind in containers pods networks volumes; do
        sed "s/^/$kind /" "$tmp/$kind"
    done
    rm -rf "$tmp"
}

# _labelled COMMAND...: "ID WHAT" of each resource `podman COMMAND` lists
# with the session label (ID "?" for a line without one: podman's error).
_labelled() {
    local fmt='{{.ID}} {{.Names}} {{.Status}}' line
    case $1 in
        pod) fmt='{{.ID}} {{.Name}} {{.Status}}' ;;
        network | volume) fmt='{{.Name}}' ;;
    esac
    # shellcheck disable=SC2086  # $PODMAN splits, as make's $(PODMAN) does
    $PODMAN "$@" --filter "label=$AS_LABEL" --format "$fmt"$'\t''{{.Labels}}' 2>&1 |
        while IFS= read -r line; do
            if [[ $line =~ agent-sandbox\.session[=:]([0-9a-f]+) ]]; then
                echo "${BASH_REMATCH[1]} ${line%%$'\t'*}"
            else
                echo "? podman $*: $line"
            fi
        done
}

# _service_list: "PID ID" of this user's `podman system service` processes
# (ID: the session whose directory holds its socket, else "-").
_service_list() {
    local pid cmd id
    for pid in $(pgrep -u "$(id -u)" -f '(^|/)podman( .*)? system service' || true); do
        cmd=$(tr '\0' ' ' </proc/"$pid"/cmdline 2>/dev/null) || continue
        id=-
        [[ $cmd =~ unix://$AS_SESSIONS_DIR/([0-9a-f]{12})/podman\.sock ]] && id=${BASH_REMATCH[1]}
        echo "$pid $id"
    done
}

# service_pids: PIDs of the suite's `podman system service` processes.
service_pids() {
    local others pid id
    others=" ${AS_BASELINE_IDS:-} $(_session_ids_elsewhere | xargs) "
    while read -r pid id; do
        [ "$id" != - ] && [[ $others != *" $id "* ]] && echo "$pid"
    done < <(_service_list)
}

# wait_teardowns: until the removals that the suite's ended sessions left
# to a child after their prompt (session.ended, cmd/run/teardown.c) are done:
# their directory's lock free (opened without creating it: a lock file made
# anew would keep the directory from going).
wait_teardowns() {
    local d fd
    for d in "$AS_SESSIONS_DIR"/*/; do
        d=${d%/}
        grep -qF "\"launch_dir\":\"$AS_TEST_ROOT/" "$d/session.ended" 2>/dev/null || continue
        exec {fd}<"$d/lock" 2>/dev/null || continue
        flock -w 60 "$fd" || echo "# the removals of ${d##*/} still run after 60 s" >&2
        exec {fd}<&-
    done
}

# leak_check [WHEN]: report and remove whatever a session of the suite
# left (once the removals after their prompts are done); returns 1 if
# there was anything.
# shellcheck disable=SC2120  # WHEN is optional; the tests pass it
leak_check() {
    local when=${1:-after the test} found=() x line pids=() others id kind
    wait_teardowns
    others=" ${AS_BASELINE_IDS:-} $(_session_ids_elsewhere | xargs) "
    mapfile -t pids < <(service_pids)
    local -A rm_ids=()
    local -a dirs=()
    local -a all=()
    mapfile -t all < <(_labelled_all)
    for kind in containers pods networks volumes; do
        local -a mine=()
        for line in "${all[@]}"; do
            [[ $line == "$kind "* ]] || continue
            line=${line#"$kind "}
            id=${line%% *}
            [ "$id" = '?' ] && { mine+=("${line#? }"); continue; }   # podman failed: say so
            [[ $others == *" $id "* ]] && continue
            mine+=("${line#* }")
            rm_ids[$id]=1
        done
        [ ${#mine[@]} -gt 0 ] && found+=("$kind:" "$(printf '%s\n' "${mine[@]}")")
    done
    for x in "$AS_SESSIONS_DIR"/*/; do
        x=${x%/} id=${x##*/}
        [ -d "$x" ] || continue
        [[ $id =~ ^[0-9a-f]{12}$ ]] || continue    # the CLI's own temporary names
        [[ $others == *" $id "* ]] || dirs+=("$x")
    done
    for x in "${pids[@]}"; do
        found+=("podman service: $x $(tr '\0' ' ' </proc/"$x"/cmdline 2>/dev/null)")
    done
    [ ${#dirs[@]} -gt 0 ] && found+=("session directories:" "$(printf '%s\n' "${dirs[@]}")")
    [ ${#found[@]} -eq 0 ] && return 0

    # Clean up: services first, so nothing recreates what is removed next.
    if [ ${#pids[@]} -gt 0 ]; then
        kill -TERM "${pids[@]}" 2>/dev/null || true
        local n
        for ((n = 0; n < 50; n++)); do
            kill -0 "${pids[@]}" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "${pids[@]}" 2>/dev/null || true
    fi
    for id in "${!rm_ids[@]}"; do
        # shellcheck disable=SC2086  # $PODMAN splits, as make's $(PODMAN) does
        {
            $PODMAN pod ps -q --filter "label=$AS_LABEL=$id" | xargs -r $PODMAN pod rm -f -t 0
            $PODMAN ps -aq --filter "label=$AS_LABEL=$id" | xargs -r $PODMAN rm -f -v -t 0
            $PODMAN network ls -q --filter "label=$AS_LABEL=$id" | xargs -r $PODMAN network rm -f
            $PODMAN volume ls -q --filter "label=$AS_LABEL=$id" | xargs -r $PODMAN volume rm -f
        } >/dev/null 2>&1 || true
    done
    for x in "${dirs[@]}"; do
        rm -rf "$x" 2>/dev/null || $PODMAN unshare rm -rf "$x" 2>/dev/null || true
    done

    {
        echo "#/vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
        echo "#| FAIL: leaked $when (now removed):"
        for x in "${found[@]}"; do
            while IFS= read -r line; do echo "#|   $line"; done <<<"$x"
        done
        echo '#\^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^'
    } >&2
    return 1
}

###############################################################################
# setup / teardown

# Every test file gets these unless it defines its own (then it should call
# as_setup / as_teardown from them).
as_setup() {
    [ -n "${XDG_RUNTIME_DIR:-}" ] || die "XDG_RUNTIME_DIR is not set"
    # Fail closed: without setup_suite's directories a test would use the
    # user's own config and state.
    # shellcheck disable=SC2015  # die unless all four hold
    [ -n "${AS_SUITE_XDG:-}" ] && [ "${XDG_CONFIG_HOME:-}" = "$AS_SUITE_XDG/config" ] &&
        [ "${XDG_STATE_HOME:-}" = "$AS_SUITE_XDG/state" ] &&
        [ "${GIT_CONFIG_GLOBAL:-}" = "$AS_SUITE_XDG/config/git/config" ] ||
        die "XDG_CONFIG_HOME, XDG_STATE_HOME and GIT_CONFIG_GLOBAL are not the suite's own (setup_suite.bash did not run)"
    [ -x "$AGENT_SANDBOX_BIN" ] || die "no CLI at $AGENT_SANDBOX_BIN: build it first (make)"
    mkdir -p "$AS_E2E_ROOT"
    # The launch directory, resolved: the CLI works with the physical path.
    AS_DIR=$(cd "$(mktemp -d "$AS_E2E_ROOT/XXXXXXXX")" && pwd -P)
    # Files of the harness itself, outside the launch directory.
    AS_RUN_DIR=$(mktemp -d "$AS_E2E_ROOT/.run-XXXXXXXX")
    # The suite's settings file (notifications off, E2E_AGENT's agent):
    # a test may rewrite it; as_teardown puts it back.
    cp "$AS_CONFIG_DIR/settings" "$AS_RUN_DIR/settings.suite" || die "the suite's settings file is gone"
    AS_BG_PID=
    AS_BG_PIDS=()
    # shellcheck disable=SC2164  # bats' set -e fails the test
    cd "$AS_DIR"
}

as_teardown() {
    local rc=0
    cd "$AS_E2E_ROOT" 2>/dev/null || cd /
    # A background CLI a failed test left running: it is ours, end it.
    local name pid n
    for name in bg "${!AS_BG_PIDS[@]}"; do
        pid=${AS_BG_PIDS[$name]:-}
        [ "$name" = bg ] && pid=${AS_BG_PID:-}
        if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
            kill -KILL "$pid" 2>/dev/null || true
            for ((n = 0; n < 50; n++)); do [ -s "$AS_RUN_DIR/$name.rc" ] && break; sleep 0.1; done
        fi
    done
    AS_BG_PIDS=()
    # shellcheck disable=SC2119  # no WHEN: after the test
    leak_check || rc=1
    if [ -n "${AS_RUN_DIR:-}" ] && [ -f "$AS_RUN_DIR/settings.suite" ]; then
        cp "$AS_RUN_DIR/settings.suite" "$AS_CONFIG_DIR/settings" || rc=1
    fi
    # The sandbox may have left files owned by subordinate ids.
    if [ -n "${AS_DIR:-}" ]; then
        rm -rf "$AS_DIR" 2>/dev/null || $PODMAN unshare rm -rf "$AS_DIR"
    fi
    [ -n "${AS_RUN_DIR:-}" ] && rm -rf "$AS_RUN_DIR"
    return $rc
}

# home_volume_setup: this test's sessions share a home volume of their own,
# $AS_HOME_VOLUME; home volumes outlive sessions by design, so the test's
# teardown removes it with home_volume_teardown.
home_volume_setup() {
    # shellcheck disable=SC2018,SC2019  # ASCII on purpose: a podman name
    AS_HOME_VOLUME=as-e2e-home-$(basename "$AS_DIR" | tr 'A-Z' 'a-z')
    export AGENT_SANDBOX_HOME_VOLUME=$AS_HOME_VOLUME
}
home_volume_teardown() {
    $PODMAN volume rm -f "$AS_HOME_VOLUME" >/dev/null 2>&1 || true
}

# allow_nothing: an empty allowlist; nothing but the pod is reachable.
allow_nothing() {
    : >"$AS_RUN_DIR/allowed-hosts"
    export AGENT_SANDBOX_ALLOWLIST=$AS_RUN_DIR/allowed-hosts
}

# host_enforces_limits: rootless podman can enforce memory and CPU limits
# here (cgroup v2, both controllers delegated to the user), as
# lib/config/resource_limits.c finds out; elsewhere a limit you set is refused.
host_enforces_limits() {
    # shellcheck disable=SC2155  # id -u does not fail
    local f=/sys/fs/cgroup/user.slice/user-$(id -u).slice/user@$(id -u).service/cgroup.controllers
    [ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ] && grep -qw memory "$f" 2>/dev/null && grep -qw cpu "$f"
}

setup() { as_setup; }
teardown() { as_teardown; }
