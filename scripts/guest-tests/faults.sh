#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# faults.sh: faults injected into the device model mid-run (lib.sh's
# "fault", which scripts/vm carries to QEMU's monitor), each seen by the
# driver through a devlink health reporter, and each recovered from:
#
#   keep-alive-stop    the reporter keep_alive reports the loss within a
#                      few seconds, and its recovery resets the device
#                      (which ends the fault, as a reset ends a hang)
#   delay=0x03:2000    SET_FEATURE (devlink's keep_alive_ms) times out;
#                      the reporter admin reports it and recovers; the
#                      late completion dies with the reset
#   link-down/link-up  the driver counts both link changes
#   fatal=2            the DMA fatal error, under load: ibv_asyncwatch
#                      gets IBV_EVENT_DEVICE_FATAL, an event-driven
#                      ibv_ud_pingpong pair and a polling one get errors
#                      and exit, the reporter fatal reports code 2 and
#                      recovers
#   devlink dev reload and a function-level reset (sysfs "reset"): the
#                      same path, asked for
#
# After each recovery wren_0 is registered again and a new
# ibv_ud_pingpong over the adapter's loopback works: an application that
# reopens the device goes on.  The recovery times (fence to device up)
# are printed.  A request the device refuses comes back with its
# reason.  The modules unload at the end; the kernel logs nothing but
# the lines each fault is expected to bring.
set -u
. "$WREN_TOP/scripts/guest-tests/lib.sh"

# at_least FILE N: a debugfs counter is N or more.
at_least() {
	[ "$(cat "$1")" -ge "$2" ]
}

# recovered REPORTER N: the reporter has recovered N times, is healthy,
# and wren_0 is back with its interface up and its GID.
recovered() {
	[ "$(health_count "$pci" "$1" recover)" = "$2" ] &&
		devlink health show "pci/$pci" reporter "$1" | grep -q 'state healthy' &&
		[ -e /sys/class/infiniband/wren_0 ]
}

# after_recovery WHAT REPORTER N: recovery N of REPORTER completes, the
# device works again for a reopened application; print the time.
after_recovery() {
	check "$1: reporter $2 recovers ($3)" wait_until 30 recovered "$2" "$3"
	check "$1: the GID is back" wren_gid_wait
	check "$1: a reopened ibv_ud_pingpong works" loopback_pingpong
	echo "# $1: $(dmesg | grep 'recovered: down for' | tail -n 1 |
		sed 's/.*recovered: //')"
}

dmesg_mark
pci=$(wren_pci_addr)
dbg=/sys/kernel/debug/wren/$pci
check "modules load" load_wren
for r in fatal keep_alive admin; do
	expect_match "health: reporter $r healthy" '^ +state healthy error 0 ' \
		"$(devlink health show "pci/$pci" reporter $r 2>&1)"
done
check "a first ibv_ud_pingpong works" loopback_pingpong

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
check "health: keep_alive reports the loss" \
	wait_until 15 eval '[ "$(health_count "$pci" keep_alive error)" = 1 ]'
elapsed=$(($(date +%s) - start))
# Three silent periods of 1000 ms, then the watchdog's next run.
check "... within a few seconds (took $elapsed s)" [ "$elapsed" -le 8 ]
after_recovery keep-alive keep_alive 1
dump=$(devlink health dump show "pci/$pci" reporter keep_alive 2>&1)
expect_match "dump: the event, 3000 ms silent" \
	'^ +reporter: keep_alive silent_ms: 3000$' "$dump"
check "debugfs: one keep-alive loss ($(cat "$dbg/keep_alive_lost"))" \
	[ "$(cat "$dbg/keep_alive_lost")" -eq 1 ]
seen=$(cat "$dbg/keep_alives")
check "keep-alives come again: the reset ended the fault" \
	wait_until 10 at_least "$dbg/keep_alives" $((seen + 2))
