#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# show.sh: load the drivers and show the adapter as a user sees it.
set -eu
. "$WREN_TOP/scripts/guest-tests/lib.sh"

load_wren
echo "\$ ibv_devinfo -v"
ibv_devinfo -v
echo "\$ rdma link"
rdma link
echo "\$ devlink dev info"
devlink dev info "pci/$(wren_pci_addr)"
unload_wren
