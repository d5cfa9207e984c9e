#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# loopback-share.sh: a greedy user of the adapter's loopback must not
# stall the machine.  ib_write_bw over RC with both ends in this guest
# keeps 128 RDMA WRITEs of 64 KiB in flight to the adapter itself for
# 10 s; meanwhile a shell loop sleeps 50 ms at a time and notes the
# longest wait between two wake-ups, and an ibv_ud_pingpong over the same
# loopback measures its latency.  Passes when the writes ran, the loop
# never waited a second or more (the device model hands loopback frames
# over in bounded batches, see Documentation/device-model.rst), and the
# ping-pong completed.  Prints the longest wait and the ping-pong's
# latency, alone and beside the writes.
set -u
. "$WREN_TOP/scripts/guest-tests/lib.sh"

# longest_wait SECONDS FILE: the longest time, in ms, between two
# wake-ups of a loop that sleeps 50 ms, over SECONDS; into FILE.
longest_wait() {
	local end=$(($(date +%s) + $1)) last now gap max=0

	last=$(date +%s%N)
	while [ "$(date +%s)" -lt $end ]; do
		sleep 0.05
		now=$(date +%s%N)
		gap=$(((now - last) / 1000000))
		[ $gap -gt $max ] && max=$gap
		last=$now
	done
	echo $max >"$2"
}

# usec_per_iter: the latency loopback_pingpong's output gives.
usec_per_iter() {
	sed -n 's/^50 iters in [0-9.]* seconds = \([0-9.]*\) usec\/iter$/\1/p'
}

dmesg_mark
check "modules load" load_wren
alone=$(loopback_pingpong | usec_per_iter)
check "ping-pong alone: $alone usec/iter" [ -n "$alone" ]

longest_wait 14 /tmp/longest &
watch=$!
args="-d wren_0 -x $WREN_GID -c RC -s 65536 -t 128 -D 10 -p 18600 -F --no_ddp"
# shellcheck disable=SC2086 # words on purpose
timeout 60 ib_write_bw $args >/tmp/bw-server.out 2>&1 &
server=$!
sleep 1
# shellcheck disable=SC2086
timeout 60 ib_write_bw $args 127.0.0.1 >/tmp/bw-client.out 2>&1 &
client=$!
sleep 3
beside=$(loopback_pingpong | usec_per_iter)
check "ping-pong beside the writes: $beside usec/iter" [ -n "$beside" ]
wait $client
rc=$?
wait $server
cat /tmp/bw-client.out
check "ib_write_bw ran (rc $rc)" [ $rc -eq 0 ]
expect_match "it reports its bandwidth" '^ 65536 +[0-9]+ ' \
	"$(cat /tmp/bw-client.out)"
wait $watch
max=$(cat /tmp/longest)
echo "# longest wait of a 50 ms sleep: $max ms"
check "the guest never stalled a second ($max ms)" [ "$max" -lt 1000 ]
check "modules unload" unload_wren
check "dmesg: no error or warning" dmesg_quiet

finish
