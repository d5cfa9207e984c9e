#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# admin-timeout.sh: run with the device model's fault switch set to drop
# every ALLOC_PD completion (x-fault-drop-opcode=6).  Allocating a PD must
# fail with a timeout error, promptly, with a log line naming the command;
# the admin queue must keep working (the modules unload and load again,
# which takes several admin commands) and nothing may hang.
set -u
. "$WREN_TOP/scripts/guest-tests/lib.sh"

# The network interface would allocate a PD too: leave it down.
WREN_NO_IP=1

check "modules load" load_wren

start=$(date +%s)
out=$(timeout 30 ibv_ud_pingpong -d wren_0 -g 0 2>&1)
rc=$?
elapsed=$(($(date +%s) - start))
printf '%s\n' "$out"
check "PD allocation fails (rc $rc)" [ $rc -ne 0 ] && [ $rc -ne 124 ]
expect_match "the client reports the PD failure" "Couldn't allocate PD" "$out"
check "it fails within 5 s (took $elapsed s)" [ "$elapsed" -le 5 ]

log=$(dmesg)
expect_match "the timeout is logged with the command" \
	'wren .*ALLOC_PD.*timed out' "$log"

check "modules unload after the timeout" unload_wren
check "modules load again" load_wren
check "and unload again" unload_wren
check "no other command timed out" sh -c \
	'! dmesg | grep "timed out" | grep -v ALLOC_PD'

finish
