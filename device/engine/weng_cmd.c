// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: admin commands, by opcode.  The admin queue (weng_admin.c)
 * carries them without knowing what they mean; this file checks the
 * header every command shares and hands the body to the command's handler
 * (weng_cmd_dev.c, weng_cmd_obj.c).
 */
#include "weng_cmd.h"

static weng_cmd_fn *const handlers[] = {
	[WREN_ADMIN_GET_ATTR] = weng_cmd_get_attr,
	[WREN_ADMIN_GET_FEATURE] = weng_cmd_get_feature,
	[WREN_ADMIN_SET_FEATURE] = weng_cmd_set_feature,
	[WREN_ADMIN_CREATE_EQ] = weng_cmd_create_eq,
	[WREN_ADMIN_DESTROY_EQ] = weng_cmd_destroy_eq,
	[WREN_ADMIN_ALLOC_PD] = weng_cmd_alloc_pd,
	[WREN_ADMIN_DEALLOC_PD] = weng_cmd_dealloc_pd,
	[WREN_ADMIN_CREATE_CQ] = weng_cmd_create_cq,
	[WREN_ADMIN_DESTROY_CQ] = weng_cmd_destroy_cq,
	[WREN_ADMIN_CREATE_QP] = weng_cmd_create_qp,
	[WREN_ADMIN_MODIFY_QP] = weng_cmd_modify_qp,
	[WREN_ADMIN_QUERY_QP] = weng_cmd_query_qp,
	[WREN_ADMIN_DESTROY_QP] = weng_cmd_destroy_qp,
	[WREN_ADMIN_CREATE_AH] = weng_cmd_create_ah,
	[WREN_ADMIN_DESTROY_AH] = weng_cmd_destroy_ah,
	[WREN_ADMIN_REG_MR] = weng_cmd_reg_mr,
	[WREN_ADMIN_DEREG_MR] = weng_cmd_dereg_mr,
	[WREN_ADMIN_GET_STATS] = weng_cmd_get_stats,
	[WREN_ADMIN_SET_TC_TABLE] = weng_cmd_set_tc_table,
	[WREN_ADMIN_RESIZE_CQ] = weng_cmd_resize_cq,
	[WREN_ADMIN_REREG_MR] = weng_cmd_rereg_mr,
	[WREN_ADMIN_CREATE_SRQ] = weng_cmd_create_srq,
	[WREN_ADMIN_MODIFY_SRQ] = weng_cmd_modify_srq,
	[WREN_ADMIN_QUERY_SRQ] = weng_cmd_query_srq,
	[WREN_ADMIN_DESTROY_SRQ] = weng_cmd_destroy_srq,
	[WREN_ADMIN_ALLOC_COUNTER_SET] = weng_cmd_alloc_counter_set,
	[WREN_ADMIN_FREE_COUNTER_SET] = weng_cmd_free_counter_set,
	[WREN_ADMIN_BIND_COUNTER_SET] = weng_cmd_bind_counter_set,
	[WREN_ADMIN_QUERY_CTX] = weng_cmd_query_ctx,
};
static_assert(sizeof(handlers) / sizeof(handlers[0]) ==
	      WREN_ADMIN_OPCODE_LAST + 1, "a handler per opcode");

void weng_cmd_execute(struct weng *e, const struct wren_admin_cmd *cmd,
		      struct weng_cmd_status *st)
{
	uint8_t op = cmd->hdr.opcode;

	if (cmd->hdr.flags & ~WREN_ADMIN_FLAG_PHASE) {
		weng_reject(st, WREN_STATUS_BAD_PARAM,
			    offsetof(struct wren_admin_cmd_hdr, flags));
		return;
	}
	if (!weng_rsvd_zero(st, &cmd->hdr.rsvd, sizeof(cmd->hdr.rsvd),
			    offsetof(struct wren_admin_cmd_hdr, rsvd)))
		return;
	if (op >= sizeof(handlers) / sizeof(handlers[0]) || !handlers[op]) {
		weng_reject(st, WREN_STATUS_BAD_OPCODE, 0);
		return;
	}
	handlers[op](e, cmd->payload, st);
}
