#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# admin-timeout.sh: run with the device model's fault switch set to drop
# every ALLOC_PD completion (x-fault-drop-opcode=6), a fault that lasts.
# The MAD agent's PD, when wren_0 registers, times out: the command is
# logged, the device fenced, and the devlink health reporter "admin"
# reports it and tries to recover the device; whose bring-up fails the
# same way, which the recovery reports as failed; the second report
# comes within the reporter's grace period and is not recovered: the
# reporter stays in error, the device fenced, and a user's PD fails at
# once with an error instead of waiting.  Its diagnose
# shows the device's state and its dump the rings, the transport-context
# table and the counters.  Once the fault is cleared, "devlink health
# recover" brings the device back and a ping-pong works; the modules
# unload and load again, and nothing hangs.  The kernel logs nothing but
# the expected lines.
set -u
. "$WREN_TOP/scripts/guest-tests/lib.sh"

# The network interface would allocate a PD too: leave it down.
WREN_NO_IP=1

dmesg_mark
pci=$(wren_pci_addr)
check "ib_uverbs loads" modprobe ib_uverbs
check "wren.ko loads" insmod "$WREN_KMOD/drivers/net/ethernet/wren/wren.ko"
show=$(devlink health show "pci/$pci" reporter admin 2>&1)
printf '%s\n' "$show"
expect_match "devlink health: reporter admin healthy, no error yet" \
	'^ +state healthy error 0 recover 0' "$show"

# ib_core's MAD agent allocates a PD when the device registers: that is
# the first timeout and recovery, and the second timeout, left alone.
check "wren_ib.ko loads" insmod "$WREN_KMOD/drivers/infiniband/hw/wren/wren_ib.ko"
check "wren_0 registers" wait_for /sys/class/infiniband/wren_0
# The reporter reports from a work item, a moment after the log line.
check "devlink health: two admin errors" \
	wait_until 5 eval '[ "$(health_count "$pci" admin error)" = 2 ]'
show=$(devlink health show "pci/$pci" reporter admin 2>&1)
printf '%s\n' "$show"
expect_match "devlink health: reporter admin in error, not recovered, with a dump" \
	"^ +state error error 2 recover 0 last_dump_date [0-9-]+ last_dump_time [0-9:]+ grace_period 60000 auto_recover true auto_dump true" \
	"$show"

# What opening the device costs a program (seconds on the debug
# kernel), against which "at once" is measured: a PD sent to a device
# that is not fenced would wait for the admin timeout (1 s) on top.
start=$(date +%s%N)
ibv_devinfo -d wren_0 >/dev/null 2>&1
base=$((($(date +%s%N) - start) / 1000000))
start=$(date +%s%N)
out=$(timeout 30 ibv_ud_pingpong -d wren_0 -g 0 2>&1)
rc=$?
elapsed=$((($(date +%s%N) - start) / 1000000))
printf '%s\n' "$out"
check "PD allocation fails (rc $rc)" [ $rc -ne 0 ] && [ $rc -ne 124 ]
expect_match "the client reports the PD failure" "Couldn't allocate PD" "$out"
check "it fails at once: the device is fenced (took $elapsed ms, opening $base ms)" \
	[ "$elapsed" -lt $((base + 900)) ]

log=$(dmesg)
expect_match "the timeout is logged with the command" \
	'wren .*ALLOC_PD.*timed out' "$log"
expect_match "the failed recovery is logged" \
	'wren .*: recovery failed: -5; the device stays down$' "$log"

dbg=/sys/kernel/debug/wren/$pci
diag=$(devlink health diagnose "pci/$pci" reporter admin 2>&1)
printf '%s\n' "$diag"
# Fenced, the device finds host memory unreachable if it tries: DEV_STS
# may say so (2), though no fatal event can reach the driver.
expect_match "diagnose: DEV_STS decoded, the device fenced" \
	'^ +dev_sts: [0-9]+ status: ready enabled (fatal )?sts_fatal_code: (0|2) dead: true fatal_code: 0 fatal: none$' \
	"$diag"
expect_match "diagnose: the admin queue, nothing outstanding" \
	'^ +depth: 32 head: [0-9]+ tail: [0-9]+ cq_head: [0-9]+ outstanding: 0 timeout_ms: 1000 polled: false$' \
	"$diag"
expect_match "diagnose: the async event queue's head" \
	'^ +depth: 64 head: [0-9]+$' "$diag"
expect_match "diagnose: the keep-alive" \
	'^ +period_ms: 1000 events: [0-9]+ last_seen_ms_ago: [0-9]+ missed_periods: [0-9]+$' \
	"$diag"
