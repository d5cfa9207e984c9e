#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# rc-pingpong.sh: rdma-core's ibv_rc_pingpong and ibv_srq_pingpong (16 RC
# QPs to one peer on one shared receive queue) between two guests over
# their Wren adapters, unmodified: the peer's path by the
# GID of the adapter's IPv4 address (-g, from wren_ip_up), the
# rendezvous over the LAN (scripts/vm --lan), each received buffer
# checked (-c).  Guest 0 serves, guest 1 connects.  Runs a small and a
# multi-packet size; passes when both ends report their iterations.
set -u
. "$WREN_TOP/scripts/guest-tests/lib.sh"

iters=500

check "modules load" load_wren
check "LAN up" lan_up

for size in 4096 65536; do
	out=$(serve_or_connect timeout 120 ibv_rc_pingpong -d wren_0 -g "$WREN_GID" \
		-c -n $iters -s $size 2>&1)
	printf '%s\n' "$out"
	expect_match "ibv_rc_pingpong: $iters iterations of $size bytes" \
		"^$((iters * size * 2)) bytes in [0-9.]+ seconds" "$out"
	expect_match "ibv_rc_pingpong: latency reported ($size bytes)" \
		"^$iters iters in [0-9.]+ seconds = [0-9.]+ usec/iter" "$out"
	# The server checks every buffer it received (-c).
	case $out in
	*"invalid data"*) valid=false ;;
	*) valid=true ;;
	esac
	check "ibv_rc_pingpong: received data valid ($size bytes)" $valid
done

for size in 4096 65536; do
	out=$(serve_or_connect timeout 120 ibv_srq_pingpong -d wren_0 -g "$WREN_GID" \
		-c -q 16 -n $iters -s $size 2>&1)
	printf '%s\n' "$out"
	expect_match "ibv_srq_pingpong: $iters iterations of $size bytes" \
		"^$((iters * size * 2)) bytes in [0-9.]+ seconds" "$out"
	case $out in
	*"invalid data"*) valid=false ;;
	*) valid=true ;;
	esac
	check "ibv_srq_pingpong: received data valid ($size bytes)" $valid
done

check "modules unload" unload_wren
finish
