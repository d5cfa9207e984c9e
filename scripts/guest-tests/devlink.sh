#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# devlink.sh: "devlink dev info" shows the device's versions and serial
# number; the runtime parameter keep_alive_ms reads back the module
# parameter, refuses values out of range with a message, and a new value
# reaches the device (keep-alive events arrive at the new rate, counted in
# debugfs and in the health diagnose) and the watchdog (no keep-alive loss
# reported across the changes); the health reporters stay healthy.  The
# kernel logs no error or warning.
set -u
. "$WREN_TOP/scripts/guest-tests/lib.sh"

WREN_NO_IP=1

# param_value: keep_alive_ms as devlink shows it.
param_value() {
	devlink dev param show "pci/$pci" name keep_alive_ms |
		sed -n 's/.*cmode runtime value \([0-9]*\)$/\1/p'
}

# keep_alives_in SECONDS: keep-alive events counted over SECONDS.
keep_alives_in() {
	local a b

	a=$(cat "$dbg/keep_alives")
	sleep "$1"
	b=$(cat "$dbg/keep_alives")
	echo $((b - a))
}

# param_set VALUE: devlink's output and exit status.
param_set() {
	devlink dev param set "pci/$pci" name keep_alive_ms value "$1" \
		cmode runtime 2>&1
}

dmesg_mark
pci=$(wren_pci_addr)
dbg=/sys/kernel/debug/wren/$pci
check "modules load" load_wren

info=$(devlink dev info "pci/$pci" 2>&1)
printf '%s\n' "$info"
expect_match "info: driver" '^ +driver wren$' "$info"
expect_match "info: serial number" '^ +serial_number WREN-0$' "$info"
expect_match "info: board id, the PCI vendor and device" \
	'^ +board\.id 1234:5752$' "$info"
expect_match "info: board revision" '^ +board\.rev [0-9]+$' "$info"
expect_match "info: firmware, running" '^ +fw 1\.0\.0$' "$info"
expect_match "info: device interface version, running" \
	'^ +fw\.mgmt\.api 1\.0$' "$info"

show=$(devlink dev param show "pci/$pci" name keep_alive_ms 2>&1)
printf '%s\n' "$show"
expect_match "param: keep_alive_ms, driver-specific" \
	'^ +name keep_alive_ms type driver-specific$' "$show"
check "param: the module parameter's default, 1000 ($(param_value))" \
	[ "$(param_value)" = 1000 ]
n=$(keep_alives_in 4)
check "keep-alives at 1000 ms: 3 to 6 in 4 s ($n)" [ "$n" -ge 3 ] && [ "$n" -le 6 ]

for bad in 5 60001; do
	out=$(param_set $bad)
	rc=$?
	printf '%s\n' "$out"
	check "param: $bad refused (rc $rc)" [ $rc -ne 0 ]
done
expect_match "param: 5 refused with the reason" \
	'^Error: wren: keep_alive_ms below 10 \(other than 0, off\)\.$' \
	"$(param_set 5)"
expect_match "param: 60001 refused with the reason" \
	'^Error: wren: keep_alive_ms above 60000\.$' "$(param_set 60001)"
check "param: still 1000 ($(param_value))" [ "$(param_value)" = 1000 ]

check "param: set 200" param_set 200
check "param: reads back 200 ($(param_value))" [ "$(param_value)" = 200 ]
n=$(keep_alives_in 4)
# 20 in 4 s; the reads around the sleep take their time under TCG.
check "keep-alives at 200 ms: 15 to 26 in 4 s ($n)" [ "$n" -ge 15 ] && [ "$n" -le 26 ]
diag=$(devlink health diagnose "pci/$pci" reporter keep_alive 2>&1)
printf '%s\n' "$diag"
expect_match "diagnose: the new period, a keep-alive seen lately" \
	'^ +period_ms: 200 events: [0-9]+ last_seen_ms_ago: ([0-9]|[0-9][0-9]|[1-3][0-9][0-9]) missed_periods: 0$' \
	"$diag"

check "param: set 0 (off)" param_set 0
check "param: reads back 0 ($(param_value))" [ "$(param_value)" = 0 ]
sleep 1
n=$(keep_alives_in 3)
check "no keep-alive when off ($n)" [ "$n" -eq 0 ]

check "param: set 1000 again" param_set 1000
# Three silent periods would be a loss: the watchdog restarted cleanly.
sleep 4
check "no keep-alive lost across the changes ($(cat "$dbg/keep_alive_lost"))" \
	[ "$(cat "$dbg/keep_alive_lost")" -eq 0 ]
for r in fatal keep_alive admin; do
	expect_match "health: reporter $r healthy" '^ +state healthy error 0 ' \
		"$(devlink health show "pci/$pci" reporter $r 2>&1)"
done
check "modules unload" unload_wren

check "modules load with keep_alive_ms=300" load_wren keep_alive_ms=300
check "param: the module parameter's value, 300 ($(param_value))" \
	[ "$(param_value)" = 300 ]
check "modules unload" unload_wren

check "dmesg: no error or warning" dmesg_quiet
finish
