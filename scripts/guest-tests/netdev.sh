#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# netdev.sh: IP over the Wren adapter's network interface between two
# guests of scripts/vm --fabric, with nothing else between them: the
# interface's MTU, ethtool and link, the address of the wire
# (198.18.0.I+1/24) at an MTU of 4096, ping both ways, and 8 MiB over TCP whose SHA-256
# both ends compare.  Over a lossy fabric ping may lose some replies;
# TCP must still deliver every byte.
#
# Guest 0 serves the TCP transfer after its pings, guest 1 connects after
# its own; each side's pings retry until the other is up, and guest 0
# stays up until guest 1 has finished with it.
set -u
. "$WREN_TOP/scripts/guest-tests/lib.sh"

i=${WREN_GUEST_INDEX:-0}
me=198.18.0.$((i + 1))
peer=198.18.0.$((2 - i))
bytes=$((8 << 20))

# This script brings the interface up itself.
WREN_NO_IP=1
check "modules load" load_wren
dev=$(wren_netdev)
check "the adapter has a network interface ($dev)" test -n "$dev"
[ -n "$dev" ] || finish

out=$(ip -d link show "$dev")
expect_match "MTU 1500 by default" " mtu 1500 " "$out"
expect_match "MTU at most the adapter's, 4096" " maxmtu 4096( |$)" "$out"
check "MTU 4096 taken" ip link set "$dev" mtu 4096
check "MTU 4097 refused" sh -c "! ip link set $dev mtu 4097 2>/dev/null"
out=$(ethtool -i "$dev")
expect_match "ethtool: driver wren" "^driver: wren$" "$out"
expect_match "ethtool: firmware version" "^firmware-version: [0-9]+\.[0-9]+\.[0-9]+$" "$out"
expect_match "ethtool: ring sizes" "^TX:[[:space:]]+256$" "$(ethtool -g "$dev")"
check "address $me" ip addr add "$me/24" dev "$dev"
check "interface up" ip link set "$dev" up
out=$(ethtool "$dev")
expect_match "ethtool: link up" "Link detected: yes" "$out"
expect_match "ethtool: the adapter's speed" "Speed: 100000Mb/s" "$out"

# The first reply may wait for the peer to come up and answer ARP.
check "the peer answers" retry 120 ping -q -c 1 -W 1 "$peer"
out=$(ping -c 20 -i 0.2 -W 2 "$peer")
printf '%s\n' "$out"
received=$(printf '%s\n' "$out" | sed -n 's/.* \([0-9]*\) received.*/\1/p')
check "ping $peer: at least 15 of 20 replies (${received:-0})" \
	test "${received:-0}" -ge 15

# A deterministic stream: its hash both ends can compute.
tcp() {
	python3 - "$@" <<'EOF'
import hashlib, socket, sys

role, host, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
block = hashlib.sha256(b"wren").digest() * 2048      # 64 KiB
h = hashlib.sha256()
if role == "server":
    ls = socket.create_server((host, 5201))
    ls.settimeout(300)
    c, _ = ls.accept()
    c.settimeout(120)
    got = 0
    while got < n:
        d = c.recv(1 << 16)
        if not d:
            break
        h.update(d)
        got += len(d)
    c.sendall(h.hexdigest().encode())
    c.close()
    print(f"server: {got} bytes, sha256 {h.hexdigest()}")
    sys.exit(0 if got == n else 1)
s = socket.create_connection((host, 5201), timeout=5)
s.settimeout(120)
sent = 0
while sent < n:
    d = block[:min(len(block), n - sent)]
    s.sendall(d)
    h.update(d)
    sent += len(d)
s.shutdown(socket.SHUT_WR)
theirs = s.recv(64).decode()
print(f"client: {sent} bytes, sha256 {h.hexdigest()}, peer {theirs}")
sys.exit(0 if theirs == h.hexdigest() else 1)
EOF
}

if [ "$i" -eq 0 ]; then
	check "TCP: $bytes bytes received whole" tcp server "$me" $bytes
else
	check "TCP: $bytes bytes sent, the peer's SHA-256 matches" \
		retry 120 tcp client "$peer" $bytes
fi

out=$(ip -s link show "$dev")
printf '%s\n' "$out"
rx=$(printf '%s\n' "$out" | awk '/RX:/ { getline; print $1; exit }')
check "the interface counted what it received (${rx:-0} bytes)" \
	test "${rx:-0}" -ge $((i == 0 ? bytes : 1000))
out=$(ethtool -S "$dev")
printf '%s\n' "$out"
expect_match "ethtool -S: the device counted frames sent" \
	"eth_tx_frames: [1-9]" "$out"

check "interface down" ip link set "$dev" down
check "modules unload" unload_wren
finish
