#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smoke.sh MTU SPEED: the walking skeleton end to end in one guest: both
# modules load, the adapter shows in ibv_devinfo, rdma and devlink with the
# attributes the device model was given (MTU and link speed, passed by the
# host so that a changed device property must change the output), the
# port as RoCE v2 on the adapter's network interface (its IPv4 address a
# GID, its state the interface's), and the modules load and unload 20
# times.
set -u
. "$WREN_TOP/scripts/guest-tests/lib.sh"

mtu=${1:?usage: smoke.sh MTU SPEED}
speed=${2:?usage: smoke.sh MTU SPEED}
index=${WREN_GUEST_INDEX:-0}

check "modules load" load_wren

devinfo=$(ibv_devinfo -v -d wren_0 2>&1)
printf '%s\n' "$devinfo"
expect_match "ibv_devinfo lists wren_0" '^hca_id:[[:space:]]+wren_0$' "$devinfo"
expect_match "port is active" 'state:[[:space:]]+PORT_ACTIVE' "$devinfo"
expect_match "firmware version from the device" 'fw_ver:[[:space:]]+1\.0\.0$' "$devinfo"
expect_match "active MTU from the device" "active_mtu:[[:space:]]+$mtu " "$devinfo"
expect_match "link speed from the device" "active_speed:[[:space:]]+$speed" "$devinfo"
expect_match "GID $WREN_GID: the adapter's IPv4 address, RoCE v2" \
	"GID\\[ *$WREN_GID\\]:[[:space:]]+::ffff:198\\.18\\.0\\.$((index + 1)), RoCE v2" "$devinfo"
expect_match "node GUID from the MAC address" \
	'node_guid:[[:space:]]+5054:00ff:fe57:520[0-9]' "$devinfo"

rdma_dev=$(rdma dev 2>&1)
printf '%s\n' "$rdma_dev"
expect_match "rdma dev shows wren_0" '^[0-9]+: wren_0: node_type ca fw 1\.0\.0' "$rdma_dev"

rdma_link=$(rdma link 2>&1)
printf '%s\n' "$rdma_link"
expect_match "rdma link: port ACTIVE" '^link wren_0/1 state ACTIVE physical_state LINK_UP' "$rdma_link"
expect_match "rdma link: the port's network interface" \
	"^link wren_0/1 .* netdev $(wren_netdev)( |\$)" "$rdma_link"
ip link set "$(wren_netdev)" down
expect_match "the RoCE port is down with its interface" \
	'state:[[:space:]]+PORT_DOWN' "$(ibv_devinfo -d wren_0 2>&1)"
ip link set "$(wren_netdev)" up

pci=$(wren_pci_addr)
info=$(devlink dev info "pci/$pci" 2>&1)
printf '%s\n' "$info"
expect_match "devlink: driver" '^[[:space:]]+driver wren$' "$info"
expect_match "devlink: serial number" "^[[:space:]]+serial_number WREN-$index\$" "$info"
expect_match "devlink: firmware version" '^[[:space:]]+fw 1\.0\.0$' "$info"

check "modules unload" unload_wren

cycles=0
while [ $cycles -lt 20 ]; do
	load_wren || break
	[ -e /sys/class/infiniband/wren_0 ] || break
	unload_wren || break
	cycles=$((cycles + 1))
done
check "20 load/unload cycles ($cycles done)" [ $cycles -eq 20 ]
check "nothing left behind" sh -c '! lsmod | grep -q "^wren" &&
	[ ! -e /sys/class/infiniband/wren_0 ] && [ ! -e /sys/kernel/debug/wren ]'

finish
