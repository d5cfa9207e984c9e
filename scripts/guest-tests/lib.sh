# SPDX-License-Identifier: GPL-2.0
# Helpers for the scripts that run inside a guest (see scripts/vm).
# Every check prints "ok - what" or "not ok - what" and a failed check
# makes the script exit non-zero at the end.

: "${WREN_TOP:?not running under scripts/vm}"
WREN_KMOD=${WREN_BUILD:-$WREN_TOP/build}/kmod/$(uname -r)
failures=0

pass() {
	echo "ok - $*"
}

fail() {
	echo "not ok - $*"
	failures=$((failures + 1))
}

# check WHAT COMMAND...: run COMMAND, pass or fail on its exit status.
check() {
	local what=$1

	shift
	if "$@"; then pass "$what"; else fail "$what"; fi
}

# expect_match WHAT REGEX TEXT: pass if TEXT has a line matching REGEX.
expect_match() {
	if printf '%s\n' "$3" | grep -Eq -- "$2"; then
		pass "$1"
	else
		fail "$1 (no line matches /$2/)"
	fi
}

wait_for() {
	local tries=50

	while [ $tries -gt 0 ]; do
		[ -e "$1" ] && return 0
		sleep 0.1
		tries=$((tries - 1))
	done
	return 1
}

load_wren() {
	modprobe ib_uverbs &&
		insmod "$WREN_KMOD/drivers/net/ethernet/wren/wren.ko" "$@" &&
		insmod "$WREN_KMOD/drivers/infiniband/hw/wren/wren_ib.ko" &&
		wait_for /sys/class/infiniband/wren_0
}

unload_wren() {
	rmmod wren_ib && rmmod wren
}

# The PCI address of the (first) Wren function.
wren_pci_addr() {
	grep -l 0x5752 /sys/bus/pci/devices/*/device | head -n 1 | xargs dirname |
		xargs basename
}

finish() {
	if [ "$failures" -eq 0 ]; then
		echo "all checks passed"
		exit 0
	fi
	echo "$failures checks failed"
	exit 1
}
