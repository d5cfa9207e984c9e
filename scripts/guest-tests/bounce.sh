#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bounce.sh: the adapter's user rings on a guest booted with swiotlb=force
# (scripts/vm --append swiotlb=force), where every streaming DMA mapping
# goes through a bounce buffer.  A ring the process and the device share
# must be coherent memory: a streaming mapping of it would have the
# device read and write the bounce buffer while the process polls its own
# pages, and the first ping-pong would hang.  Passes when a UD ping-pong
# over the loopback completes, and the modules unload.
set -u
. "$WREN_TOP/scripts/guest-tests/lib.sh"

check "swiotlb=force on the kernel command line" \
	grep -qw swiotlb=force /proc/cmdline
check "modules load" load_wren
check "UD ping-pong over the loopback" loopback_pingpong
check "modules unload" unload_wren
finish
