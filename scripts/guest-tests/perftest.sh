#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# perftest.sh DEVICE CONN TEST SIZES ITERS: perftest between two guests
# (scripts/vm --guests 2 --lan): guest 0 serves, guest 1 connects, for
# each message size in the comma-separated SIZES.  DEVICE is wren_0 or
# rxe0 (then rxe is set up on the LAN NIC first, the baseline), CONN UD
# or RD (Wren's reliable datagram, through scripts/perftest's patch),
# TEST ib_send_lat or ib_send_bw.  Passes when every run reports its
# figures; guest 1 prints one "perftest: DEVICE CONN TEST SIZE VALUE UNIT"
# line per size, the median latency in usec or the average bandwidth in
# MB/s.
set -u
. "$WREN_TOP/scripts/guest-tests/lib.sh"

dev=${1:?usage: perftest.sh DEVICE CONN TEST SIZES ITERS}
conn=${2:?}
test=${3:?}
sizes=${4:?}
iters=${5:?}
index=${WREN_GUEST_INDEX:-0}

check "LAN up" lan_up
case $dev in
rxe*)
	nic=$(ip -o -4 addr show | awk '$4 ~ /^10\.0\.0\./ { print $2 }')
	check "rxe on $nic" sh -c "modprobe rdma_rxe && rdma link add $dev type rxe netdev $nic"
	# rxe's GID 0 is the link-local one; the IPv4-mapped GID of the
	# LAN address comes once the address is seen.
	gid=1
	;;
*)
	check "modules load" load_wren
	gid=0
	;;
esac

port=18515
for size in $(echo "$sizes" | tr ',' ' '); do
	args="-d $dev -x $gid -c $conn -s $size -n $iters -p $port -F"
	if [ "$index" -eq 0 ]; then
		# shellcheck disable=SC2086 # the arguments are words
		out=$(timeout 300 $test $args 2>&1)
	else
		# shellcheck disable=SC2086
		out=$(retry 60 timeout 300 $test $args 10.0.0.1 2>&1)
	fi
	rc=$?
	printf '%s\n' "$out"
	check "$test -c $conn -s $size on $dev (exit status $rc)" test $rc -eq 0
	# The result line: bytes, iterations, then the figures.
	line=$(printf '%s\n' "$out" | awk -v s="$size" '$1 == s && NF >= 5 { l = $0 } END { print l }')
	if [ -z "$line" ]; then
		fail "$test -c $conn -s $size on $dev: no result line"
	elif [ "$index" -ne 0 ]; then
		case $test in
		ib_send_lat) set -- $line; echo "perftest: $dev $conn $test $size $5 usec" ;;
		*) set -- $line; echo "perftest: $dev $conn $test $size $4 MB/s" ;;
		esac
	fi
	port=$((port + 1))
done

case $dev in
rxe*) check "rxe removed" rdma link delete "$dev" ;;
*) check "modules unload" unload_wren ;;
esac
finish
