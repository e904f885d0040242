# Run once by bats before and after the whole e2e suite.
source "$(dirname "${BASH_SOURCE[0]}")/helpers.bash"

setup_suite() {
    [ -n "${XDG_RUNTIME_DIR:-}" ] || { echo "XDG_RUNTIME_DIR is not set" >&2; return 1; }
    mkdir -p "$AS_E2E_ROOT"
    # Podman services that were already running (not started by a test) are
    # not leaks.
    AS_BASELINE_SERVICES=$(pgrep -u "$(id -u)" -f '(^|/)podman( .*)? system service' | xargs)
    export AS_BASELINE_SERVICES
    # Leftovers of an earlier, aborted run would fail the first test.
    if ! leak_check "before the suite (by an earlier run)" 2>"$AS_E2E_ROOT/.pre-leaks"; then
        sed 's/^/# /' "$AS_E2E_ROOT/.pre-leaks" >&3
    fi
    rm -f "$AS_E2E_ROOT/.pre-leaks"
    echo "# e2e: $AGENT_SANDBOX_BIN ($("$AGENT_SANDBOX_BIN" --version 2>&1 | head -1)), $($PODMAN --version)" >&3
}

teardown_suite() {
    rmdir "$AS_E2E_ROOT" 2>/dev/null || true
}
