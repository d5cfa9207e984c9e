// SPDX-License-Identifier: GPL-2.0
/*
 * Wren RDMA driver: where the trace events of wren_ib_trace.h are defined.
 */
#define CREATE_TRACE_POINTS
#include "wren_ib_trace.h"
