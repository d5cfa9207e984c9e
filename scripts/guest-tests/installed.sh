#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# installed.sh: the installed layout (Documentation/installation.rst)
# between two guests, with the distribution's own binaries.  Each guest
# runs make install (into its throwaway overlay), loads the modules by
# name (modprobe wren_ib), and with an environment scrubbed of the
# private rdma-core prefix (guest-init sources scripts/rdma-env) checks
# that Debian's ibv_devices, ibv_devinfo and rdma see wren_0 with its port
# active, that the libwren they load is the installed one, and that
# Debian's ibv_ud_pingpong and ibv_rc_pingpong move data between the
# guests (the adapter's GID, the rendezvous over scripts/vm --lan; guest 0
# serves), that its rdmacm-utils, libfabric and qperf connect through the
# kernel's connection manager and NVMe over Fabrics works between the
# guests (ulps.sh), the kernel logging nothing.
# Then make uninstall: no provider, no module, no installed file left.
set -u
. "$WREN_TOP/scripts/guest-tests/lib.sh"

kver=$(uname -r)
libdir=/usr/lib/$(gcc -print-multiarch)
manifest=/var/lib/wren/install-manifest
iters=200

# re PATH: PATH as an extended regular expression matching itself (a
# Debian kernel release has a "+").
re() {
	printf '%s' "$1" | sed 's/[][\.*^$+?(){}|]/\\&/g'
}

# The private prefix the guest's environment points at, which nothing
# below may use.
private=$WREN_RDMA_PREFIX
case ${LD_LIBRARY_PATH:-} in
*"$private"*) pass "guest-init's environment has the private prefix (scrubbed below)" ;;
*) fail "guest-init's environment lacks the private prefix: the scrubbing proves nothing" ;;
esac

dmesg_mark
out=$(cd "$WREN_TOP" && clean make --no-print-directory install 2>&1)
rc=$?
printf '%s\n' "$out"
check "make install" [ $rc -eq 0 ]
check "make install wrote its manifest" [ -f "$manifest" ]
installed=$(awk '$1 == "file" || $1 == "link" { print $2 }' "$manifest" 2>/dev/null)
printf 'installed:\n%s\n' "$installed"
for f in "/lib/modules/$kver/updates/wren/wren.ko" \
	 "/lib/modules/$kver/updates/wren/wren_ib.ko" \
	 "$libdir/libibverbs/libwren-rdmav34.so" /etc/libibverbs.d/wren.driver \
	 /etc/modprobe.d/wren.conf "$libdir/wireshark/plugins/wren.lua"; do
	expect_match "installed $f" "^$(re "$f")\$" "$installed"
done

check "modprobe wren_ib" clean modprobe wren_ib
check "wren_0 registered" wait_for /sys/class/infiniband/wren_0
check "the adapter's interface up with its address" wren_ip_up
mods=$(lsmod | awk '{ print $1 }')
for m in wren wren_ib ib_uverbs rdma_ucm; do
	expect_match "modprobe wren_ib loaded $m" "^$m\$" "$mods"
done
expect_match "modinfo finds wren_ib in updates/wren" \
	"^$(re "/lib/modules/$kver/updates/wren/wren_ib.ko")\$" \
	"$(clean modinfo -n wren_ib 2>&1)"

expect_match "ibv_devices is Debian's" "^/usr/bin/ibv_devices\$" \
	"$(clean sh -c 'command -v ibv_devices')"
out=$(clean ldd /usr/bin/ibv_devinfo 2>&1)
printf '%s\n' "$out"
expect_match "ibv_devinfo links the system's libibverbs" \
	"libibverbs\.so\.1 => /(usr/)?lib/$(gcc -print-multiarch)/libibverbs\.so\.1 " "$out"

out=$(clean ibv_devices 2>&1)
printf '%s\n' "$out"
expect_match "ibv_devices lists wren_0" "^[[:space:]]+wren_0[[:space:]]" "$out"

# The provider the system's libibverbs loads: the installed plugin, and
# nothing of the private prefix.
out=$(clean LD_DEBUG=files ibv_devinfo -d wren_0 2>&1)
printf '%s\n' "$out" | grep -v -E 'LD_DEBUG|^[[:space:]]*[0-9]+:[[:space:]]*$' |
	grep -E 'libwren|libibverbs|hca_id|state:|port:'
expect_match "libibverbs loaded the installed libwren" \
	"file=$(re "$libdir/libibverbs/libwren-rdmav34.so") \[0\];[[:space:]]+dynamically loaded by /(usr/)?lib/$(gcc -print-multiarch)/libibverbs\.so\.1" "$out"
