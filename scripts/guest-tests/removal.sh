#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# removal.sh: the device goes away while programs use it, and comes back.
# Under load (two wren_rd_stress participants exchanging RD messages, an
# ibv_ud_pingpong pair waiting for completion events, one polling, and
# an ibv_rc_pingpong pair, all over the adapter's loopback), first
# wren_ib.ko is unloaded, then the PCI function is unbound from wren.ko,
# then QEMU takes the adapter out of its slot (device_del, through
# lib.sh's "fault unplug": the guest's ACPI hotplug, acpiphp, removes
# the function).
# Each time the removal finishes at once, whatever the programs do;
# every program gets an error and exits by itself (none hangs, none is
# killed); the device comes back (insmod, bind, device_add) and a new
# ping-pong runs on it; the modules unload at the end, and the kernel
# logs no warning.
set -u
. "$WREN_TOP/scripts/guest-tests/lib.sh"

stress=${WREN_BUILD:-$WREN_TOP/build}/rdtest/wren_rd_stress

gone() {
	! kill -0 "$1" 2>/dev/null
}

# stuck PID: what PID and its children are doing, for the log (files of
# /proc that take no lock of the process's memory, and the blocked
# tasks' stacks from SysRq-w), then they are killed.
stuck() {
	local t

	for t in $1 $(cat /proc/$1/task/*/children 2>/dev/null); do
		echo "# stuck $t: $(cat /proc/$t/comm 2>/dev/null)"
		timeout 5 grep -E '^(State|SigPnd|ShdPnd)' /proc/$t/status |
			sed 's/^/#   /'
		timeout 5 cat /proc/$t/stack | sed 's/^/#   /'
		kill -9 "$t" 2>/dev/null
	done
	echo w >/proc/sysrq-trigger
}

# listening PORT: a TCP server listens on PORT.
listening() {
	ss -ltnH "sport = :$1" | grep -q .
}

# load_up: start the load; its process ids in $procs.
load_up() {
	local p

	procs=
	for i in 0 1; do
		"$stress" --peers 2 --index $i --hub 127.0.0.1 \
			--gid-index "$WREN_GID" --messages 10000000 \
			--timeout 300 >/tmp/rd$i.out 2>&1 &
		procs="$procs $!"
	done
	for pair in ud:18515:-e ud:18516: rc:18517:; do
		set -- $(echo "$pair" | tr : ' ')
		timeout 300 ibv_$1_pingpong -d wren_0 -g "$WREN_GID" -p $2 \
			${3:-} -n 100000000 >/tmp/$1$2-server.out 2>&1 &
		procs="$procs $!"
		# Once the server listens (slow to start on the debug kernel).
		wait_until 30 listening $2
		timeout 300 ibv_$1_pingpong -d wren_0 -g "$WREN_GID" -p $2 \
			${3:-} -n 100000000 127.0.0.1 >/tmp/$1$2-client.out 2>&1 &
		procs="$procs $!"
	done
	sleep 5
	for p in $procs; do
		kill -0 "$p" 2>/dev/null || return 1
	done
}

# load_ended WHAT: every program of the load exits by itself within
# 60 s (the debug kernel is slow to tear a process's objects down), with
# an error of its own (not timeout's 124).
load_ended() {
	local p rc

	for p in $procs; do
		check "$1: program $p exits by itself" wait_until 60 gone "$p" ||
			stuck "$p"
		wait "$p"
		rc=$?
		check "$1: program $p reports an error (rc $rc)" \
			[ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $rc -ne 137 ]
	done
	tail -n 2 /tmp/rd0.out /tmp/ud18516-client.out /tmp/rc18517-client.out
}

dmesg_mark
pci=$(wren_pci_addr)
check "modules load" load_wren
check "wren_rd_stress is built (make -C tools/rdtest)" test -x "$stress"

# --- rmmod wren_ib under load ------------------------------------------------
# The programs would run for 300 s: a removal that waited for them would
# take that long.  The debug kernel on a loaded host took 45 s to tear
# their objects down, the distribution's kernel 3 s.
check "rmmod: the load runs" load_up
start=$(date +%s%N)
check "rmmod wren_ib returns (120 s at most)" timeout 120 rmmod wren_ib
ms=$((($(date +%s%N) - start) / 1000000))
echo "# rmmod wren_ib under load took $ms ms"
check "rmmod: it did not wait for the programs ($ms ms)" [ $ms -lt 90000 ]
load_ended rmmod
check "insmod wren_ib again" \
	insmod "$WREN_KMOD/drivers/infiniband/hw/wren/wren_ib.ko"
check "wren_0 is back" wait_for /sys/class/infiniband/wren_0
check "its GID is back" wren_gid_wait
check "a ping-pong runs on it" loopback_pingpong

# --- PCI unbind under load ---------------------------------------------------
check "unbind: the load runs" load_up
start=$(date +%s%N)
check "unbind the function from wren (120 s at most)" \
	timeout 120 sh -c "echo $pci > /sys/bus/pci/drivers/wren/unbind"
ms=$((($(date +%s%N) - start) / 1000000))
echo "# unbind under load took $ms ms"
check "unbind: it did not wait for the programs ($ms ms)" [ $ms -lt 90000 ]
load_ended unbind
check "bind it again" sh -c "echo $pci > /sys/bus/pci/drivers/wren/bind"
check "wren_0 is back" wait_for /sys/class/infiniband/wren_0
# A new network interface: its address is set again.
check "the interface up again, with its GID" wren_ip_up
check "a ping-pong runs on it" loopback_pingpong

# --- QEMU device_del under load ----------------------------------------------
check "device_del: the load runs" load_up
start=$(date +%s%N)
check "QEMU takes the adapter out (device_del)" fault unplug
# acpiphp takes seconds to release the slot (1.6 to 3.5 s so far).
check "the function is gone (30 s at most)" \
	wait_until 30 test ! -e "/sys/bus/pci/devices/$pci"
ms=$((($(date +%s%N) - start) / 1000000))
echo "# device_del under load took $ms ms"
load_ended device_del
check "QEMU puts it back (device_add)" fault replug
check "wren_0 is back" wait_until 30 test -e /sys/class/infiniband/wren_0
check "the interface up again, with its GID" wren_ip_up
check "a ping-pong runs on it" loopback_pingpong

check "modules unload" unload_wren
check "dmesg: no error or warning" dmesg_quiet

finish
