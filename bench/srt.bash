# srt (@anthropic-ai/sandbox-runtime), the process-level peer of the startup
# benchmark: installed from the npm registry into $BENCH_ROOT/srt, never a
# dependency of the project. It needs node and npm, and bubblewrap, socat
# and ripgrep (Debian: nodejs npm bubblewrap socat ripgrep).
SRT_VERSION=${BENCH_SRT_VERSION:-0.0.78}
SRT_DIR=$BENCH_ROOT/srt
SRT_BIN=$SRT_DIR/node_modules/.bin/srt
SRT_SETTINGS=$SRT_DIR/settings.json

# srt_skip WHY: say why srt is left out, here and in the results.
srt_skip() {
    log "srt: left out: $*"
    note "srt -c true left out: $*"
    return 1
}

# srt_ready: srt installed (at $SRT_VERSION) and working, or a note why not.
srt_ready() {
    local missing=() t ca
    for t in node npm bwrap socat rg; do command -v "$t" >/dev/null || missing+=("$t"); done
    [ ${#missing[@]} -eq 0 ] || { srt_skip "${missing[*]} not installed"; return 1; }
    if [ "$("$SRT_BIN" --version 2>/dev/null)" != "$SRT_VERSION" ]; then
        mkdir -p "$SRT_DIR"
        # node reads npm's cafile only for npm's own requests on some
        # versions; give it to node as well
        ca=$(npm config get cafile 2>/dev/null) || ca=
        [ -z "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$ca" ] && export NODE_EXTRA_CA_CERTS=$ca
        npm install --prefix "$SRT_DIR" --no-audit --no-fund --loglevel=error \
            "@anthropic-ai/sandbox-runtime@$SRT_VERSION" >"$SRT_DIR/install.log" 2>&1 ||
            { srt_skip "npm install failed: $(tail -n 3 "$SRT_DIR/install.log" | xargs)"; return 1; }
    fi
    # its defaults, written out: no network, writes only to the working
    # directory; ~/.srt-settings.json stays out of it
    printf '%s\n' '{"filesystem": {"denyRead": [], "allowWrite": ["."], "denyWrite": []},' \
        ' "network": {"allowedDomains": [], "deniedDomains": []}}' >"$SRT_SETTINGS"
    (cd "$SRT_DIR" && "$SRT_BIN" -s "$SRT_SETTINGS" -c true) >"$SRT_DIR/check.log" 2>&1 ||
        { srt_skip "it does not run here: $(tail -n 3 "$SRT_DIR/check.log" | xargs)"; return 1; }
    note "srt $SRT_VERSION (@anthropic-ai/sandbox-runtime, npm), $(bwrap --version), node $(node --version)"
}
