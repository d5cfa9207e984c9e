#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# faults.sh: faults injected into the device model mid-run (lib.sh's
# "fault", which scripts/vm carries to QEMU's monitor), each seen by the
# driver through its devlink health reporters:
#
#   keep-alive-stop    the reporter keep_alive reports the loss within a
#                      few seconds; cleared, keep-alives come again
#   delay=0x03:2000    SET_FEATURE (devlink's keep_alive_ms) times out,
#                      the reporter admin reports it, and the completion
#                      that comes two seconds later is counted as stale
#   link-down/link-up  the driver counts both link changes
#   fatal=2            the DMA fatal error: the reporter fatal in error
#                      with code 2 in its diagnose and dump, DEV_STS says
#                      fatal, the driver marks the device dead
#
# A request the device refuses comes back with its reason.  The modules
# unload after the fatal error, under a timeout.  The kernel logs nothing
# but the lines each fault is expected to bring.
#
# faults.sh with-rdma keeps wren_ib.ko loaded across the fatal error.
# Today that unload is not clean: wren.ko only marks the device dead
# (recovery is issue 17's item 2), every destroy fails with -EIO and
# ib_core warns (ib_mad_port_close, rdma_restrack_clean), which fails
# the run; so make check (stage guest-faults) unloads wren_ib.ko first,
# and the fatal error is wren.ko's alone.
set -u
. "$WREN_TOP/scripts/guest-tests/lib.sh"

WREN_NO_IP=1
with_rdma=
[ "${1:-}" = with-rdma ] && with_rdma=1

# errors REPORTER: its error count.
errors() {
	devlink health show "pci/$pci" reporter "$1" |
		sed -n 's/.* error \([0-9]*\) .*/\1/p'
}

# wait_errors REPORTER N SECONDS: the reporter reaches N errors in time.
wait_errors() {
	local tries=$(($3 * 10))

	while [ "$(errors "$1")" != "$2" ] && [ $tries -gt 0 ]; do
		sleep 0.1
		tries=$((tries - 1))
	done
	[ "$(errors "$1")" = "$2" ]
}

# wait_value FILE N SECONDS: a debugfs counter reaches N in time.
wait_value() {
	local tries=$(($3 * 10))

	while [ "$(cat "$1")" -lt "$2" ] && [ $tries -gt 0 ]; do
		sleep 0.1
		tries=$((tries - 1))
	done
	[ "$(cat "$1")" -ge "$2" ]
}

dmesg_mark
pci=$(wren_pci_addr)
dbg=/sys/kernel/debug/wren/$pci
check "modules load" load_wren
for r in fatal keep_alive admin; do
	expect_match "health: reporter $r healthy" '^ +state healthy error 0 ' \
		"$(devlink health show "pci/$pci" reporter $r 2>&1)"
done

# A refused request says why, and changes nothing.
out=$(fault bogus 2>&1)
rc=$?
printf '%s\n' "$out"
check "fault: an unknown request is refused (rc $rc)" [ $rc -ne 0 ]
expect_match "fault: with the device's reason" \
	"^fault bogus: wren: x-fault 'bogus': unknown fault " "$out"
expect_match "fault: fatal=0 is refused too" \
	"^fault fatal=0: wren: x-fault 'fatal=0': fatal code must be 1 to 255$" \
	"$(fault fatal=0 2>&1)"

# --- keep-alive stop -----------------------------------------------------
check "fault keep-alive-stop applied" fault keep-alive-stop
start=$(date +%s)
check "health: keep_alive reports the loss" wait_errors keep_alive 1 15
elapsed=$(($(date +%s) - start))
# Three silent periods of 1000 ms, then the watchdog's next run.
check "... within a few seconds (took $elapsed s)" [ "$elapsed" -le 8 ]
show=$(devlink health show "pci/$pci" reporter keep_alive 2>&1)
printf '%s\n' "$show"
expect_match "health: reporter keep_alive in error, with a dump" \
	'^ +state error error 1 recover 0 last_dump_date [0-9-]+ last_dump_time [0-9:]+ auto_dump true' \
	"$show"
dump=$(devlink health dump show "pci/$pci" reporter keep_alive 2>&1)
expect_match "dump: the event, 3000 ms silent" \
	'^ +reporter: keep_alive silent_ms: 3000$' "$dump"
check "debugfs: one keep-alive loss ($(cat "$dbg/keep_alive_lost"))" \
	[ "$(cat "$dbg/keep_alive_lost")" -eq 1 ]
check "fault clear applied" fault clear
seen=$(cat "$dbg/keep_alives")
check "keep-alives come again after clear" \
	wait_value "$dbg/keep_alives" $((seen + 2)) 10
diag=$(devlink health diagnose "pci/$pci" reporter keep_alive 2>&1)
expect_match "diagnose: no period missed now" \
	'^ +period_ms: 1000 events: [0-9]+ last_seen_ms_ago: [0-9]+ missed_periods: 0$' \
	"$diag"

