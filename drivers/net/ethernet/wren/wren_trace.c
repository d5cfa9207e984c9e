// SPDX-License-Identifier: GPL-2.0
/*
 * Wren core driver: where the trace events of wren_trace.h are defined.
 */
#define CREATE_TRACE_POINTS
#include "wren_trace.h"
