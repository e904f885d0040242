# Collects the evidence for `agent-sandbox verify` from inside the sandbox.
# It only reports; the CLI judges (lib/verify/verify.c). One record per line:
#   KIND<TAB>FIELD<TAB>FIELD...
# Runs under bash, with an empty home of its own and a fixed PATH; curl -q
# reads no config file. Arguments: FIRST_ALLOWED_NAME (or -), HOST_HOME, NONCE,
# AGENT_COMMAND (or -), HELD_VARIABLES (the --secret names, space-separated, or -).
# shellcheck shell=bash
first=$1 host_home=$2 nonce=$3 agent=${4:--} held=${5:--}
t=$(printf '\t')

# the mount table: root, mount point, options, fs type, source
awk '{ for (i = 7; $i != "-"; i++); print "MOUNT\t" $4 "\t" $5 "\t" $6 "\t" $(i+1) "\t" $(i+2) }' /proc/self/mountinfo

grep -E '^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs):' /proc/self/status | sed "s/:[[:space:]]*/$t/; s/^/STATUS$t/"

find / -xdev -perm /6000 -type f 2>/dev/null | sed "s/^/SETUID$t/"

# every process's environment, names and values (the CLI looks for its
# own environment's names and for a secret it holds)
for e in /proc/[0-9]*/environ; do
    tr '\0' '\n' <"$e" 2>/dev/null | sed "s/^/ENV$t/"
done

find / \( -path /proc -o -path /sys \) -prune -o -type s -print 2>/dev/null | sed "s/^/SOCKET$t/"
for p in /run/user /tmp/.X11-unix /run/dbus/system_bus_socket /var/run/docker.sock /run/podman \
         "$host_home/.ssh" "$host_home/.gnupg" "$host_home/.config" "$host_home/.local/share/containers"; do
    [ -e "$p" ] && printf 'PRESENT\t%s\n' "$p"
done

net() {   # NET id exit-status detail
    local id=$1; shift
    local out rc
    out=$("$@" 2>&1); rc=$?
    printf 'NET\t%s\t%s\t%s\n' "$id" "$rc" "$(printf '%s' "$out" | tr '\t\n' '  ' | cut -c1-200)"
}
tcp() { timeout 4 bash -c "exec 3<>/dev/tcp/$1/$2" ; }

net dns-denied getent ahosts "verify-$nonce.example.com"
net ip-egress tcp 192.0.2.1 443
# the gateway: the first address of the pod's subnet (no default route exists)
gw=
while read -r iface dest _ _ _ _ _ _; do
    case $iface in Iface|lo) continue ;; esac
    [ "$dest" = 00000000 ] && continue
    gw=$(( 0x${dest:6:2} )).$(( 0x${dest:4:2} )).$(( 0x${dest:2:2} )).$(( 0x${dest:0:2} + 1 ))
    break
done </proc/net/route
if [ -n "$gw" ]; then
    net gateway-80 tcp "$gw" 80
    net gateway-53 tcp "$gw" 53
else
    printf 'NET\tgateway-80\t1\tno route with a gateway\n'
fi
net default-route awk 'NR > 1 && $2 == "00000000" { found = 1 } END { exit !found }' /proc/net/route
net ipv6-route awk '$10 != "lo" { found = 1 } END { exit !found }' /proc/net/ipv6_route
net sni-spoof curl -q -sS -m 6 -o /dev/null --resolve "spoof-$nonce.invalid:443:127.0.0.2" "https://spoof-$nonce.invalid/"
# the 403 body's first line (it names the refused host) and the status
spoofed_http() { curl -q -sS -m 6 -H "Host: spoof-$nonce.invalid" -w '\nHTTP %{http_code}' http://127.0.0.2/ | sed -n '1p;$p'; }
net host-spoof spoofed_http
if [ "$first" != - ]; then
    net first-allowed curl -q -sS -m 5 -o /dev/null -w 'HTTP %{http_code}' "https://$first/"
fi

# the agent's program, looked up on the image's own PATH
if [ "$agent" != - ]; then
    printf 'AGENT\tcommand\t%s\n' "$(PATH=/usr/local/bin:/usr/bin:/bin command -v -- "$agent")"
fi

w() { ( : >>"$1" ) 2>&1; }
net write-hosts w /etc/hosts
net write-resolv w /etc/resolv.conf
net kcore-size stat -c %s /proc/kcore
net keys-read head -c 64 /proc/keys
net firmware-list ls -A /sys/firmware
# Held secrets (docs/secrets.md): the probe has only the stand-ins, never
# the values. A stand-in has its value's shape (length, the kind of each
# character, the punctuation), so every string of that shape anywhere a
# process here can read is reported, and the CLI compares them with the
# values outside. The stand-in is planted in the home and /tmp first: the
# CLI requires it found there and in the processes' environments, or the
# search proved nothing.
shape() {   # a stand-in's shape as an extended regular expression
    awk '{ out = ""; prev = ""; k = 0
        for (i = 1; i <= length($0) + 1; i++) {
            c = substr($0, i, 1)
            cl = c == "" ? "" : c ~ /[a-z]/ ? "[a-z]" : c ~ /[A-Z]/ ? "[A-Z]" : c ~ /[0-9]/ ? "[0-9]" : "[" c "]"
            if (cl == prev) { k++; continue }
            if (prev != "") out = out prev (k > 1 ? "{" k "}" : "")
            prev = cl; k = 1
        }
        print out }'
}
if [ "$held" != - ]; then
    patterns=()
    for var in $held; do
        standin=${!var-}
        printf 'HELD\t%s\t%s\n' "$var" "$standin"
        [ -n "$standin" ] || continue
        patterns+=(-e "$(printf '%s\n' "$standin" | LC_ALL=C shape)")
        for plant in "$HOME/.verify-held-$nonce-$var" "/tmp/verify-held-$nonce-$var"; do
            printf '%s\n' "$standin" >"$plant" && printf 'PLANTED\t%s\t%s\n' "$var" "$plant"
        done
    done
    if [ ${#patterns[@]} -gt 0 ]; then
        # every process's environment and command line; every file under /
        # but /proc, /sys and /dev (and /dev/shm); grep -r follows no link
        # and reads no device or FIFO
        {
            LC_ALL=C grep -aoE "${patterns[@]}" /proc/[0-9]*/environ /proc/[0-9]*/cmdline
            for d in /* /dev/shm; do
                case $d in /proc|/sys|/dev) continue ;; esac
                LC_ALL=C grep -raoE "${patterns[@]}" "$d"
            done
        } 2>/dev/null | sort -u | sed "s/^/FOUND$t/"
        rm -f "$HOME/.verify-held-$nonce-"* "/tmp/verify-held-$nonce-"*
    fi
    printf 'HELDDONE\n'
fi
printf 'DONE\n'
