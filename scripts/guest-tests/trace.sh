#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# trace.sh: the drivers' trace events (Documentation/debugging.rst)
# between two guests of scripts/vm --fabric.  With the modules loaded and
# every event of wren and wren_ib enabled, the function is unbound from
# wren.ko and bound again (a reset, the admin commands of a probe, async
# events), the interface comes up and rping runs between the
# guests (QP state changes, memory registrations, CQ events); each kind
# of event must be in the trace, with what it says checked where it is
# known, and the kernel must log nothing.
set -u
. "$WREN_TOP/scripts/guest-tests/lib.sh"

i=${WREN_GUEST_INDEX:-0}
server=198.18.0.1
tr=/sys/kernel/tracing

dmesg_mark
WREN_NO_IP=1
check "modules load" load_wren
mountpoint -q $tr || mount -t tracefs nodev $tr
check "the events of wren and wren_ib enabled" sh -e -c "
	echo 0 >$tr/tracing_on
	echo >$tr/trace
	echo 4096 >$tr/buffer_size_kb
	echo 1 >$tr/events/wren/enable
	echo 1 >$tr/events/wren_ib/enable
	echo 1 >$tr/tracing_on"
pci=$(wren_pci_addr)
check "unbind and bind $pci again" sh -e -c "
	echo $pci >/sys/bus/pci/drivers/wren/unbind
	echo $pci >/sys/bus/pci/drivers/wren/bind"
check "wren_0 back" wait_for /sys/class/infiniband/wren_0
check "the interface up with its address" wren_ip_up

if [ "$i" -eq 0 ]; then
	out=$(timeout 120 rping -s -a $server -C 10 -V 2>&1)
	check "rping (server)" [ $? -eq 0 ]
else
	out=$(retry 60 timeout 120 rping -c -a $server -C 10 -V 2>&1)
	check "rping (client)" [ $? -eq 0 ]
fi
printf '%s\n' "$out" | tail -n 3
echo 0 >$tr/tracing_on
trace=$(grep -v '^#' $tr/trace)
printf '%s\n' "$trace" | awk '{ print $5 }' | sort | uniq -c
# The first two of each kind, for the reader.
printf '%s\n' "$trace" | awk '{ if (seen[$5]++ < 2) print }'

p='[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-9]'
expect_match "wren_reset: the rebind's reset, ready" \
	"wren_reset: $p err=0\$" "$trace"
expect_match "wren_admin_post: GET_ATTR posted" \
	"wren_admin_post: $p GET_ATTR id=0x[0-9a-f]{4}\$" "$trace"
expect_match "wren_admin_done: CREATE_QP completed, with its latency" \
	"wren_admin_done: $p CREATE_QP id=0x[0-9a-f]{4} status=0 ext_status=0 err=0 [0-9]+ us\$" \
	"$trace"
expect_match "wren_async_event: the async queue's events" \
	"wren_async_event: $p type=[0-9]+ info=0x[0-9a-f]+ data=[0-9]+\$" \
	"$trace"
expect_match "wren_ib_modify_qp: an RC QP to RTS" \
	"wren_ib_modify_qp: wren_0 qpn=[0-9]+ type=2 RTR -> RTS attr_mask=0x[0-9a-f]+ err=0\$" \
	"$trace"
expect_match "wren_ib_reg_mr: rping's buffers registered" \
	"wren_ib_reg_mr: wren_0 key=0x[0-9a-f]+ length=[1-9][0-9]* npages=[1-9][0-9]* access=0x[0-9a-f]+\$" \
	"$trace"
expect_match "wren_ib_cq_event: an armed CQ's event" \
	"wren_ib_cq_event: wren_0 cqn=[0-9]+\$" "$trace"
# Every admin command posted completed.
posted=$(printf '%s\n' "$trace" | grep -c 'wren_admin_post:')
done=$(printf '%s\n' "$trace" | grep -c 'wren_admin_done:')
check "every admin command posted completed ($posted, $done)" \
	test "$posted" -gt 0 -a "$posted" -eq "$done"

check "the kernel logged no error or warning" dmesg_quiet
finish
