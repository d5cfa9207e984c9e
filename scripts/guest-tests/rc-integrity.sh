#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# rc-integrity.sh [--lossy] [ARGS...]: tools/rdtest's wren_rc_stress in
# every guest at once (scripts/vm --guests 2..4 --lan): every two guests
# connect --qps RC queue pairs and run --ops random operations each way on
# each (SENDs, inline SENDs, WRITEs read back, READs, atomics), and each
# guest checks that every completion came back in order, every arrival
# exactly once and in order with every byte intact, every READ and atomic
# returned what it must, and that the atomic counters it keeps for the
# others (one per QP, one shared by all) end at the value their
# operations add up to.  Guest 0 is the rendezvous hub, 10.0.0.1 on the
# LAN.  ARGS go to wren_rc_stress (--qps, --ops, --srq, --seed,
# --max-size, --timeout...); give scripts/vm a --timeout that covers the
# run.  Passes when the summary shows every operation and arrival with
# none lost, duplicated, out of order or corrupt and the program exits 0;
# with --srq in ARGS, also when arrivals came through the shared receive
# queue; when the adapter's counters (rdma statistic) show fewer contexts
# opened than there are QPs (the QPs to one peer share its context); with
# --lossy (a fabric that loses frames), also when they show the
# retransmissions that repaired the losses.
set -u
. "$WREN_TOP/scripts/guest-tests/lib.sh"

index=${WREN_GUEST_INDEX:-0}
count=${WREN_GUEST_COUNT:-1}
stress=${WREN_BUILD:-$WREN_TOP/build}/rdtest/wren_rc_stress

lossy=
if [ "${1:-}" = --lossy ]; then
	lossy=1
	shift
fi

if [ "$count" -lt 2 ]; then
	fail "rc-integrity needs 2 to 4 guests (scripts/vm --guests N --lan)"
	finish
fi

# The program's own --timeout (600 s unless given) ends a stuck run with
# a report of what is missing; this outer limit only catches a hang
# inside a verbs call.
limit=$(opt_value timeout 600 "$@")
qps=$(opt_value qps 16 "$@")
ops=$(opt_value ops 500 "$@")
srq=
for a in "$@"; do
	[ "$a" = --srq ] && srq=1
done

check "modules load" load_wren
check "LAN up" lan_up
check "wren_rc_stress is built (make -C tools/rdtest)" test -x "$stress"

out=$(timeout -k 10 $((limit + 120)) "$stress" --peers "$count" \
	--index "$index" --hub 10.0.0.1 --gid-index "$WREN_GID" "$@" 2>&1)
rc=$?
printf '%s\n' "$out"
nqp=$((qps * (count - 1)))
total=$((nqp * ops))
expect_match "$total operations on $nqp RC QPs: none lost, duplicated, out of order or corrupt" \
	"^wren_rc_stress: index $index qps $nqp ops $total messages [1-9][0-9]* bytes [1-9][0-9]* lost 0 duplicates 0 out_of_order 0 corrupt 0 in [0-9.]+ s$" \
	"$out"
expect_match "every atomic counter here ends right ($nqp QPs' and the shared one)" \
	"^wren_rc_stress: index $index atomics checked [1-9][0-9]* swapped [1-9][0-9]* shared [1-9][0-9]* counters $((nqp + 1)); " \
	"$out"
if [ -n "$srq" ]; then
	expect_match "the odd QPs' arrivals came through the SRQ" \
		"^wren_rc_stress: index $index atomics .*; through the SRQ [1-9][0-9]*$" \
		"$out"
fi
check "wren_rc_stress passed (exit status $rc)" test "$rc" -eq 0

stats=$(rdma statistic show link wren_0/1 2>&1)
printf '%s\n' "$stats"
expect_match "rdma statistic shows the transport counters" \
	'link wren_0/1 .*tx_msgs [0-9]+ .*rx_msgs [0-9]+' "$stats"
# RC QPs to one peer share its context: a context each would have opened
# at least one per QP.
ctx=$(printf '%s\n' "$stats" | grep -oE ' ctx_created [0-9]+' | awk '{ print $2 }')
check "the $nqp RC QPs shared the contexts to the $((count - 1)) peers (${ctx:-?} opened)" \
	test "${ctx:-$nqp}" -lt "$nqp"
if [ -n "$lossy" ]; then
	# Repairs of losses: after a timeout, a gap or a trimmed packet.
	retx=$(printf '%s\n' "$stats" |
		grep -oE 'retx_(timeout|fast|nack) [0-9]+' |
		awk '{ n += $2 } END { print n + 0 }')
	check "the counters show retransmissions ($retx)" test "$retx" -gt 0
fi

check "modules unload" unload_wren
finish
