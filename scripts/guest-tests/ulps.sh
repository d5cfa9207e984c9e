#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ulps.sh [--installed] [UDADDY-MESSAGES]: what runs over the kernel's
# connection manager, between two guests of scripts/vm --fabric, on one
# installation (install_wren first, unless --installed): the user-space
# programs of cm.sh (UDADDY-MESSAGES is its), then the kernel's NVMe over
# Fabrics of nvme.sh.  installed.sh runs it on its own installation.
set -u
. "$WREN_TOP/scripts/guest-tests/lib.sh"

if [ "${1:-}" = --installed ]; then
	shift
else
	check "make install, modprobe wren_ib, the interface up" install_wren
fi
check "the RDMA CM programs (cm.sh)" \
	"$WREN_TOP/scripts/guest-tests/cm.sh" --installed "$@"
check "NVMe over Fabrics, RDMA (nvme.sh)" \
	"$WREN_TOP/scripts/guest-tests/nvme.sh" --installed
finish
