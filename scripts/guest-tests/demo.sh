#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh: what a user of two Wren adapters sees (scripts/demo runs it in
# two guests joined by a lossy fabric and a LAN): the adapter in
# ibv_devinfo and rdma link, an RD ping-pong (perftest ib_send_lat over
# Wren RD) and an RD bandwidth run (ib_send_bw), then the transport's
# counters in rdma statistic, where the retransmissions that repaired the
# fabric's losses show.  Guest 0 serves, guest 1 connects.
set -eu
. "$WREN_TOP/scripts/guest-tests/lib.sh"

load_wren
lan_up

# run COMMAND...: show the command, then run it.
run() {
	echo "\$ $*"
	"$@"
}

run ibv_devinfo -d wren_0
run rdma link show wren_0/1

run serve_or_connect ib_send_lat -d wren_0 -x "$WREN_GID" -c RD -s 64 -n 500 -p 18515 -F
run serve_or_connect ib_send_bw -d wren_0 -x "$WREN_GID" -c RD -s 65536 -n 500 -p 18516 -F

run rdma statistic show link wren_0/1
unload_wren
