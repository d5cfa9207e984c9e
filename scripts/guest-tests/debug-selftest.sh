#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debug-selftest.sh KODIR BUG...: guest I loads KODIR/dbg_selftest.ko with
# the I-th BUG (tools/debug-selftest), "none" for no module at all, and
# succeeds: what must fail its run is the debug kernel's report alone
# (scripts/check-debug-kernel checks which).
set -u
kodir=$1
shift
bugs=("$@")
i=${WREN_GUEST_INDEX:?not running under scripts/vm}
bug=${bugs[$i]:-none}

echo "debug-selftest: guest $i: $bug"
if [ "$bug" != none ]; then
	insmod "$kodir/dbg_selftest.ko" "bug=$bug" || exit 1
fi
# The reports are printed on the spot, the leak found by guest-init's
# scans once this has ended.
sleep 1
exit 0
