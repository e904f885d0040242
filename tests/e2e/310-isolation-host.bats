#!/usr/bin/env bats
# Isolation from the host session: no environment variable, agent, bus,
# display or podman socket of the host gets in; symlinks cannot reach host
# paths; the kernel's sensitive files are masked.

load helpers

setup() {
    as_setup
    AS_SSH_MARKER='' AS_SSH_DIR_MADE=''
}

teardown() {
    [ -n "$AS_SSH_MARKER" ] && rm -f "$AS_SSH_MARKER"
    [ -n "$AS_SSH_DIR_MADE" ] && rmdir "$HOME/.ssh" 2>/dev/null
    as_teardown
}

# make_socket PATH: a unix socket file at PATH (left bound, nobody listening).
make_socket() {
    python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$1" ||
        die "cannot make a socket at $1"
}

@test "threat 22: no host environment variable reaches the sandbox unless named" {
    local secrets=(
        AWS_SECRET_ACCESS_KEY=aws-$RANDOM$RANDOM
        GITHUB_TOKEN=ghp-$RANDOM$RANDOM
        ANTHROPIC_API_KEY=sk-ant-$RANDOM$RANDOM
        MY_PASSWORD=pw-$RANDOM$RANDOM
        SSH_AUTH_SOCK=/run/user/0/ssh-$RANDOM$RANDOM
        DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/0/bus-$RANDOM$RANDOM
        DISPLAY=:$RANDOM
        WAYLAND_DISPLAY=wayland-$RANDOM$RANDOM
        DOCKER_HOST=unix:///run/user/0/podman-$RANDOM$RANDOM.sock
        NAMED_ONE=named-$RANDOM$RANDOM
    )
    run_x 0 env "${secrets[@]}" agent-sandbox --env NAMED_ONE --exec sh -c \
        'for f in /proc/[0-9]*/environ; do tr "\0" "\n" <"$f"; done 2>/dev/null | sort -u'
    local s name value
    for s in "${secrets[@]}"; do
        name=${s%%=*} value=${s#*=}
        if [ "$name" = NAMED_ONE ]; then
            assert "$output" contains "NAMED_ONE=$value" "the variable named with --env"
        else
            assert "$output" !contains "$value" "the value of $name inside"
            assert "$output" !contains "$name=" "$name inside"
        fi
    done
    assert "$output" contains "PATH=" "the environment was read at all"
}

@test "threat 18: no agent, bus, display or podman socket of the host is inside" {
    local run=$AS_RUN_DIR/run
    mkdir -m 0700 "$run"
    make_socket "$run/ssh-agent.sock"
    make_socket "$run/gpg-agent"
    make_socket "$run/bus"
    make_socket "$run/wayland-0"
    make_socket "$run/podman.sock"
    if [ ! -e "$HOME/.ssh" ]; then
        mkdir -m 0700 "$HOME/.ssh"
        AS_SSH_DIR_MADE=1
    fi
    AS_SSH_MARKER=$HOME/.ssh/as-e2e-marker-$RANDOM$RANDOM
    echo not-a-key >"$AS_SSH_MARKER"

    run_x 0 env SSH_AUTH_SOCK="$run/ssh-agent.sock" GPG_AGENT_INFO="$run/gpg-agent:0:1" \
        DBUS_SESSION_BUS_ADDRESS="unix:path=$run/bus" WAYLAND_DISPLAY="$run/wayland-0" DISPLAY=:0 \
        DOCKER_HOST="unix://$run/podman.sock" \
        agent-sandbox --exec sh -c '
            for p in "$@" /run/user /tmp/.X11-unix /var/run/dbus/system_bus_socket /run/podman/podman.sock; do
                [ -e "$p" ] && echo "PRESENT $p"
            done
            find / \( -path /proc -o -path /sys -o -path /dev \) -prune -o -type s -print 2>/dev/null | sed "s/^/SOCKET /"
            env | grep -E "^(SSH_AUTH_SOCK|GPG_AGENT_INFO|DBUS_SESSION_BUS_ADDRESS|WAYLAND_DISPLAY|DISPLAY|XAUTHORITY|CONTAINER_HOST|DOCKER_HOST|XDG_RUNTIME_DIR)="
            echo checked' sh "$run" "$XDG_RUNTIME_DIR" "$AS_SESSIONS_DIR" "$HOME/.ssh" "$AS_SSH_MARKER" \
            "$XDG_RUNTIME_DIR/podman/podman.sock" "$HOME/.gnupg"
    assert "$output" == checked "sockets, agents and runtime paths seen inside"
}

@test "threat 15: writes through symlinks to host paths fail, and the host is unchanged" {
    local target=$AS_RUN_DIR/target
    echo original >"$target"
    ln -s "$target" escape-file
    ln -s "$AS_RUN_DIR" escape-dir
    ln -s / root
    ln -s "$HOME" home
    local home_before
    home_before=$(ls -A "$HOME")
    run_x 0 agent-sandbox --exec sh -c '
        (echo evil >escape-file) 2>/dev/null && echo "WROTE escape-file"
        (echo evil >escape-dir/new) 2>/dev/null && echo "WROTE escape-dir/new"
        cat escape-file 2>/dev/null
        ls escape-dir 2>/dev/null
        (echo evil >home/as-e2e-evil) 2>/dev/null
        (echo evil >root/etc/as-e2e-evil) 2>/dev/null
        echo done'
    assert "$output" !contains original "the host file, read through the symlink"
    assert "$(cat "$target")" == original "the host file after the session"
    [ ! -e "$AS_RUN_DIR/new" ] || die "a file appeared in the host directory behind the symlink"
    [ ! -e /etc/as-e2e-evil ] || die "a file appeared in the host's /etc"
    assert "$(ls -A "$HOME")" == "$home_before" "the host's \$HOME"
}

@test "threat 17: the kernel's sensitive files are masked and /proc/sys is read-only" {
    run_x 0 agent-sandbox --exec sh -c '
        if [ -e /proc/kcore ]; then
            echo "kcore $(head -c 16 /proc/kcore 2>/dev/null | wc -c)"
        else
            echo "kcore 0"
        fi
        echo "keys $(cat /proc/keys 2>/dev/null | wc -c)"
        echo "firmware $(ls -A /sys/firmware 2>/dev/null | wc -l)"
        grep -q " /proc/keys " /proc/self/mountinfo && echo "keys-masked"
        grep -q " /sys/firmware " /proc/self/mountinfo && echo "firmware-masked"
        grep " /proc/sys " /proc/self/mountinfo | cut -d" " -f6 | cut -d, -f1
        (echo 1 >/proc/sys/kernel/ns_last_pid) 2>/dev/null && echo "WROTE /proc/sys"
        echo done'
    assert "$output" == $'kcore 0\nkeys 0\nfirmware 0\nkeys-masked\nfirmware-masked\nro\ndone'
}
