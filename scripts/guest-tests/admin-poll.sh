#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# admin-poll.sh: wren.ko with admin_poll=1 masks the management interrupt
# and polls: admin commands must still complete (probe, and every object
# of an ibv_ud_pingpong over the adapter's loopback) and async events
# must still be read (keep-alives counted).
set -u
. "$WREN_TOP/scripts/guest-tests/lib.sh"

check "modules load with admin_poll=1 keep_alive_ms=200" \
	load_wren admin_poll=1 keep_alive_ms=200
dbg=/sys/kernel/debug/wren/$(wren_pci_addr)

# Both ends in this guest, through the adapter's loopback: every object
# (PD, MR, CQ, QP, AH) is created through the polled admin queue.
check "ibv_ud_pingpong runs on the polled admin queue" loopback_pingpong
check "no admin command timed out" [ "$(cat "$dbg/admin_timeouts")" -eq 0 ]

before=$(cat "$dbg/keep_alives")
sleep 2
after=$(cat "$dbg/keep_alives")
check "keep-alives read without the interrupt ($before, then $after)" \
	[ $((after - before)) -ge 5 ]
check "no keep-alive lost" [ "$(cat "$dbg/keep_alive_lost")" -eq 0 ]
check "modules unload" unload_wren

finish
