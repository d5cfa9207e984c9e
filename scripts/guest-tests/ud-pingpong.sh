#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ud-pingpong.sh: rdma-core's ibv_ud_pingpong between two guests over
# their Wren adapters, addressed by the GID of their IPv4 addresses (-g,
# from wren_ip_up), the rendezvous over the LAN (scripts/vm --lan).
# Guest 0 serves, guest 1 connects.  Passes when both ends report their
# iterations.
set -u
. "$WREN_TOP/scripts/guest-tests/lib.sh"

iters=200
size=2048

check "modules load" load_wren
check "LAN up" lan_up

out=$(serve_or_connect timeout 120 ibv_ud_pingpong -d wren_0 -g "$WREN_GID" -n $iters \
	-s $size 2>&1)
printf '%s\n' "$out"
expect_match "ibv_ud_pingpong: $iters iterations of $size bytes" \
	"^$((iters * size * 2)) bytes in [0-9.]+ seconds" "$out"
expect_match "ibv_ud_pingpong: latency reported" \
	"^$iters iters in [0-9.]+ seconds = [0-9.]+ usec/iter" "$out"

check "modules unload" unload_wren
finish
