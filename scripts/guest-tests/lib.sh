# SPDX-License-Identifier: GPL-2.0
# Helpers for the scripts that run inside a guest (see scripts/vm).
# Every check prints "ok - what" or "not ok - what" and a failed check
# makes the script exit non-zero at the end.

: "${WREN_TOP:?not running under scripts/vm}"
WREN_KMOD=${WREN_BUILD:-$WREN_TOP/build}/kmod/$(uname -r)
failures=0

pass() {
	echo "ok - $*"
}

fail() {
	echo "not ok - $*"
	failures=$((failures + 1))
}

# check WHAT COMMAND...: run COMMAND, pass or fail on its exit status.
check() {
	local what=$1

	shift
	if "$@"; then pass "$what"; else fail "$what"; fi
}

# expect_match WHAT REGEX TEXT: pass if TEXT has a line matching REGEX.
expect_match() {
	if printf '%s\n' "$3" | grep -Eq -- "$2"; then
		pass "$1"
	else
		fail "$1 (no line matches /$2/)"
	fi
}

# wait_until SECONDS COMMAND...: COMMAND succeeds within SECONDS (tried
# every 0.1 s).
wait_until() {
	local tries=$(($1 * 10))

	shift
	while ! "$@"; do
		tries=$((tries - 1))
		[ $tries -gt 0 ] || return 1
		sleep 0.1
	done
}

# health_count PCI REPORTER error|recover: how many errors the devlink
# health reporter REPORTER of the function PCI reported, or how many times
# it recovered.
health_count() {
	devlink health show "pci/$1" reporter "$2" |
		sed -n "s/.* $3 \([0-9]*\) .*/\1/p"
}

# wait_for PATH: PATH exists within 5 s.
wait_for() {
	wait_until 5 test -e "$1"
}

# load_wren [WREN.KO PARAMETER...]: the modules, then the adapter's
# network interface up with its wire address (wren_ip_up) unless
# WREN_NO_IP is set.
load_wren() {
	modprobe ib_uverbs &&
		insmod "$WREN_KMOD/drivers/net/ethernet/wren/wren.ko" "$@" &&
		insmod "$WREN_KMOD/drivers/infiniband/hw/wren/wren_ib.ko" &&
		wait_for /sys/class/infiniband/wren_0 &&
		{ [ -n "${WREN_NO_IP:-}" ] || wren_ip_up; }
}

# The network interface of the Wren function, if it has one.
wren_netdev() {
	ls "/sys/bus/pci/devices/$(wren_pci_addr)/net" 2>/dev/null | head -n 1
}

# wren_ip_up: bring the adapter's network interface up with the address
# the adapter sends from, 198.18.0.I+1/24 (scripts/vm), and set WREN_GID
# to the index of that address's GID, which ib_core adds to the RoCE
# port's table when the address appears (index 0 is the interface's
# link-local default GID, which the adapter cannot send from).  Without
# an interface (no MSI-X) the port is not RoCE and has one GID, index 0.
wren_ip_up() {
	local i=${WREN_GUEST_INDEX:-0} dev

	WREN_GID=0
	dev=$(wren_netdev)
	[ -n "$dev" ] || return 0
	ip addr add "198.18.0.$((i + 1))/24" dev "$dev" &&
		ip link set "$dev" up && wren_gid_wait
}

# wren_gid_wait: set WREN_GID to the index of the GID of the interface's
# address (wren_ip_up), once ib_core has it in wren_0's table: also after
# the RDMA device came back (a recovery, a reload), the interface staying.
wren_gid_wait() {
	local i=${WREN_GUEST_INDEX:-0} gid g tries=100

	WREN_GID=0
	[ -n "$(wren_netdev)" ] || return 0
	gid=0000:0000:0000:0000:0000:ffff:c612:00$(printf %02x $((i + 1)))
	while [ $tries -gt 0 ]; do
		for g in /sys/class/infiniband/wren_0/ports/1/gids/*; do
			if [ "$(cat "$g" 2>/dev/null)" = "$gid" ]; then
				WREN_GID=${g##*/}
				return 0
			fi
		done
		sleep 0.1
		tries=$((tries - 1))
	done
	echo "wren_gid_wait: no GID $gid on wren_0 port 1" >&2
	return 1
}

# clean COMMAND...: COMMAND with nothing of scripts/rdma-env: the system's
# PATH, no LD_LIBRARY_PATH, PYTHONPATH or WREN_* variables.
clean() {
	env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"
}

# install_wren: make install into the guest's throwaway overlay
# (Documentation/installation.rst), the modules loaded by name, the
# interface up with its address (wren_ip_up): what the distribution's own
# programs find, run through clean.  installed.sh checks the layout
# itself.
install_wren() {
	local out

	out=$(cd "$WREN_TOP" && clean make --no-print-directory install 2>&1) ||
		{ printf '%s\n' "$out"; return 1; }
	clean modprobe wren_ib && wait_for /sys/class/infiniband/wren_0 &&
		wren_ip_up
}

# The kernel's errors and warnings but the taint of an out-of-tree module
# and what a TCG guest says of its timers when the host is loaded (its
# virtual CPU was not run for a while: nothing of the guest's doing).
dmesg_problems() {
	dmesg --level=emerg,alert,crit,err,warn |
		grep -v -e 'loading out-of-tree module taints kernel' \
			-e 'module verification failed' \
			-e '^\[ *[0-9.]*\] hrtimer: interrupt took ' \
			-e '^\[ *[0-9.]*\] clocksource: Long readout interval'
}