# --- a late admin completion -----------------------------------------------
# SET_FEATURE (0x03) is what devlink's keep_alive_ms sends; the device
# executes it at once and posts its completion 2 s late, after the
# driver's 1000 ms timeout.
# devlink(8) sends nothing for the value already set: ask for another.
check "fault delay=0x03:2000 applied" fault delay=0x03:2000
out=$(devlink dev param set "pci/$pci" name keep_alive_ms value 500 \
	cmode runtime 2>&1)
rc=$?
printf '%s\n' "$out"
check "param set fails: its command timed out (rc $rc)" [ $rc -ne 0 ]
expect_match "the timeout is logged with the command" \
	'wren .*: admin command SET_FEATURE \(id 0x[0-9a-f]{4}\) timed out after 1000 ms$' \
	"$(dmesg)"
check "health: admin reports the timeout" wait_errors admin 1 10
dump=$(devlink health dump show "pci/$pci" reporter admin 2>&1)
expect_match "dump: the event names SET_FEATURE" \
	'^ +reporter: admin opcode: 3 command: SET_FEATURE cmd_id: [0-9]+ timeout_ms: 1000$' \
	"$dump"
check "the late completion arrives, counted as stale" \
	wait_value "$dbg/admin_stale_completions" 1 10
diag=$(devlink health diagnose "pci/$pci" reporter admin 2>&1)
printf '%s\n' "$diag"
expect_match "diagnose: one timeout, one stale completion" \
	'^ +admin_cmds: [0-9]+ admin_errors: 0 admin_timeouts: 1 admin_stale_completions: 1 ' \
	"$diag"
expect_match "diagnose: nothing outstanding, the device healthy" \
	'^ +dev_sts: 3 status: ready enabled sts_fatal_code: 0 dead: false fatal_code: 0 fatal: none$' \
	"$diag"
check "fault clear applied" fault clear
# The driver kept 1000 after the timeout; the device took 500.
for v in 500 1000; do
	check "param set $v works again" devlink dev param set "pci/$pci" \
		name keep_alive_ms value $v cmode runtime
done

# --- link down and up --------------------------------------------------------
links=$(cat "$dbg/link_changes")
check "fault link-down applied" fault link-down
check "fault link-up applied" fault link-up
check "the driver saw both link changes" \
	wait_value "$dbg/link_changes" $((links + 2)) 10

# --- fatal: host memory unreachable ------------------------------------------
[ -n "$with_rdma" ] ||
	check "wren_ib unloads before the fatal error" timeout 60 rmmod wren_ib
check "fault fatal=2 applied" fault fatal=2
check "health: fatal reports it" wait_errors fatal 1 10
diag=$(devlink health diagnose "pci/$pci" reporter fatal 2>&1)
printf '%s\n' "$diag"
expect_match "diagnose: DEV_STS fatal with code 2, the device dead" \
	'^ +dev_sts: 519 status: ready enabled fatal sts_fatal_code: 2 dead: true fatal_code: 2 fatal: host memory unreachable$' \
	"$diag"
dump=$(devlink health dump show "pci/$pci" reporter fatal 2>&1)
printf '%s\n' "$dump" | head -n 3
expect_match "dump: the event, fatal code 2" \
	'^ +reporter: fatal fatal_code: 2 fatal: host memory unreachable$' \
	"$dump"
expect_match "dmesg: the driver's line for it" \
	'wren [0-9a-f:.]+: device reported fatal error 2$' "$(dmesg)"
# A failed device sends no keep-alive either: the watchdog says so.
check "health: keep_alive reports the dead device's silence" \
	wait_errors keep_alive 2 15

start=$(date +%s)
[ -z "$with_rdma" ] ||
	check "wren_ib unloads after the fatal error (60 s at most)" \
		timeout 60 rmmod wren_ib
check "wren unloads after the fatal error (60 s at most)" \
	timeout 60 rmmod wren
echo "# unloading took $(($(date +%s) - start)) s"

# The expected lines: the keep-alive losses, the timeout and its stale
# completion, the fatal error, and the event queue wren.ko cannot
# destroy on a dead device when it unloads (today's driver: item 2 of
# issue 17 will reset the device instead).  Nothing else.
unexpected=$(dmesg_problems | tail -n +$((dmesg_seen + 1)) |
	grep -Ev -e '^\[ *[0-9.]+\] wren [0-9a-f:.]+: no keep-alive from the device for 3000 ms$' \
		-e '^\[ *[0-9.]+\] wren [0-9a-f:.]+: admin command SET_FEATURE \(id 0x[0-9a-f]{4}\) timed out after 1000 ms$' \
		-e '^\[ *[0-9.]+\] wren [0-9a-f:.]+: stale admin completion, id 0x[0-9a-f]{4}$' \
		-e '^\[ *[0-9.]+\] wren [0-9a-f:.]+: device reported fatal error 2$' \
		-e '^\[ *[0-9.]+\] wren [0-9a-f:.]+: destroy EQ [0-9]+ failed: -5$')
[ -z "$unexpected" ] || printf '%s\n' "$unexpected"
check "dmesg: nothing but the expected lines" [ -z "$unexpected" ]

finish
