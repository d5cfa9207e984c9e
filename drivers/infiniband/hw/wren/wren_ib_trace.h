/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Wren RDMA driver: trace events, under events/wren_ib/ in tracefs
 * (Documentation/debugging.rst): QP state changes, CQ notifications and
 * memory registrations.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM wren_ib

#if !defined(_WREN_IB_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _WREN_IB_TRACE_H

#include <linux/tracepoint.h>
#include <rdma/ib_verbs.h>

#define wren_ib_qps_name(state)						\
	__print_symbolic(state, { IB_QPS_RESET, "RESET" },		\
			 { IB_QPS_INIT, "INIT" }, { IB_QPS_RTR, "RTR" },	\
			 { IB_QPS_RTS, "RTS" }, { IB_QPS_SQD, "SQD" },	\
			 { IB_QPS_SQE, "SQE" }, { IB_QPS_ERR, "ERR" })

/* A QP's modify_qp, as asked and as the device answered (@err). */
TRACE_EVENT(wren_ib_modify_qp,
	    TP_PROTO(const struct ib_qp *ibqp, enum ib_qp_state from,
		     enum ib_qp_state to, int attr_mask, int err),
	    TP_ARGS(ibqp, from, to, attr_mask, err),
	    TP_STRUCT__entry(__array(char, dev, IB_DEVICE_NAME_MAX)
			     __field(u32, qpn)
			     __field(int, type)
			     __field(int, from)
			     __field(int, to)
			     __field(int, attr_mask)
			     __field(int, err)),
	    TP_fast_assign(strscpy(__entry->dev, dev_name(&ibqp->device->dev),
				   IB_DEVICE_NAME_MAX);
			   __entry->qpn = ibqp->qp_num;
			   __entry->type = ibqp->qp_type;
			   __entry->from = from;
			   __entry->to = to;
			   __entry->attr_mask = attr_mask;
			   __entry->err = err;),
	    TP_printk("%s qpn=%u type=%d %s -> %s attr_mask=0x%x err=%d",
		      __entry->dev, __entry->qpn, __entry->type,
		      wren_ib_qps_name(__entry->from),
		      wren_ib_qps_name(__entry->to),
		      __entry->attr_mask, __entry->err)
);

/* An armed CQ's completion event, on its way to the CQ's handler. */
TRACE_EVENT(wren_ib_cq_event,
	    TP_PROTO(const struct ib_cq *ibcq, u32 cqn),
	    TP_ARGS(ibcq, cqn),
	    TP_STRUCT__entry(__array(char, dev, IB_DEVICE_NAME_MAX)
			     __field(u32, cqn)),
	    TP_fast_assign(strscpy(__entry->dev, dev_name(&ibcq->device->dev),
				   IB_DEVICE_NAME_MAX);
			   __entry->cqn = cqn;),
	    TP_printk("%s cqn=%u", __entry->dev, __entry->cqn)
);

/* A memory region registered (@npages 0: a fast-register one, invalid). */
TRACE_EVENT(wren_ib_reg_mr,
	    TP_PROTO(const struct ib_pd *ibpd, u32 key, u64 length, u32 npages,
		     int access),
	    TP_ARGS(ibpd, key, length, npages, access),
	    TP_STRUCT__entry(__array(char, dev, IB_DEVICE_NAME_MAX)
			     __field(u32, key)
			     __field(u64, length)
			     __field(u32, npages)
			     __field(int, access)),
	    TP_fast_assign(strscpy(__entry->dev, dev_name(&ibpd->device->dev),
				   IB_DEVICE_NAME_MAX);
			   __entry->key = key;
			   __entry->length = length;
			   __entry->npages = npages;
			   __entry->access = access;),
	    TP_printk("%s key=0x%x length=%llu npages=%u access=0x%x",
		      __entry->dev, __entry->key, __entry->length, __entry->npages,
		      __entry->access)
);

#endif /* _WREN_IB_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE wren_ib_trace
#include <trace/define_trace.h>
