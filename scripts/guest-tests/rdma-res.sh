#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# rdma-res.sh [--lossy]: the rdma tool (iproute2) on a program that runs,
# in every guest at once (scripts/vm --guests 2 --lan, on a fabric).
# tools/rdtest's wren_rd_stress sends between the guests on an RD QP and
# lingers with its objects once done; meanwhile:
#
#  - `rdma res show` lists its QP (by number: Debian's iproute2 predates
#    the listing of driver QPs, see Documentation/rdma-driver.rst), CQs,
#    MRs, PD and context, with the driver's attributes, and `-r` dumps
#    the device's context of the QP and of its CQs;
#  - in "auto type on" mode ib_core bound the QP to a QP counter, whose
#    every counter equals what the port's counter grew by since before
#    the program started (the program's QP is the only one moving them);
#    with --lossy those show retransmissions;
#  - after it exits none of its objects or counters is left.
#
# A second, short run checks a manual bind and unbind, and
# ibv_srq_pingpong's SRQ is listed with its attributes.  The kernel must
# log no error or warning.
set -u
. "$WREN_TOP/scripts/guest-tests/lib.sh"

index=${WREN_GUEST_INDEX:-0}
count=${WREN_GUEST_COUNT:-1}
stress=${WREN_BUILD:-$WREN_TOP/build}/rdtest/wren_rd_stress
link=wren_0/1
counters=/sys/class/infiniband/wren_0/ports/1/hw_counters
out=/tmp/rdma-res.out

lossy=
[ "${1:-}" = --lossy ] && lossy=1

if [ "$count" -lt 2 ]; then
	fail "rdma-res needs 2 guests (scripts/vm --guests 2 --lan)"
	finish
fi

check "modules load" load_wren
check "LAN up" lan_up
check "wren_rd_stress is built (make -C tools/rdtest)" test -x "$stress"
dmesg_mark

# start_stress PORT ARGS...: wren_rd_stress in the background, its
# output in $out; the rendezvous port tells the two runs apart.
start_stress() {
	local port=$1

	shift
	"$stress" --peers "$count" --index "$index" --hub 10.0.0.1 \
		--port "$port" --gid-index "$WREN_GID" "$@" >"$out" 2>&1 &
	pid=$!
}

# wait_line REGEX: until the program printed a line matching it (120 s).
wait_line() {
	local tries=1200

	while [ $tries -gt 0 ]; do
		grep -Eq -- "$1" "$out" && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.1
		tries=$((tries - 1))
	done
	return 1
}

# ---- Objects and QP counters while the program runs -----------------
check "QP counters: auto mode by QP type" \
	rdma statistic qp set link "$link" auto type on
expect_match "the mode reads back" "mode qp auto type on" \
	"$(rdma statistic qp mode link "$link" 2>&1)"

before=$(rdma -j statistic show link "$link")
start_stress 18610 --messages 2000 --max-size 64K --rdma-ops 20 --linger 30
check "the program ran and lingers with its QP" wait_line ' lingering '
qpn=$(sed -n 's/.* lingering .* qpn \([0-9]*\)$/\1/p' "$out")
after=$(rdma -j statistic show link "$link")
qpstats=$(rdma -d -j statistic qp show link "$link")
# As a user reads them (Documentation/debugging.rst, "A session").
rdma statistic show link "$link"
rdma -d statistic qp show link "$link"

# -dd: the driver's attributes.
qp=$(rdma -dd res show qp link "$link" lqpn "${qpn:-0}" 2>&1)
printf '%s\n' "$qp"
expect_match "rdma res shows the RD QP with its driver attributes" \
	"lqpn $qpn type DRIVER state RTS .*comm wren_rd_stress.* drv_sq_pi [0-9]+ drv_sq_ci [0-9]+ drv_sq_inflight 0 .*drv_tx_msgs [1-9][0-9]* drv_rx_msgs [1-9][0-9]* drv_retx_pkts [0-9]+ drv_rnr_waits [0-9]+ (drv_tc [0-9]+ )?drv_peer 198\.18\.0\.[0-9]+" \
	"$qp"
# -r: the device's context, struct wren_qp_ctx, its QP number first.
raw=$(rdma -j -r res show qp link "$link" lqpn "${qpn:-0}" 2>&1)
printf '%s\n' "$raw"
check "rdma res -r dumps the device's context of the QP" test \
	"$(printf '%s\n' "$raw" | jq -c '.[0].data | [length, .[0] + 256 * .[1]]')" \
	= "[128,$qpn]"

cq=$(rdma -dd res show cq dev wren_0 2>&1)
printf '%s\n' "$cq"
expect_match "rdma res shows the program's CQs with their attributes" \
	"comm wren_rd_stress .*drv_depth [0-9]+ drv_pi [0-9]+ drv_ci [0-9]+ drv_armed [0-2] drv_overflows 0 drv_events [0-9]+" \
	"$cq"
# A CQ's context is struct wren_cq_ctx (its device number is not ib_core's).
raw=$(rdma -j -r res show cq dev wren_0 2>&1)
check "rdma res -r dumps the device's context of every CQ" test \
	"$(printf '%s\n' "$raw" | jq '[.[].data | select(length == 56)] | length')" \
	= "$(printf '%s\n' "$cq" | grep -c ' cqn ')"
mr=$(rdma -dd res show mr dev wren_0 2>&1)
printf '%s\n' "$mr"
expect_match "rdma res shows the program's MRs, pinned, with their page lists" \
	"comm wren_rd_stress drv_pinned_pages [1-9][0-9]* drv_pbl_pages [1-9][0-9]* drv_pbl_entries [1-9][0-9]* drv_page_shift [0-9]+ drv_valid 1" \
	"$mr"
