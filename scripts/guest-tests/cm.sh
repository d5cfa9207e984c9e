#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cm.sh [--installed] [UDADDY-MESSAGES]: the RDMA connection manager
# between two guests of scripts/vm --fabric, with the distribution's
# programs on the installed layout: rdmacm-utils' rping (RC SEND and RDMA
# READ/WRITE, its data validated), ucmatose (RC connect, messages,
# disconnect) and udaddy (UD: address and route resolution, SIDR,
# datagrams), libfabric's fi_pingpong on its verbs provider (data
# checked) and qperf -cm1 (RC bandwidth, RDMA READ latency), each
# resolving the peer's address on the adapter's interface (198.18.0.1 is
# guest 0's, which serves every one).  Without
# --installed it first installs (install_wren); installed.sh runs it with
# it.  UDADDY-MESSAGES (default 10) is udaddy's datagram count: over a
# lossy fabric, where UD may lose datagrams and udaddy would wait for them
# for ever, 0 checks SIDR alone.  Then the kernel must have logged
# nothing: the MAD layer and the CM attached.
#
# Each client retries until its server listens; a server serves one
# client, so the next program's server starts once the previous client is
# done.  A client makes one connection: one of two could be refused by a
# server not listening yet and the other accepted by it once it listens,
# and the retry's connections would then be a second client to it.
set -u
. "$WREN_TOP/scripts/guest-tests/lib.sh"

i=${WREN_GUEST_INDEX:-0}
server=198.18.0.1
installed=
if [ "${1:-}" = --installed ]; then
	installed=1
	shift
fi
udaddy_msgs=${1:-10}

dmesg_mark
[ -n "$installed" ] ||
	check "make install, modprobe wren_ib, the interface up" install_wren
check "wren_0 has the GSI QP" sh -c "rdma res show qp | grep -q 'lqpn 1 type GSI'"

# run NAME SERVER-ARGS -- CLIENT-ARGS: guest 0 serves, guest 1 connects.
run() {
	local name=$1 out rc args

	shift
	if [ "$i" -eq 0 ]; then
		args=$(printf '%s\n' "$@" | sed '/^--$/,$d')
		# shellcheck disable=SC2086
		out=$(clean timeout 120 $name $args 2>&1)
	else
		args=$(printf '%s\n' "$@" | sed '1,/^--$/d')
		# shellcheck disable=SC2086
		out=$(retry 60 clean timeout 120 $name $args 2>&1)
	fi
	rc=$?
	printf '%s\n' "$out" | tail -n 20
	check "$name ($( [ "$i" -eq 0 ] && echo server || echo client))$(why $rc "$out")" \
		[ $rc -eq 0 ]
}

# why RC OUTPUT: for a program that failed, how (its exit status, or that
# it timed out) and its last line, for the check's name: what a failed
# stage's summary shows.
why() {
	[ "$1" -ne 0 ] || return 0
	if [ "$1" -eq 124 ]; then
		printf ' (timed out'
	else
		printf ' (exit %d' "$1"
	fi
	printf '%s)' "$(printf '%s\n' "$2" | awk 'NF { l = $0 }
		END { if (l != "") printf ": %s", substr(l, 1, 120) }')"
}

run rping -s -a $server -C 50 -S 4096 -V -- -c -a $server -C 50 -S 4096 -V
run ucmatose -b $server -c 1 -C 100 -S 1000 -- -s $server -c 1 -C 100 -S 1000
if [ "$udaddy_msgs" -eq 0 ] && [ "$i" -eq 0 ]; then
	# SIDR alone, over a lossy fabric: a SIDR REP is a datagram and may
	# be lost; the client's CM then sends its REQ again, which only a
	# listener answers, and a server that has served its client is gone.
	# So servers follow one another for 20 s (the client's next program
	# retries for 60 until its server listens), and one must have served.
	end=$(($(date +%s) + 20))
	served=1
	while [ "$(date +%s)" -lt $end ]; do
		clean timeout 20 udaddy -b $server -c 1 -C 0 && served=0
	done
	check "udaddy (server)" [ $served -eq 0 ]
else
	run udaddy -b $server -c 1 -C "$udaddy_msgs" -- \
		-s $server -c 1 -C "$udaddy_msgs"
fi
# libfabric's verbs provider: FI_EP_MSG endpoints through the RDMA CM.
run fi_pingpong -p verbs -e msg -S 65536 -I 100 -c -- -p verbs -e msg -S 65536 \
	-I 100 -c $server
# qperf's RC tests, connected by the RDMA CM (-cm1); "quit" ends the server.
if [ "$i" -eq 0 ]; then
	out=$(clean timeout 120 qperf 2>&1)
	check "qperf (server)" [ $? -eq 0 ]
else
	out=$(retry 60 clean timeout 60 qperf -cm1 -t 2 $server rc_bw \
		rc_rdma_read_lat quit 2>&1)
	printf '%s\n' "$out"
	expect_match "qperf -cm1 rc_bw" "^ +bw += +[0-9.]+ [KMG]?B/sec" "$out"
	expect_match "qperf -cm1 rc_rdma_read_lat" \
		"^ +latency += +[0-9.]+ [mun]?s" "$out"
fi

check "the kernel logged no error or warning" dmesg_quiet
finish