diag=$(devlink health diagnose "pci/$pci" reporter keep_alive 2>&1)
expect_match "diagnose: no period missed now" \
	'^ +period_ms: 1000 events: [0-9]+ last_seen_ms_ago: [0-9]+ missed_periods: 0$' \
	"$diag"

# --- a late admin completion -----------------------------------------------
# SET_FEATURE (0x03) is what devlink's keep_alive_ms sends; the device
# executes it at once and would post its completion 2 s late, after the
# driver's 1000 ms timeout.  devlink(8) sends nothing for the value
# already set: ask for another.
check "fault delay=0x03:2000 applied" fault delay=0x03:2000
out=$(devlink dev param set "pci/$pci" name keep_alive_ms value 500 \
	cmode runtime 2>&1)
rc=$?
printf '%s\n' "$out"
check "param set fails: its command timed out (rc $rc)" [ $rc -ne 0 ]
expect_match "the timeout is logged with the command" \
	'wren .*: admin command SET_FEATURE \(id 0x[0-9a-f]{4}\) timed out after 1000 ms$' \
	"$(dmesg)"
after_recovery "admin timeout" admin 1
dump=$(devlink health dump show "pci/$pci" reporter admin 2>&1)
expect_match "dump: the event names SET_FEATURE" \
	'^ +reporter: admin opcode: 3 command: SET_FEATURE cmd_id: [0-9]+ timeout_ms: 1000$' \
	"$dump"
sleep 2
check "the late completion died with the reset: none stale" \
	[ "$(cat "$dbg/admin_stale_completions")" -eq 0 ]
diag=$(devlink health diagnose "pci/$pci" reporter admin 2>&1)
printf '%s\n' "$diag"
expect_match "diagnose: the device up, not dead" \
	'^ +dev_sts: 3 status: ready enabled sts_fatal_code: 0 dead: false fatal_code: 0 fatal: none$' \
	"$diag"
expect_match "diagnose: two recoveries counted" \
	' recoveries: 2 recovery_failures: 0 last_recovery_ms: [0-9]+$' "$diag"
# The bring-up asked for the period in force, 1000 ms.
for v in 500 1000; do
	check "param set $v works again" devlink dev param set "pci/$pci" \
		name keep_alive_ms value $v cmode runtime
done

# --- link down and up --------------------------------------------------------
links=$(cat "$dbg/link_changes")
check "fault link-down applied" fault link-down
check "fault link-up applied" fault link-up
check "the driver saw both link changes" \
	wait_until 10 at_least "$dbg/link_changes" $((links + 2))

# --- fatal: host memory unreachable, under load ------------------------------
ibv_asyncwatch -d wren_0 >/tmp/async.out 2>&1 &
watch=$!
timeout 120 ibv_ud_pingpong -d wren_0 -g "$WREN_GID" -e -n 100000000 \
	>/tmp/load-server.out 2>&1 &
server=$!
sleep 1
timeout 120 ibv_ud_pingpong -d wren_0 -g "$WREN_GID" -e -n 100000000 \
	127.0.0.1 >/tmp/load-client.out 2>&1 &
client=$!
# And a pair that polls its CQ without events.
timeout 120 ibv_ud_pingpong -d wren_0 -g "$WREN_GID" -p 18516 -n 100000000 \
	>/tmp/poll-server.out 2>&1 &
pserver=$!
sleep 1
timeout 120 ibv_ud_pingpong -d wren_0 -g "$WREN_GID" -p 18516 -n 100000000 \
	127.0.0.1 >/tmp/poll-client.out 2>&1 &
pclient=$!
sleep 2
check "the load runs before the fault" kill -0 $client
check "the polling load too" kill -0 $pclient
check "fault fatal=2 applied" fault fatal=2
after_recovery fatal fatal 1
for p in $server $client $pserver $pclient; do
	check "ibv_ud_pingpong $p ended by itself, no hang" \
		wait_until 10 eval "! kill -0 $p 2>/dev/null"
