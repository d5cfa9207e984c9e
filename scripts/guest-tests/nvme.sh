#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# nvme.sh [--installed]: the kernel's NVMe over Fabrics RDMA transport
# between two guests of scripts/vm --fabric, on the installed layout
# (install_wren first, unless --installed).
# Guest 0 is the target: nvmet-rdma on its adapter's address
# (198.18.0.1:4420), one subsystem whose namespace is a 64 MiB file (on a
# tmpfs of its own).
# Guest 1 is the host: nvme connect -t rdma (the distribution's nvme-cli),
# 16 MiB of random data written to the namespace with O_DIRECT and read
# back, both compared; then it disconnects and tells the target, over TCP
# on the adapter's interface, the data's SHA-256, which the target checks
# against its file.  The kernel must log nothing on either side, so the
# host connects only once the target says its port listens.
set -u
. "$WREN_TOP/scripts/guest-tests/lib.sh"

i=${WREN_GUEST_INDEX:-0}
target=198.18.0.1
host=198.18.0.2
nqn=nqn.2026-11.org.wren:test
mib=16

dmesg_mark
[ "${1:-}" = --installed ] ||
	check "make install, modprobe wren_ib, the interface up" install_wren

# tcp_send ADDRESS PORT LINE: LINE to whoever listens there, retried
# until somebody does; tcp_listen ADDRESS PORT: the line of the first
# connection there.  The guests' rendezvous, over the adapter's interface.
tcp_send() {
	python3 - "$@" <<'EOF'
import socket, sys, time
for _ in range(300):
    try:
        s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=5)
        break
    except OSError:
        time.sleep(1)
else:
    sys.exit(1)
s.sendall((sys.argv[3] + "\n").encode())
s.close()
EOF
}

tcp_listen() {
	python3 - "$@" <<'EOF'
import socket, sys
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind((sys.argv[1], int(sys.argv[2])))
srv.listen(1)
srv.settimeout(600)
c, _ = srv.accept()
print(c.makefile().readline().strip())
EOF
}

if [ "$i" -eq 0 ]; then
	cfg=/sys/kernel/config/nvmet
	check "modprobe nvmet-rdma" modprobe nvmet-rdma
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
	# The overlay has little room: the file gets a tmpfs of its own.
	check "a 64 MiB backing file" sh -e -c "
		mkdir -p /mnt/wren-ns
		mount -t tmpfs -o size=80M wren-ns /mnt/wren-ns
		truncate -s 64M /mnt/wren-ns/ns.img"
	sub=$cfg/subsystems/$nqn
	check "the subsystem, its namespace, the RDMA port" sh -e -c "
		mkdir $sub
		echo 1 >$sub/attr_allow_any_host
		mkdir $sub/namespaces/1
		echo -n /mnt/wren-ns/ns.img >$sub/namespaces/1/device_path
		echo 1 >$sub/namespaces/1/buffered_io
		echo 1 >$sub/namespaces/1/enable
		mkdir $cfg/ports/1
		echo rdma >$cfg/ports/1/addr_trtype
		echo ipv4 >$cfg/ports/1/addr_adrfam
		echo $target >$cfg/ports/1/addr_traddr
		echo 4420 >$cfg/ports/1/addr_trsvcid
		ln -s $sub $cfg/ports/1/subsystems/$nqn"
	# The host connects once the port listens: a refused connect logs.
	check "the host heard the port is ready" tcp_send $host 4422 ready
	sum=$(tcp_listen $target 4421)
	echo "host: $sum"
	check "the host finished" [ -n "$sum" ]
	got=$(head -c $((mib << 20)) /mnt/wren-ns/ns.img | sha256sum | cut -d' ' -f1)
	check "the backing file holds what the host wrote" [ "sha256 $got" = "$sum" ]
	rm -f $cfg/ports/1/subsystems/$nqn
	rmdir $cfg/ports/1 $sub/namespaces/1 $sub
	check "nvmet-rdma unloads" modprobe -r nvmet-rdma
	umount /mnt/wren-ns
else
	check "modprobe nvme-rdma" modprobe nvme-rdma
	check "the target's port is ready" \
		[ "$(tcp_listen $host 4422)" = ready ]
	if clean nvme connect -t rdma -a $target -s 4420 -n $nqn; then
		pass "nvme connect -t rdma"
	else
		fail "nvme connect -t rdma"
		tcp_send $target 4421 failed
		finish
	fi
	# The namespace's block device: the subsystem's (native multipath)
	# or the controller's.
	dev=
	for tries in $(seq 50); do
		for d in /sys/class/nvme-subsystem/* /sys/class/nvme/*; do
			[ "$(cat "$d/subsysnqn" 2>/dev/null)" = "$nqn" ] || continue
			n=$(ls "$d" | grep -E -m 1 '^nvme[0-9]+n[0-9]+$')
			[ -z "$n" ] || dev=/dev/$n
		done
		[ -b "${dev:-/nonexistent}" ] && break
		sleep 0.2
	done
	check "the namespace's block device ($dev)" [ -b "$dev" ]
	clean nvme list
	head -c $((mib << 20)) /dev/urandom >/tmp/wren-data
	want=$(sha256sum </tmp/wren-data | cut -d' ' -f1)
	check "write $mib MiB with O_DIRECT" dd if=/tmp/wren-data of="$dev" \
		bs=1M count=$mib oflag=direct status=none
	got=$(dd if="$dev" bs=1M count=$mib iflag=direct status=none | sha256sum |
		cut -d' ' -f1)
	check "read back the same $mib MiB" [ "$got" = "$want" ]
	check "nvme disconnect" clean nvme disconnect -n $nqn
	# The target waits for this line whatever happened here.
	[ "$got" = "$want" ] || want=failed
	check "the target heard the host" tcp_send $target 4421 "sha256 $want"
	check "nvme-rdma unloads" modprobe -r nvme-rdma
fi

check "the kernel logged no error or warning" dmesg_quiet
finish
