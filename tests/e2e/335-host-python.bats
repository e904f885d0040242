#!/usr/bin/env bats
# Host python run from a virtual environment in the tree never runs what a
# session planted there (threat model 44): a .pth line that runs code, a
# sitecustomize, an appended activate script. A plain `pip install` of a
# wheel inside keeps working on the host. The environment is made on the
# host with the host's python3 -m venv; real host python, pip and activate
# run afterwards (docs/workspace-protection.md, "Python environments").

load helpers

setup() {
    as_setup
    command -v python3 >/dev/null || skip "no python3 on the host"
    # pip in the environment when ensurepip is there (python3-venv), else none
    VENV_PIP=1
    python3 -m venv .venv 2>/dev/null || { rm -rf .venv; VENV_PIP=; python3 -m venv --without-pip .venv; }
    SP=$(echo .venv/lib/python3*/site-packages)
    [ -d "$SP" ] || die "no site-packages in the new environment: $SP"
    # The payloads' traces: outside the tree, so only the host can write them.
    MARK=$AS_RUN_DIR/ran
    DISABLED="for host tools to run was DISABLED:"
}

# Host python, pip and activate as a user would run them; fails if any
# payload ran.
host_python_everything() {
    .venv/bin/python -c pass || die "host python in the environment fails"
    if [ -n "$VENV_PIP" ]; then
        .venv/bin/pip list --disable-pip-version-check >/dev/null || die "host pip in the environment fails"
    fi
    bash -c '. .venv/bin/activate && python -c pass' >/dev/null 2>&1 || true
    local m ran=
    for m in "$MARK".*; do
        [ ! -e "$m" ] || ran+=" $(basename "$m")"
    done
    [ -z "$ran" ] || die "host python ran what the session planted:$ran"
}

# Debian's python finds its own sitecustomize (/usr/lib/python3.11, before
# site-packages on sys.path), so there only the report shows the planted one
# disabled; where python has none (Fedora, python.org builds), it would run.
@test "threat 44: a virtual environment's .pth, sitecustomize and activate" {
    run_x --warns "$WARN_DISABLED" 0 agent-sandbox --exec sh -c '
        sp=$1 mark=$2
        printf "import os; open(\"%s.pth\", \"w\")\n" "$mark" >"$sp/evil.pth"
        printf "open(\"%s.site\", \"w\")\n" "$mark" >"$sp/sitecustomize.py"
        printf "touch %s.activate\n" "$mark" >>.venv/bin/activate
        echo planted' sh "$SP" "$MARK"
    assert "$output" == planted
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" contains "$DISABLED"
    assert "$stderr" contains "  $SP/evil.pth: a .pth file with a line python runs when it starts (import ...); moved to $SP/evil.pth.agent-sandbox-disabled"
    assert "$stderr" contains "  $SP/sitecustomize.py: a sitecustomize or usercustomize module of a virtual environment"
    assert "$stderr" contains "  .venv/bin/activate: an activate script of a virtual environment"
    host_python_everything
    # what python made of the environment at the start stays
    assert "$stderr" !contains ".venv/bin/python"
    assert "$stderr" !contains ".venv/pyvenv.cfg"
}

@test "threat 44: a plain pip install of a wheel inside keeps working on the host" {
    [ -n "$VENV_PIP" ] || skip "python3 -m venv makes no pip here (no ensurepip: python3-venv)"
    # A tiny wheel, written by hand: a package, its dist-info, a console script.
    python3 - <<'EOF'
import zipfile
files = {
    "x/__init__.py": "def main():\n    print('x ok')\n",
    "x-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: x\nVersion: 0.1\n",
    "x-0.1.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    "x-0.1.dist-info/entry_points.txt": "[console_scripts]\nx-cli = x:main\n",
}
files["x-0.1.dist-info/RECORD"] = "".join(f"{n},,\n" for n in files) + "x-0.1.dist-info/RECORD,,\n"
with zipfile.ZipFile("x-0.1-py3-none-any.whl", "w") as z:
    for name, text in files.items():
        z.writestr(name, text)
EOF
    run_x --warns "$WARN_EXECUTABLES" 0 agent-sandbox --exec sh -c '
        .venv/bin/python -m pip install --no-index --no-cache-dir --disable-pip-version-check \
            ./x-0.1-py3-none-any.whl >/dev/null && echo installed'
    assert "$output" == installed
    assert "$stderr" !contains "$DISABLED"
    run_x 0 .venv/bin/python -c 'import x; x.main()'
    assert "$output" == "x ok"
    run_x 0 .venv/bin/x-cli
    assert "$output" == "x ok"
    host_python_everything
}
