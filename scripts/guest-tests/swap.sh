#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# swap.sh [--rc] [--rxe] [--lossy] [--kill|--hostile|--slow MS] [ARGS...]:
# libswap's swap_stress in every guest at once (scripts/vm --guests 2..4
# --lan): each guest's endpoint has --streams partners on every other
# guest, sends each random-sized messages on both sides of the buffer
# size, and checks every one arrives once, intact and in order.  Wren RD
# unless --rc (Wren RC QPs) or --rxe (RC over rxe on the LAN, the second
# device).  ARGS go to swap_stress (--messages, --streams, --max-size,
# --buf-size, --pool-size, --seed, --timeout...).  Passes when the
# summary shows nothing corrupt and no partner failed and the program
# exits 0; --slow MS makes the last guest a slow receiver and also wants
# the senders to have waited for room (waits > 0); --kill has the last
# guest kill itself halfway and --hostile scribble over its flow-control
# blocks halfway: the others pass when that partner alone failed
# (ECONNRESET or EPROTO for --hostile) and the rest finished.  --lossy
# (a fabric that loses frames) also wants the adapter's counters to show
# retransmissions.  Every run wants the kernel to have logged no error or
# warning.
set -u
. "$WREN_TOP/scripts/guest-tests/lib.sh"

index=${WREN_GUEST_INDEX:-0}
count=${WREN_GUEST_COUNT:-1}
last=$((count - 1))
stress=${WREN_BUILD:-$WREN_TOP/build}/swap/swap_stress

transport=rd
dev=wren_0
lossy=
mode=
slow=
while :; do
	case ${1:-} in
	--rc) transport=rc ;;
	--rxe) transport=rc dev=rxe0 ;;
	--lossy) lossy=1 ;;
	--kill) mode="kill" ;;
	--hostile) mode=hostile ;;
	--slow) mode=slow slow=$2; shift ;;
	*) break ;;
	esac
	shift
done

if [ "$count" -lt 2 ]; then
	fail "swap needs 2 to 4 guests (scripts/vm --guests N --lan)"
	finish
fi

limit=$(opt_value timeout 600 "$@")
streams=$(opt_value streams 1 "$@")

dmesg_mark
check "LAN up" lan_up
if [ "$dev" = rxe0 ]; then
	nic=$(ip -o -4 addr show | awk '$4 ~ /^10\.0\.0\./ { print $2 }')
	check "rxe on $nic" sh -c \
		"modprobe rdma_rxe && rdma link add rxe0 type rxe netdev $nic"
	# rxe's GID 1 is the IPv4-mapped LAN address.
	gid=1
else
	check "modules load" load_wren
	gid=$WREN_GID
fi
check "swap_stress is built (make swap)" test -x "$stress"

case $mode in
kill) extra=--kill ;;
hostile) extra=--hostile ;;
slow) extra="--slow-ms $slow" ;;
*) extra= ;;
esac
# shellcheck disable=SC2086
out=$(timeout -k 10 $((limit + 120)) "$stress" --peers "$count" \
	--index "$index" --hub 10.0.0.1 --device "$dev" --gid-index "$gid" \
	--transport "$transport" $extra "$@" 2>&1)
rc=$?
printf '%s\n' "$out"

summary="^swap_stress: index $index sent [0-9]+ received [0-9]+ bytes [0-9]+ corrupt 0"
# The first partner that failed, and why, in the check's name: what a
# failed run's digest shows (scripts/vm).
why=$(printf '%s\n' "$out" | grep -m1 -E 'failed: |timed out|error: ' |
	sed 's/^swap_stress: index [0-9]*: //' | cut -c1-160)
if [ "$mode" = kill ] && [ "$index" = "$last" ]; then
	check "the last guest killed itself (status $rc)" test "$rc" -ne 0
elif [ "$mode" = hostile ] && [ "$index" = "$last" ]; then
	expect_match "the hostile guest scribbled over its blocks" \
		"scribbled over my blocks" "$out"
elif [ -n "$mode" ] && [ "$mode" != slow ]; then
	expect_match "everything intact; the $mode guest's $streams partner(s) alone failed" \
		"$summary failed 0 expected_failed $streams reads" "$out"
	check "swap_stress passed (exit status $rc)" test "$rc" -eq 0
else
	expect_match "every message once, intact, in order; no partner failed${why:+ ($why)}" \
		"$summary failed 0 expected_failed 0 reads" "$out"
	check "swap_stress passed (exit status $rc)" test "$rc" -eq 0
fi
if [ "$mode" = slow ] && [ "$index" != "$last" ]; then
	waits=$(printf '%s\n' "$out" | sed -n 's/^swap_stress: .* waits \([0-9]*\) in .*/\1/p')
	check "the senders waited for the slow receiver ($waits waits)" \
		test "${waits:-0}" -gt 0
fi

if [ "$dev" = wren_0 ]; then
	stats=$(rdma statistic show link wren_0/1 2>&1)
	printf '%s\n' "$stats"
	if [ -n "$lossy" ]; then
		retx=$(printf '%s\n' "$stats" | tr ' ' '\n' | awk '
			prev ~ /^retx_(timeout|fast|nack)$/ { n += $1 } { prev = $1 }
			END { print n + 0 }')
		check "the counters show retransmissions ($retx)" test "$retx" -gt 0
	fi
	check "modules unload" unload_wren
else
	check "rxe removed" rdma link delete rxe0
fi
check "the kernel logged no error or warning" dmesg_quiet
finish
