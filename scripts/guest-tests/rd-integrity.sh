#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# rd-integrity.sh [--lossy] [--spill] [ARGS...]: tools/rdtest's wren_rd_stress in every guest
# at once (scripts/vm --guests 2..4 --lan): each guest's RD queue pair
# sends to all the others, and each checks that every message arrived
# exactly once with every byte intact.  Guest 0 is the rendezvous hub,
# 10.0.0.1 on the LAN.  ARGS go to wren_rd_stress (--messages, --seed,
# --ordered, --max-size, --rdma-ops, --timeout...); give scripts/vm a
# --timeout that covers the run.  Passes when the summary shows no
# duplicate, loss or corruption and the program exits 0; with
# --rdma-ops N in ARGS, also when its RDMA summary shows every one-sided
# transaction done (N WRITEs and READs with each other guest, N / 2
# WRITE_WITH_IMM arrivals from each) and none corrupt or duplicated; with
# --lossy (a fabric that loses frames), also when the adapter's counters
# (rdma statistic) show the retransmissions that repaired the losses;
# with --spill (adapters with fewer context slots than peers, QEMU
# property tc-cache), also when they show contexts written to the
# transport-context table in host memory and read back, and debugfs
# shows the records.
set -u
. "$WREN_TOP/scripts/guest-tests/lib.sh"

index=${WREN_GUEST_INDEX:-0}
count=${WREN_GUEST_COUNT:-1}
stress=${WREN_BUILD:-$WREN_TOP/build}/rdtest/wren_rd_stress

lossy=
spill=
while :; do
	case ${1:-} in
	--lossy) lossy=1 ;;
	--spill) spill=1 ;;
	*) break ;;
	esac
	shift
done

if [ "$count" -lt 2 ]; then
	fail "rd-integrity needs 2 to 4 guests (scripts/vm --guests N --lan)"
	finish
fi

# The program's own --timeout (600 s unless given) ends a stuck run with
# a report of what is missing; this outer limit only catches a hang
# inside a verbs call.
limit=$(opt_value timeout 600 "$@")
rdma_ops=$(opt_value rdma-ops 0 "$@")

check "modules load" load_wren
check "LAN up" lan_up
check "wren_rd_stress is built (make -C tools/rdtest)" test -x "$stress"

out=$(timeout -k 10 $((limit + 120)) "$stress" --peers "$count" \
	--index "$index" --hub 10.0.0.1 --gid-index "$WREN_GID" "$@" 2>&1)
rc=$?
printf '%s\n' "$out"
expect_match "every message exactly once, every byte intact" \
	"^wren_rd_stress: index $index sent [0-9]+ received [0-9]+ bytes [0-9]+ duplicates 0 lost 0 corrupt 0 rnr_resends [0-9]+ in [0-9.]+ s$" \
	"$out"
if [ "$rdma_ops" -gt 0 ]; then
	ops=$((rdma_ops * (count - 1)))
	# The odd transactions write with immediate.
	imm=$(((count - 1) * (rdma_ops / 2)))
	expect_match "one-sided: $ops WRITEs and READs, $imm arrivals, all intact" \
		"^wren_rd_stress: index $index rdma writes $ops reads $ops imm_arrivals $imm bytes [1-9][0-9]* corrupt 0 duplicates 0$" \
		"$out"
fi
check "wren_rd_stress passed (exit status $rc)" test "$rc" -eq 0

stats=$(rdma statistic show link wren_0/1 2>&1)
printf '%s\n' "$stats"
expect_match "rdma statistic shows the transport counters" \
	'link wren_0/1 .*tx_msgs [0-9]+ .*rx_msgs [0-9]+' "$stats"
if [ -n "$lossy" ]; then
	retx=$(printf '%s\n' "$stats" | tr ' ' '\n' | awk '
		prev ~ /^retx_(timeout|fast|nack)$/ { n += $1 } { prev = $1 }
		END { print n + 0 }')
	check "the counters show retransmissions ($retx)" test "$retx" -gt 0
fi
if [ -n "$spill" ]; then
	counter() {
		printf '%s\n' "$stats" | tr ' ' '\n' |
			awk -v name="$1" 'prev == name { print $1 } { prev = $1 }'
	}
	spilled=$(counter ctx_spilled)
	restored=$(counter ctx_restored)
	check "contexts went to the host's table ($spilled) and came back ($restored)" \
		test "${spilled:-0}" -gt 0 -a "${restored:-0}" -gt 0
	check "no table record was unreadable or malformed" \
		test "$(counter tc_errors)" = 0
	table=$(cat /sys/kernel/debug/wren/*/tc_table 2>&1)
	printf '%s\n' "$table" | head -8
	expect_match "debugfs shows the records in use" \
		'^[0-9]+ (cached|spilled) 198\.18\.0\.[0-9]+ ' "$table"
fi

check "modules unload" unload_wren
finish