expect_match "rdma res shows the program's PD" "comm wren_rd_stress" \
	"$(rdma res show pd dev wren_0 2>&1)"
expect_match "rdma res shows the program's context" "comm wren_rd_stress" \
	"$(rdma res show ctx dev wren_0 2>&1)"

printf '%s\n' "$qpstats"
expect_match "ib_core bound the QP to a QP counter" \
	"\"qp-type\":\"DRIVER\".*\"lqpn\":\[$qpn\]" "$qpstats"
# Every counter the QP counter shows, summed over the QP counters (one
# here), against what the port's grew by.
sums=$(jq -rn --argjson b "$before" --argjson a "$after" \
	--argjson q "$qpstats" '
	($q | map(keys) | add // [] | unique) as $names
	| $names[] | select(($b[0][.] | type) == "number" and . != "port")
	| "\(.) \([$q[][.] // 0] | add) \($a[0][.] - $b[0][.])"')
printf '%s\n' "$sums"
check "the QP counter has the QP counters of the list" \
	test "$(printf '%s\n' "$sums" | grep -c .)" -ge 20
mismatch=$(printf '%s\n' "$sums" | awk '$2 != $3')
check "each equals what the port's grew by${mismatch:+: $mismatch}" \
	test -z "$mismatch"
check "the QP counter's messages are the program's" \
	sh -c "printf '%s\n' \"\$1\" | grep -Eq '^tx_msgs [1-9]'" sh "$sums"
if [ -n "$lossy" ]; then
	retx=$(printf '%s\n' "$sums" |
		awk '$1 ~ /^retx_(timeout|fast|nack)$/ { n += $2 } END { print n + 0 }')
	check "the QP counter shows the retransmissions ($retx)" \
		test "$retx" -gt 0
fi

wait "$pid"
rc=$?
cat "$out"
check "wren_rd_stress passed (exit status $rc)" test "$rc" -eq 0
check "its QP is gone" test -z \
	"$(rdma res show qp link "$link" lqpn "$qpn" 2>/dev/null)"
check "and its CQs, MRs, PD and context" sh -c \
	'! rdma res show cq dev wren_0 | grep -q wren_rd_stress &&
	 ! rdma res show mr dev wren_0 | grep -q wren_rd_stress &&
	 ! rdma res show pd dev wren_0 | grep -q wren_rd_stress &&
	 ! rdma res show ctx dev wren_0 | grep -q wren_rd_stress'
check "and its QP counter" test "$(rdma -j statistic qp show link "$link")" = "[]"
check "the port's counters kept the QP counter's" sh -c \
	"[ \"\$(cat $counters/tx_msgs)\" -ge \"\$(printf '%s\n' \"\$1\" | jq '.[0].tx_msgs')\" ]" \
	sh "$after"

# ---- A manual bind -------------------------------------------------
check "QP counters: auto mode off" rdma statistic qp set link "$link" auto off
start_stress 18611 --messages 200 --max-size 4K --linger 10
check "the second run lingers" wait_line ' lingering '
qpn=$(sed -n 's/.* lingering .* qpn \([0-9]*\)$/\1/p' "$out")
check "no QP counter without auto mode" \
	test "$(rdma -j statistic qp show link "$link")" = "[]"
check "rdma statistic qp bind" \
	rdma statistic qp bind link "$link" lqpn "${qpn:-0}"
bound=$(rdma -d -j statistic qp show link "$link")
printf '%s\n' "$bound"
expect_match "the QP is in a counter of its own" "\"lqpn\":\[$qpn\]" "$bound"
cntn=$(printf '%s\n' "$bound" | jq '.[0].cntn')
check "rdma statistic qp unbind" \
	rdma statistic qp unbind link "$link" cntn "${cntn:-0}" lqpn "${qpn:-0}"
check "the counter is gone" \
	test "$(rdma -j statistic qp show link "$link")" = "[]"
wait "$pid"
rc=$?
check "the second run passed (exit status $rc)" test "$rc" -eq 0

# ---- An SRQ ----------------------------------------------------------
# ibv_srq_pingpong's server (guest 0) makes its SRQ before it listens.
srq_out=/tmp/rdma-res-srq.out
serve_or_connect timeout 120 ibv_srq_pingpong -d wren_0 -g "$WREN_GID" \
	-q 4 -n 2000 >"$srq_out" 2>&1 &
pid=$!
if [ "$index" -eq 0 ]; then
	# (iproute2 6.1 prints an SRQ's QPs where its owner belongs, and
	# no raw dump of it.)
	srq=
	tries=600
	while [ $tries -gt 0 ] && [ -z "$srq" ]; do
		srq=$(rdma -dd res show srq dev wren_0 2>&1 | grep ' drv_qps 4')
		[ -n "$srq" ] || sleep 0.1
		tries=$((tries - 1))
	done
	printf '%s\n' "$srq"
	expect_match "rdma res shows the SRQ with its driver attributes" \
		"type BASIC lqpn [0-9]+-[0-9]+ .*drv_depth [0-9]+ drv_pi [1-9][0-9]* drv_ci [0-9]+ drv_limit 0 drv_qps 4" \
		"$srq"
fi
wait "$pid"
rc=$?
tail -n 3 "$srq_out"
check "ibv_srq_pingpong passed (exit status $rc)" test "$rc" -eq 0

check "no kernel error or warning" dmesg_quiet
check "modules unload" unload_wren
finish