done
# A watcher waits for events until it is told to stop.
kill $watch
wait $client
rc=$?
cat /tmp/load-client.out
check "the client got an error, not a timeout (rc $rc)" \
	[ $rc -ne 0 ] && [ $rc -ne 124 ]
wait $server
rc=$?
cat /tmp/load-server.out
check "so did the server (rc $rc)" [ $rc -ne 0 ] && [ $rc -ne 124 ]
# Polling, they learn it from the CQ's liveness word: the poll fails.
for p in $pclient $pserver; do
	wait $p
	rc=$?
	check "the polling ibv_ud_pingpong $p got an error (rc $rc)" \
		[ $rc -ne 0 ] && [ $rc -ne 124 ]
done
cat /tmp/poll-client.out
expect_match "its poll failed" '^poll CQ failed' "$(cat /tmp/poll-client.out)"
cat /tmp/async.out
# The driver's, at the fence; ib_core sends its own (port 0) when it
# disassociates the context.
expect_match "ibv_asyncwatch: IBV_EVENT_DEVICE_FATAL from the driver" \
	'^ +event_type IBV_EVENT_DEVICE_FATAL \(8\), port 1$' "$(cat /tmp/async.out)"
dump=$(devlink health dump show "pci/$pci" reporter fatal 2>&1)
expect_match "dump: the event, fatal code 2" \
	'^ +reporter: fatal fatal_code: 2 fatal: host memory unreachable$' \
	"$dump"
expect_match "dmesg: the driver's line for it" \
	'wren [0-9a-f:.]+: device reported fatal error 2$' "$(dmesg)"

# --- asked for: devlink dev reload, a function-level reset -------------------
before=$(cat "$dbg/recoveries")
check "devlink dev reload" devlink dev reload "pci/$pci"
check "reload: wren_0 back" wait_for /sys/class/infiniband/wren_0
check "reload: the GID is back" wren_gid_wait
check "reload: a reopened ibv_ud_pingpong works" loopback_pingpong
check "reload: no recovery counted for it" \
	[ "$(cat "$dbg/recoveries")" -eq "$before" ]
if [ -e "/sys/bus/pci/devices/$pci/reset" ]; then
	check "function-level reset (sysfs)" \
		sh -c "echo 1 > /sys/bus/pci/devices/$pci/reset"
	check "reset: wren_0 back" wait_for /sys/class/infiniband/wren_0
	check "reset: the GID is back" wren_gid_wait
	check "reset: a reopened ibv_ud_pingpong works" loopback_pingpong
else
	fail "the function offers no reset method"
fi

start=$(date +%s)
check "modules unload (60 s at most)" timeout 60 sh -c 'rmmod wren_ib && rmmod wren'
echo "# unloading took $(($(date +%s) - start)) s"

# The expected lines: the keep-alive loss, the timeout, the fatal error,
# each fence, what the RDMA stack says of a failed device.  Nothing else.
unexpected=$(dmesg_problems | tail -n +$((dmesg_seen + 1)) |
	grep -Ev -e '^\[ *[0-9.]+\] wren [0-9a-f:.]+: no keep-alive from the device for 3000 ms$' \
		-e '^\[ *[0-9.]+\] wren [0-9a-f:.]+: admin command SET_FEATURE \(id 0x[0-9a-f]{4}\) timed out after 1000 ms$' \
		-e '^\[ *[0-9.]+\] wren [0-9a-f:.]+: device reported fatal error 2$' \
		-e '^\[ *[0-9.]+\] wren [0-9a-f:.]+: device fenced: no more DMA until it is reset$' \
		-e '^\[ *[0-9.]+\] wren_ib\.ib wren\.rdma\.[0-9]+ wren_0: device failed: its users get IB_EVENT_DEVICE_FATAL$')
[ -z "$unexpected" ] || printf '%s\n' "$unexpected"
check "dmesg: nothing but the expected lines" [ -z "$unexpected" ]

finish