case $out in
*"$private"*) fail "nothing loaded from the private prefix $private" ;;
*) pass "nothing loaded from the private prefix" ;;
esac
out=$(printf '%s\n' "$out" | grep -v -E '^[[:space:]]*[0-9]+:')
expect_match "ibv_devinfo -d wren_0: hca_id" "^hca_id:[[:space:]]+wren_0\$" "$out"
expect_match "ibv_devinfo -d wren_0: port 1 PORT_ACTIVE" \
	"^[[:space:]]+state:[[:space:]]+PORT_ACTIVE \(4\)" \
	"$(printf '%s\n' "$out" | sed -n '/^[[:space:]]*port:[[:space:]]*1$/,/state:/p')"

out=$(clean rdma dev 2>&1)
printf '%s\n' "$out"
expect_match "rdma dev shows wren_0" "^[0-9]+: wren_0: " "$out"
out=$(clean rdma link 2>&1)
printf '%s\n' "$out"
expect_match "rdma link shows wren_0/1 ACTIVE" "^link wren_0/1 state ACTIVE " "$out"

check "LAN up" lan_up

size=2048
out=$(serve_or_connect clean timeout 120 ibv_ud_pingpong -d wren_0 -g "$WREN_GID" \
	-c -n $iters -s $size 2>&1)
printf '%s\n' "$out"
expect_match "Debian's ibv_ud_pingpong: $iters iterations of $size bytes" \
	"^$((iters * size * 2)) bytes in [0-9.]+ seconds" "$out"
# The server checks every buffer it received (-c).
case $out in
*"invalid data"*) fail "Debian's ibv_ud_pingpong: received data valid" ;;
*" bytes in "*) pass "Debian's ibv_ud_pingpong: received data valid" ;;
*) fail "Debian's ibv_ud_pingpong: received data valid (no data moved)" ;;
esac

size=65536
out=$(serve_or_connect clean timeout 120 ibv_rc_pingpong -d wren_0 -g "$WREN_GID" \
	-c -n $iters -s $size 2>&1)
printf '%s\n' "$out"
expect_match "Debian's ibv_rc_pingpong: $iters iterations of $size bytes" \
	"^$((iters * size * 2)) bytes in [0-9.]+ seconds" "$out"
# The server checks every buffer it received (-c).
case $out in
*"invalid data"*) fail "Debian's ibv_rc_pingpong: received data valid" ;;
*" bytes in "*) pass "Debian's ibv_rc_pingpong: received data valid" ;;
*) fail "Debian's ibv_rc_pingpong: received data valid (no data moved)" ;;
esac

# The distribution's RDMA CM programs and the kernel's NVMe over Fabrics
# on the layout (guest 0 serves).
check "the connection manager's users (ulps.sh)" \
	"$WREN_TOP/scripts/guest-tests/ulps.sh" --installed
check "the kernel logged no error or warning" dmesg_quiet

# Uninstall with the modules still loaded: wren_0 stays in the kernel,
# and without the provider the system's libibverbs must not list it.
out=$(cd "$WREN_TOP" && clean make --no-print-directory uninstall 2>&1)
rc=$?
printf '%s\n' "$out"
check "make uninstall" [ $rc -eq 0 ]
check "the manifest is gone" [ ! -e "$manifest" ]
left=
for f in $installed; do
	if [ -e "$f" ] || [ -L "$f" ]; then
		left="$left $f"
	fi
done
none_left=false
[ -n "$installed" ] && [ -z "$left" ] && none_left=true
check "no installed file left${left:+:$left}" $none_left
check "wren_0 still in the kernel" [ -e /sys/class/infiniband/wren_0 ]
out=$(clean ibv_devices 2>&1)
printf '%s\n' "$out"
if printf '%s\n' "$out" | grep -Eq '^[[:space:]]+wren_0[[:space:]]'; then
	fail "ibv_devices no longer lists wren_0"
else
	pass "ibv_devices no longer lists wren_0"
fi
out=$(clean modinfo -n wren_ib 2>&1)
printf '%s\n' "$out"
case $out in
*/updates/*) fail "modinfo no longer finds wren_ib" ;;
*"not found"*) pass "modinfo no longer finds wren_ib" ;;
*) fail "modinfo no longer finds wren_ib (unexpected: $out)" ;;
esac
check "modules unload" rmmod wren_ib wren
finish
