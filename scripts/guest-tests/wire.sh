#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# wire.sh ITERS: a saturating one-way transfer between two guests (scripts/vm
# --guests 2 --lan --fabric ...), for scripts/check-wire: guest 1 writes
# ITERS RDMA WRITEs of 64 KiB on RD to guest 0 with ib_write_bw, then each
# guest prints its adapter's transport counters on one line starting
# "wire-stats: " (rdma statistic), which check-wire reads beside the
# fabric's and the wire sockets' counters, once its transport contexts
# are closed.  Passes when the transfer reports its bandwidth.
set -u
. "$WREN_TOP/scripts/guest-tests/lib.sh"

iters=${1:?usage: wire.sh ITERS}

check "modules load" load_wren
check "LAN up" lan_up

out=$(serve_or_connect timeout 300 ib_write_bw -d wren_0 -x "$WREN_GID" -c RD \
	-s 65536 -n "$iters" -p 18515 -F 2>&1)
printf '%s\n' "$out"
expect_match "ib_write_bw: $iters writes of 64 KiB" "^ *65536 +$iters " "$out"

# contexts_closed: every transport context this adapter opened, either
# way, is closed (idle), so the counters below are final: a context's
# CLOSE packet leaves after the transfer.
contexts_closed() {
	stats=$(rdma statistic show link wren_0/1)
	printf '%s\n' "$stats" | awk '{
		for (i = 1; i < NF; i++) v[$i] = $(i + 1)
	} END {
		exit !(v["ctx_created"] == v["ctx_evicted"] &&
		       v["rx_ctx_created"] == v["rx_ctx_closed"])
	}'
}
check "transport contexts closed" wait_until 30 contexts_closed
printf 'wire-stats: %s\n' "$stats"
check "modules unload" unload_wren
finish
