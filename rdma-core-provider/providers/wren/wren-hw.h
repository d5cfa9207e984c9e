/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The device interface libwren speaks: the queue entries, completion
 * entries and doorbells of <linux/wren/wren_if.h>, with what that header
 * expects its user-space includers to provide (BIT and GENMASK, which
 * rdma-core's util/util.h defines; static_assert from <assert.h>).
 *
 * scripts/build-rdma-core copies include/linux/wren/wren_if.h, and the
 * wren_stats.h it includes, next to this file when it grafts the provider
 * into the rdma-core tree.
 */
#ifndef WREN_HW_H
#define WREN_HW_H

#include <assert.h>
#include <linux/types.h>

#include <util/util.h>

#include "wren_if.h"

#endif /* WREN_HW_H */
