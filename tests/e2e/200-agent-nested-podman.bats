#!/usr/bin/env bats
# Nested podman (docs/nested-podman.md): `podman run` works inside the
# sandbox with no flags, stores its images in the home volume on native
# overlay, and its containers get the agent's network or none at all.
#
# The nested image is made here from this host's bash and a few coreutils
# (a docker-archive written by python3, nothing pulled, nothing added to the
# host's podman storage); it holds a file of another owner, as real images do.

load helpers

setup() {
    as_setup
    home_volume_setup
    allow_nothing
}

teardown() {
    local rc=0
    as_teardown || rc=1
    home_volume_teardown
    return $rc
}

# make_image TAR TAG: a docker-archive of bash, cat, readlink, id and sleep
# with their libraries, and /etc/tiny-owner owned by 1000:1000.
make_image() {
    python3 - "$1" "$2" <<'PY'
import hashlib, io, json, os, subprocess, sys, tarfile
out, tag = sys.argv[1], sys.argv[2]
bins = ["/bin/bash", "/bin/cat", "/bin/readlink", "/bin/id", "/bin/sleep"]
files = set()
for b in bins:
    files.add(os.path.realpath(b))
    ldd = subprocess.run(["ldd", b], capture_output=True, text=True, check=True).stdout
    files.update(tok for line in ldd.splitlines() for tok in line.split() if tok.startswith("/"))
layer = io.BytesIO()
with tarfile.open(fileobj=layer, mode="w", format=tarfile.GNU_FORMAT, dereference=True) as t:
    dirs = set()
    for f in list(files) + bins:
        d = os.path.dirname(f)
        while d not in ("/", ""):
            dirs.add(d)
            d = os.path.dirname(d)
    for d in sorted(dirs):
        ti = tarfile.TarInfo(d.lstrip("/"))
        ti.type, ti.mode = tarfile.DIRTYPE, 0o755
        t.addfile(ti)
    for f in sorted(files):
        ti = t.gettarinfo(f, f.lstrip("/"))
        ti.uid = ti.gid = 0
        ti.uname = ti.gname = "root"
        with open(f, "rb") as fh:
            t.addfile(ti, fh)
    data = b"tiny\n"
    ti = tarfile.TarInfo("etc/tiny-owner")
    ti.size, ti.uid, ti.gid, ti.mode = len(data), 1000, 1000, 0o644
    t.addfile(ti, io.BytesIO(data))
layer = layer.getvalue()
diff_id = hashlib.sha256(layer).hexdigest()
config = json.dumps({"architecture": "amd64", "os": "linux",
                     "config": {"Cmd": ["/bin/bash"], "Env": ["PATH=/usr/bin:/bin"]},
                     "rootfs": {"type": "layers", "diff_ids": ["sha256:" + diff_id]}}).encode()
config_name = hashlib.sha256(config).hexdigest() + ".json"
manifest = json.dumps([{"Config": config_name, "RepoTags": [tag],
                        "Layers": [diff_id + "/layer.tar"]}]).encode()
with tarfile.open(out, "w") as t:
    for name, data in ((diff_id + "/layer.tar", layer), (config_name, config), ("manifest.json", manifest)):
        ti = tarfile.TarInfo(name)
        ti.size = len(data)
        t.addfile(ti, io.BytesIO(data))
PY
}

@test "podman run of an image loaded from a tarball in \$PWD works inside, on overlay in the home volume" {
    make_image "$AS_DIR/tiny.tar" localhost/as-e2e-tiny:1
    run_x 0 agent-sandbox --exec bash -c "
        podman load -q -i tiny.tar
        podman info --format '{{.Store.GraphDriverName}} {{.Store.GraphRoot}}'
        podman run --rm localhost/as-e2e-tiny:1 bash -c 'echo inner; cat /etc/tiny-owner; id -u'
    "
    assert "${lines[0]}" == "Loaded image: localhost/as-e2e-tiny:1"
    assert "${lines[1]}" == "overlay /home/agent/.local/share/containers/storage" \
        "nested storage: native overlay, in the home volume (not vfs)"
    assert "${lines[2]}" == inner "the nested container ran"
    assert "${lines[3]}" == tiny "a file of another owner in the image"
    assert "${lines[4]}" == 0 "root in the nested container (the agent's uid outside)"

    # The image is in the home volume: the next session still has it.
    run_x 0 agent-sandbox --exec podman images --format '{{.Repository}}:{{.Tag}}'
    assert "$output" contains localhost/as-e2e-tiny:1 "the image, in the next session"
    # ... and nowhere in the host user's own podman storage.
    run $PODMAN image exists localhost/as-e2e-tiny:1
    assert "$status" == 1 "the nested image in the host's storage"
}

