#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fairness.sh: a well-behaved QP keeps its latency and its throughput
# while a greedy one runs.  Two guests (scripts/vm --guests 2 --lan):
# guest 1 measures, first alone, then while another QP of the same
# adapter sends 1 MiB messages to guest 0 with ib_send_bw as fast as it
# may (128 posted at once, sleeping on completion events so that it takes
# the adapter, not the guest's one CPU):
#  - the round trip of 64-byte RD sends (ib_send_lat, t_typical);
#  - the throughput of a QP that keeps one 64 KiB RD send in flight
#    (ib_send_bw -t 1), which its round trip, not the link, bounds.
# All QPs send to the same adapter, so over one transport context.
# Guest 1 prints
# "fairness: alone L0 usec, beside a greedy writer L1 usec, ratio R,
# writer B MiB/s" and
# "fairness: one in flight alone T0 MiB/s, beside a greedy writer T1 MiB/s,
# ratio Q"; passes when every measurement reports, R is at most MAX (the
# first argument) and Q at least 1 / MAX.
set -u
. "$WREN_TOP/scripts/guest-tests/lib.sh"

max=${1:?usage: fairness.sh MAX_RATIO}

check "modules load" load_wren
check "LAN up" lan_up

# t_typical of an ib_send_lat run on PORT, or nothing; its result line
# on stderr.
latency() {
	serve_or_connect timeout 300 ib_send_lat -d wren_0 -x "$WREN_GID" \
		-c RD -s 64 -n 2000 -p "$1" -F >"/tmp/lat$1.out" 2>&1
	grep -A1 '#bytes' "/tmp/lat$1.out" >&2
	awk '$1 == 64 && NF >= 5 { v = $5 } END { print v }' "/tmp/lat$1.out"
}

# BW average of a one-in-flight ib_send_bw run on PORT, or nothing.
modest() {
	serve_or_connect timeout 300 ib_send_bw -d wren_0 -x "$WREN_GID" \
		-c RD -s 65536 -t 1 -n 300 -p "$1" -F >"/tmp/bw$1.out" 2>&1
	grep -A1 '#bytes' "/tmp/bw$1.out" >&2
	awk '$1 == 65536 && NF >= 5 { v = $4 } END { print v }' "/tmp/bw$1.out"
}

l0=$(latency 18515)
check "latency alone reported" test -n "$l0"
t0=$(modest 18518)
check "throughput alone reported" test -n "$t0"
if [ "${WREN_GUEST_INDEX:-0}" -eq 0 ]; then
	timeout 300 ib_send_bw -d wren_0 -x "$WREN_GID" -c RD -s 1048576 \
		-t 128 -e -n 1000 -p 18516 -F >/tmp/greedy.out 2>&1 &
else
	retry 60 timeout 300 ib_send_bw -d wren_0 -x "$WREN_GID" -c RD \
		-s 1048576 -t 128 -e -n 1000 -p 18516 -F 10.0.0.1 \
		>/tmp/greedy.out 2>&1 &
	# The writer at full speed first.
	sleep 5
fi
greedy=$!
l1=$(latency 18517)
check "latency beside the writer reported" test -n "$l1"
t1=$(modest 18519)
check "throughput beside the writer reported" test -n "$t1"
wait $greedy
check "the greedy writer ran" test $? -eq 0
cat /tmp/greedy.out
if [ "${WREN_GUEST_INDEX:-0}" -ne 0 ]; then
	bw="$(awk '$1 == 1048576 && NF >= 5 { v = $4 } END { print v }' \
		/tmp/greedy.out) MiB/s"
	# perftest times with the TSC, calibrated against gettimeofday();
	# on a slow guest (the debug kernel under TCG) the calibration can
	# fail ("Correlation coefficient r^2 ... < 0.9") and it then prints
	# 0.00 for every bandwidth: say so rather than report 0.
	if grep -q '^Correlation coefficient' /tmp/greedy.out; then
		bw="unknown (perftest could not calibrate its clock)"
	fi
	ratio=$(awk -v a="$l0" -v b="$l1" 'BEGIN { printf "%.2f", b / a }')
	echo "fairness: alone $l0 usec, beside a greedy writer $l1 usec, ratio $ratio, writer $bw"
	check "latency beside the writer at most $max x alone ($ratio)" \
		awk -v r="$ratio" -v m="$max" 'BEGIN { exit !(r <= m) }'
	q=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b / a }')
	echo "fairness: one in flight alone $t0 MiB/s, beside a greedy writer $t1 MiB/s, ratio $q"
	check "throughput beside the writer at least 1/$max of alone ($q)" \
		awk -v q="$q" -v m="$max" 'BEGIN { exit !(q * m >= 1) }'
fi
check "modules unload" unload_wren
finish
