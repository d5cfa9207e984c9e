/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Wren core driver: trace events, under events/wren/ in tracefs
 * (Documentation/debugging.rst): the admin commands, with their outcome
 * and latency, the device's async events and its resets.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM wren

#if !defined(_WREN_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _WREN_TRACE_H

#include <linux/pci.h>
#include <linux/tracepoint.h>

#include "wren_dev.h"

/* A PCI function's name, an admin opcode's: both fit. */
#define WREN_TRACE_NAME		24

TRACE_EVENT(wren_admin_post,
	    TP_PROTO(const struct wren_dev *wdev, u8 opcode, u16 cmd_id),
	    TP_ARGS(wdev, opcode, cmd_id),
	    TP_STRUCT__entry(__array(char, dev, WREN_TRACE_NAME)
			     __array(char, op, WREN_TRACE_NAME)
			     __field(u16, cmd_id)),
	    TP_fast_assign(strscpy(__entry->dev, pci_name(wdev->pdev),
				   WREN_TRACE_NAME);
			   strscpy(__entry->op, wren_admin_opcode_name(opcode),
				   WREN_TRACE_NAME);
			   __entry->cmd_id = cmd_id;),
	    TP_printk("%s %s id=0x%04x", __entry->dev, __entry->op,
		      __entry->cmd_id)
);

/* @err: 0, the errno of the status, -ETIMEDOUT or -EIO (device dead). */
TRACE_EVENT(wren_admin_done,
	    TP_PROTO(const struct wren_dev *wdev, u8 opcode, u16 cmd_id,
		     u8 status, u32 ext_status, int err, u64 usecs),
	    TP_ARGS(wdev, opcode, cmd_id, status, ext_status, err, usecs),
	    TP_STRUCT__entry(__array(char, dev, WREN_TRACE_NAME)
			     __array(char, op, WREN_TRACE_NAME)
			     __field(u16, cmd_id)
			     __field(u8, status)
			     __field(u32, ext_status)
			     __field(int, err)
			     __field(u64, usecs)),
	    TP_fast_assign(strscpy(__entry->dev, pci_name(wdev->pdev),
				   WREN_TRACE_NAME);
			   strscpy(__entry->op, wren_admin_opcode_name(opcode),
				   WREN_TRACE_NAME);
			   __entry->cmd_id = cmd_id;
			   __entry->status = status;
			   __entry->ext_status = ext_status;
			   __entry->err = err;
			   __entry->usecs = usecs;),
	    TP_printk("%s %s id=0x%04x status=%u ext_status=%u err=%d %llu us",
		      __entry->dev, __entry->op, __entry->cmd_id, __entry->status,
		      __entry->ext_status, __entry->err, __entry->usecs)
);

/* Every entry of the async event queue (&enum wren_aeq_type). */
TRACE_EVENT(wren_async_event,
	    TP_PROTO(const struct wren_dev *wdev, u8 type, u32 info, u64 data),
	    TP_ARGS(wdev, type, info, data),
	    TP_STRUCT__entry(__array(char, dev, WREN_TRACE_NAME)
			     __field(u8, type)
			     __field(u32, info)
			     __field(u64, data)),
	    TP_fast_assign(strscpy(__entry->dev, pci_name(wdev->pdev),
				   WREN_TRACE_NAME);
			   __entry->type = type;
			   __entry->info = info;
			   __entry->data = data;),
	    TP_printk("%s type=%u info=0x%x data=%llu", __entry->dev,
		      __entry->type, __entry->info, __entry->data)
);

/* A reset of the device, and whether it came back ready. */
TRACE_EVENT(wren_reset,
	    TP_PROTO(const struct wren_dev *wdev, int err),
	    TP_ARGS(wdev, err),
	    TP_STRUCT__entry(__array(char, dev, WREN_TRACE_NAME)
			     __field(int, err)),
	    TP_fast_assign(strscpy(__entry->dev, pci_name(wdev->pdev),
				   WREN_TRACE_NAME);
			   __entry->err = err;),
	    TP_printk("%s err=%d", __entry->dev, __entry->err)
);

#endif /* _WREN_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE wren_trace
#include <trace/define_trace.h>