expect_match "diagnose: the driver's counters, timeouts as in debugfs" \
	"^ +admin_cmds: $(cat "$dbg/admin_cmds") admin_errors: 0 admin_timeouts: $(cat "$dbg/admin_timeouts") admin_stale_completions: 0 " \
	"$diag"
expect_match "diagnose: one recovery, failed" \
	' recoveries: 0 recovery_failures: 1 last_recovery_ms: 0$' "$diag"

# The stored dump is the first report's: the MAD agent's ALLOC_PD.
first=$(dmesg | sed -n 's/.*ALLOC_PD (id 0x\([0-9a-f]*\)) timed out.*/\1/p' |
	head -n 1)
dump=$(devlink health dump show "pci/$pci" reporter admin 2>&1)
printf '%s\n' "$dump"
expect_match "dump: the event, with the first timeout's command id (0x$first)" \
	"^ +reporter: admin opcode: 6 command: ALLOC_PD cmd_id: $((0x$first)) timeout_ms: 1000$" \
	"$dump"
expect_match "dump: the admin queue ring" \
	'^ +name: admin_queue id: 0 depth: 32 head: [0-9]+ tail: [0-9]+$' "$dump"
expect_match "dump: the admin completion ring" \
	'^ +name: admin_cq id: 0 depth: 32 head: [0-9]+ tail: [0-9]+$' "$dump"
expect_match "dump: the async event ring" \
	'^ +name: async_events id: 0 depth: 64 head: [0-9]+ tail: [0-9]+$' "$dump"
expect_match "dump: an event queue" \
	'^ +name: eq id: [0-9]+ depth: 256 head: [0-9]+ tail: [0-9]+$' "$dump"
expect_match "dump: the transport-context table" \
	'^ +records: 4096 record_size: 64$' "$dump"
expect_match "dump: its records in use" \
	'^ +records_in_use: 0 records_shown: 0$' "$dump"
expect_match "dump: the counters" \
	'^ +admin_cmds: [0-9]+ admin_errors: 0 admin_timeouts: 1 ' "$dump"
for r in fatal keep_alive; do
	expect_match "devlink health: reporter $r healthy" \
		"^ +state healthy error 0 " \
		"$(devlink health show "pci/$pci" reporter $r 2>&1)"
done

# Fixed, the device comes back when asked, and works.
check "fault clear applied" fault clear
check "devlink health recover" devlink health recover "pci/$pci" reporter admin
expect_match "devlink health: reporter admin healthy, recovered" \
	'^ +state healthy error 2 recover 1 ' \
	"$(devlink health show "pci/$pci" reporter admin 2>&1)"
check "wren_0 is back" wait_for /sys/class/infiniband/wren_0
check "the interface up, with its GID" wren_ip_up
check "ibv_ud_pingpong runs on the recovered device" loopback_pingpong

check "modules unload after the recovery" unload_wren
check "modules load again" load_wren
check "and unload again" unload_wren
check "no other command timed out" sh -c \
	'! dmesg | grep "timed out" | grep -v ALLOC_PD'

# The expected lines: each timeout and fence, what the RDMA stack says of
# the MAD agent's PD and of the failed device.  Nothing else.
unexpected=$(dmesg_problems | tail -n +$((dmesg_seen + 1)) |
	grep -Ev -e '^\[ *[0-9.]+\] wren [0-9a-f:.]+: admin command ALLOC_PD \(id 0x[0-9a-f]{4}\) timed out after 1000 ms$' \
		-e '^\[ *[0-9.]+\] wren [0-9a-f:.]+: device fenced: no more DMA until it is reset$' \
		-e '^\[ *[0-9.]+\] wren [0-9a-f:.]+: recovery failed: -5; the device stays down$' \
		-e '^\[ *[0-9.]+\] wren_ib\.ib wren\.rdma\.[0-9]+ wren_0: device failed: its users get IB_EVENT_DEVICE_FATAL$' \
		-e '^\[ *[0-9.]+\] wren_ib\.ib wren\.rdma\.[0-9]+ wren_0: alloc_pd failed: -5$' \
		-e '^\[ *[0-9.]+\] wren_ib\.ib wren\.rdma\.[0-9]+ wren_0: alloc_pd failed: -110$' \
		-e "^\\[ *[0-9.]+\\] infiniband wren_0: Couldn't create ib_mad PD$" \
		-e "^\\[ *[0-9.]+\\] infiniband wren_0: Couldn't open port 1$")
[ -z "$unexpected" ] || printf '%s\n' "$unexpected"
check "dmesg: nothing but the expected lines" [ -z "$unexpected" ]

finish
