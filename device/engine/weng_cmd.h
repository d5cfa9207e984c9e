/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Wren engine: what the admin command handlers share (weng_cmd*.c).  Every
 * field of a command is checked; a rejected field is named by its byte
 * offset in the command (plus one) in the extended status.
 */
#ifndef WENG_CMD_H
#define WENG_CMD_H

#include "weng_internal.h"

/* The offset of @field of a command body, in the command. */
#define WENG_BODY(type, field) \
	(sizeof(struct wren_admin_cmd_hdr) + offsetof(type, field))

/* Refuse a command; BAD_PARAM names the field's offset plus one. */
static inline int weng_reject(struct weng_cmd_status *st, uint8_t status,
			      size_t offset)
{
	st->status = status;
	st->ext_status = status == WREN_STATUS_BAD_PARAM ? offset + 1 : 0;
	return -1;
}

/*
 * Write a command's result to the host buffer of @len bytes at @addr,
 * truncated to it; false (and a DMA_ERROR status) if the host refuses.
 */
static inline bool weng_put_result(struct weng *e, uint64_t addr,
				   uint32_t len, const void *buf, size_t size,
				   struct weng_cmd_status *st)
{
	if (len > size)
		len = size;
	if (weng_dma_write(e, addr, buf, len)) {
		weng_reject(st, WREN_STATUS_DMA_ERROR, 0);
		return false;
	}
	return true;
}

/* Reserved bytes must be zero: true if they are, else refuse. */
static inline bool weng_rsvd_zero(struct weng_cmd_status *st,
				  const void *field, size_t len, size_t offset)
{
	const uint8_t *p = field;

	for (size_t i = 0; i < len; i++)
		if (p[i]) {
			weng_reject(st, WREN_STATUS_BAD_PARAM, offset + i);
			return false;
		}
	return true;
}

#define WENG_RSVD_OK(st, body, type, field) \
	weng_rsvd_zero(st, &(body)->field, sizeof((body)->field), \
		       WENG_BODY(type, field))

/* The handle of a DESTROY/DEALLOC/QUERY command, if it is well formed. */
static inline bool weng_cmd_handle(const void *body,
				   struct weng_cmd_status *st,
				   uint32_t *handle)
{
	const struct wren_cmd_destroy_obj *c = body;

	if (!WENG_RSVD_OK(st, c, struct wren_cmd_destroy_obj, rsvd))
		return false;
	*handle = wren_le32(c->handle);
	return true;
}

/*
 * The handlers, one per command and named after it; each returns 0, or -1
 * with the refusal in @st.
 */
typedef int weng_cmd_fn(struct weng *e, const void *body,
			struct weng_cmd_status *st);

/* weng_cmd_dev.c: the device, its event queues and PDs. */
weng_cmd_fn weng_cmd_get_attr;
weng_cmd_fn weng_cmd_get_feature;
weng_cmd_fn weng_cmd_set_feature;
weng_cmd_fn weng_cmd_get_stats;
weng_cmd_fn weng_cmd_create_eq;
weng_cmd_fn weng_cmd_destroy_eq;
weng_cmd_fn weng_cmd_alloc_pd;
weng_cmd_fn weng_cmd_dealloc_pd;
weng_cmd_fn weng_cmd_set_tc_table;
weng_cmd_fn weng_cmd_alloc_counter_set;
weng_cmd_fn weng_cmd_free_counter_set;
weng_cmd_fn weng_cmd_bind_counter_set;

/* weng_cmd_ctx.c: the device's view of an object. */
weng_cmd_fn weng_cmd_query_ctx;

/* weng_cmd_obj.c: the data-path objects. */
weng_cmd_fn weng_cmd_create_cq;
weng_cmd_fn weng_cmd_destroy_cq;
weng_cmd_fn weng_cmd_resize_cq;
weng_cmd_fn weng_cmd_create_qp;
weng_cmd_fn weng_cmd_modify_qp;
weng_cmd_fn weng_cmd_query_qp;
weng_cmd_fn weng_cmd_destroy_qp;
weng_cmd_fn weng_cmd_create_ah;
weng_cmd_fn weng_cmd_destroy_ah;
weng_cmd_fn weng_cmd_reg_mr;
weng_cmd_fn weng_cmd_dereg_mr;
weng_cmd_fn weng_cmd_rereg_mr;
weng_cmd_fn weng_cmd_create_srq;
weng_cmd_fn weng_cmd_modify_srq;
weng_cmd_fn weng_cmd_query_srq;
weng_cmd_fn weng_cmd_destroy_srq;

#endif /* WENG_CMD_H */