@test "threat 13: a nested container shares the agent's network namespace" {
    make_image "$AS_DIR/tiny.tar" localhost/as-e2e-tiny:1
    # A listener on the agent's loopback: reachable only from its namespace.
    run_x 0 agent-sandbox --exec bash -c "
        podman load -q -i tiny.tar >/dev/null
        python3 -c '
import socket, sys
s = socket.socket(); s.bind((\"127.0.0.1\", 0)); s.listen(1)
print(s.getsockname()[1], flush=True); sys.stdout.close()
c, _ = s.accept(); c.sendall(b\"hello from the agent\\n\"); c.close()
' >port &
        while [ ! -s port ]; do sleep 0.05; done
        readlink /proc/self/ns/net
        podman run --rm localhost/as-e2e-tiny:1 bash -c '
            readlink /proc/self/ns/net
            exec 3<>/dev/tcp/127.0.0.1/\$1 && cat <&3' sh \$(cat port)
        cat /etc/resolv.conf | grep nameserver
        podman run --rm localhost/as-e2e-tiny:1 cat /etc/resolv.conf | grep nameserver
        wait
    "
    assert "${lines[0]}" =~ '^net:\[[0-9]+\]$' "the agent's network namespace"
    assert "${lines[1]}" == "${lines[0]}" "the nested container's network namespace"
    assert "${lines[2]}" == "hello from the agent" "the agent's loopback, from the nested container"
    assert "${lines[3]}" == "${lines[4]}" "the nested container's resolver is the agent's (its router)"
}

@test "threat 13: a nested container on a network of its own has no egress" {
    make_image "$AS_DIR/tiny.tar" localhost/as-e2e-tiny:1
    # A listener on the agent's pod address (not loopback), which a nested
    # container with any route out of its own namespace could reach. The
    # control: a nested container on the default network reaches it.
    run_x 0 agent-sandbox --exec bash -c "
        podman load -q -i tiny.tar >/dev/null
        ip=\$(awk '/32 host/ { print f } { f = \$2 }' /proc/net/fib_trie | grep -v '^127\.' | sort -u | head -n 1)
        python3 -c '
import socket
s = socket.socket(); s.bind((\"0.0.0.0\", 0)); s.listen(8)
print(s.getsockname()[1], flush=True)
while True:
    c, a = s.accept(); print(\"connection\", flush=True); c.close()
' >listener.log &
        while [ ! -s listener.log ]; do sleep 0.05; done
        port=\$(head -n 1 listener.log)
        echo \"address \$ip\"
        for net in bridge slirp4netns none default; do
            opt=--network=\$net; [ \$net = default ] && opt=
            out=\$(podman run --rm \$opt localhost/as-e2e-tiny:1 bash -c 'exec 3<>/dev/tcp/\$0/\$1 && echo reached' \$ip \$port)
            echo \"\$net: exit \$? \$out\"
            sleep 0.2
            echo \"connections: \$(grep -c connection listener.log)\"
        done
        kill %1
    "
    assert "${lines[0]}" =~ '^address [0-9.]+$' "the agent's pod address"
    assert "${lines[1]}" =~ '^bridge: exit [1-9][0-9]* $' "--network bridge"
    assert "${lines[2]}" == "connections: 0" "connections after --network bridge"
    assert "${lines[3]}" =~ '^slirp4netns: exit [1-9][0-9]* $' "--network slirp4netns"
    assert "${lines[4]}" == "connections: 0" "connections after --network slirp4netns"
    assert "${lines[5]}" =~ '^none: exit [1-9][0-9]* $' "--network none"
    assert "${lines[6]}" == "connections: 0" "connections after --network none"
    assert "${lines[7]}" == "default: exit 0 reached" "the control: the agent's network"
    assert "${lines[8]}" == "connections: 1" "connections after the control"
    # shellcheck disable=SC2154  # stderr: set by run_x (helpers.bash)
    assert "$stderr" contains "nested containers have no network of their own" "the refusal says why"
}

@test "--network none: a nested container with only loopback" {
    # Podman 5 on a cgroup v1 host (which it deprecates) mounts the agent's
    # cgroup hierarchies twice, the whole tree under the agent's own subtree;
    # the nested runc reads the first from mountinfo and looks for its cgroup
    # where the second hides it (docs/podman-versions.md).
    if [ "$($PODMAN info --format '{{.Host.CgroupsVersion}}')" = v1 ] &&
        [[ $($PODMAN version --format '{{.Server.Version}}') == 5.* ]]; then
        skip "podman 5 on cgroup v1: the nested runc cannot find its cgroup for a new network namespace"
    fi
    make_image "$AS_DIR/tiny.tar" localhost/as-e2e-tiny:1
    run_x 0 agent-sandbox --exec bash -c "
        podman load -q -i tiny.tar >/dev/null
        readlink /proc/self/ns/net
        podman run --rm --network none localhost/as-e2e-tiny:1 bash -c 'readlink /proc/self/ns/net; cat /proc/net/dev'
    "
    assert "${lines[1]}" =~ '^net:\[[0-9]+\]$'
    assert "${lines[1]}" != "${lines[0]}" "a namespace of its own"
    local ifaces
    ifaces=$(printf '%s\n' "${lines[@]:2}" | awk -F: 'NR > 2 { gsub(/ /, "", $1); print $1 }' | xargs)
    assert "$ifaces" == lo "interfaces of the nested container"
}