# dmesg_mark, then dmesg_quiet: the kernel logged no error or warning in
# between (the boot's own, which depend on the host, are not the test's).
# scripts/vm fails a run on warnings with a trace; this on every one, such
# as an RDMA client's that could not attach.
dmesg_mark() {
	dmesg_seen=$(dmesg_problems | wc -l)
}

# dmesg_quiet [ERE]: with ERE, lines it matches are let through too.
dmesg_quiet() {
	local out

	out=$(dmesg_problems | tail -n +$((${dmesg_seen:-0} + 1)) |
		grep -v -E "${1:-^\$}")
	[ -z "$out" ] || { printf '%s\n' "$out"; return 1; }
}

unload_wren() {
	rmmod wren_ib && rmmod wren
}

# The PCI address of the (first) Wren function.
wren_pci_addr() {
	grep -l 0x5752 /sys/bus/pci/devices/*/device | head -n 1 | xargs dirname |
		xargs basename
}

# lan_up: bring up the virtio-net NIC of scripts/vm --lan as
# 10.0.0.I+1/24, I being this guest's index.
lan_up() {
	local i=${WREN_GUEST_INDEX:-0} mac d dev= tries=50

	mac=52:54:00:4c:41:0$i
	modprobe virtio_net 2>/dev/null
	while [ -z "$dev" ] && [ $tries -gt 0 ]; do
		for d in /sys/class/net/*; do
			[ "$(cat "$d/address" 2>/dev/null)" = "$mac" ] && dev=${d##*/}
		done
		[ -n "$dev" ] || sleep 0.1
		tries=$((tries - 1))
	done
	[ -n "$dev" ] || { echo "lan_up: no NIC with MAC $mac" >&2; return 1; }
	ip link set lo up &&
		ip addr add "10.0.0.$((i + 1))/24" dev "$dev" &&
		ip link set "$dev" up
}

# retry TRIES COMMAND...: run COMMAND until it succeeds, a second apart;
# for a client whose server, in another guest, may not listen yet.
retry() {
	local tries=$1

	shift
	while ! "$@"; do
		tries=$((tries - 1))
		[ $tries -gt 0 ] || return 1
		sleep 1
	done
}

# loopback_pingpong: an ibv_ud_pingpong of 50 iterations with both ends
# in this guest, over the adapter's loopback (WREN_GID set by
# wren_ip_up or wren_gid_wait): what a user who opens the device runs.
loopback_pingpong() {
	local out

	timeout 60 ibv_ud_pingpong -d wren_0 -g "$WREN_GID" -n 50 \
		>/tmp/pingpong-server.out 2>&1 &
	out=$(retry 20 timeout 60 ibv_ud_pingpong -d wren_0 -g "$WREN_GID" \
		-n 50 127.0.0.1 2>&1)
	wait $!
	printf '%s\n' "$out"
	printf '%s\n' "$out" | grep -q '^50 iters in'
}

# serve_or_connect COMMAND...: the client/server programs of the RDMA
# world (ibv_*_pingpong, perftest) between guests: guest 0 runs COMMAND
# as the server, every other guest as a client of guest 0 on the LAN
# (10.0.0.1), retried while the server does not listen yet.
serve_or_connect() {
	if [ "${WREN_GUEST_INDEX:-0}" -eq 0 ]; then
		"$@"
	else
		retry 60 "$@" 10.0.0.1
	fi
}

# fault REQUEST: have the host inject REQUEST into this guest's adapter
# (x-fault, Documentation/device-model.rst: "keep-alive-stop",
# "delay=0x03:2000", "fatal=2", "clear"...) and return once it is applied:
# 0, or 1 with the reason on stderr if the device refused it or no answer
# came in 30 s.  The request goes through the results share to
# scripts/fault-relay on the host, which sets it with qom-set on the
# guest's QEMU monitor (scripts/vm).
fault() {
	local dir=${WREN_RESULTS:-/wren-results} tries=300 ack

	# In a file, not a variable: a caller in a subshell, $(fault ...),
	# must not use a number again and take an earlier answer for its own.
	fault_seq=$(($(cat "$dir/fault.seq" 2>/dev/null || echo 0) + 1))
	echo "$fault_seq" >"$dir/fault.seq"
	printf '%s %s\n' "$fault_seq" "$1" >"$dir/fault.req.tmp" &&
		mv "$dir/fault.req.tmp" "$dir/fault.req" || return 1
	while [ $tries -gt 0 ]; do
		ack=$(cat "$dir/fault.ack" 2>/dev/null)
		case $ack in
		"$fault_seq ok")
			return 0 ;;
		"$fault_seq error "*)
			echo "fault $1: ${ack#"$fault_seq error "}" >&2
			return 1 ;;
		esac
		sleep 0.1
		tries=$((tries - 1))
	done
	echo "fault $1: no answer from the host in 30 s" >&2
	return 1
}

finish() {
	if [ "$failures" -eq 0 ]; then
		echo "all checks passed"
		exit 0
	fi
	echo "$failures checks failed"
	exit 1
}

# opt_value NAME DEFAULT ARGS...: the number ARGS give as --NAME V or
# --NAME=V (the last one), else DEFAULT; a malformed one is the
# program's to refuse, and DEFAULT stands here.
opt_value() {
	name=$1 dflt=$2 value=$2 want=
	shift 2
	for a in "$@"; do
		[ -n "$want" ] && value=$a
		want=
		case $a in
		--"$name") want=1 ;;
		--"$name"=*) value=${a#--"$name"=} ;;
		esac
	done
	case $value in '' | *[!0-9]*) value=$dflt ;; esac
	echo "$value"
}
