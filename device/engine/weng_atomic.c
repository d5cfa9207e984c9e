// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: atomics (compare-and-swap, fetch-and-add) at the responder.
 *
 * An atomic is a read that changes what it reads: the requester posts it
 * from its send queue like an RDMA READ (weng_send.c, weng_read.c) with
 * its two operands as a 16-byte payload, and the answer is a READ_RESP
 * with the 8-byte value before the operation.  The responder checks it
 * whole like a READ (an RC QP only, the key's and the QP's remote atomic
 * right, 8 bytes, 8-byte aligned), keeps the operands in the responder
 * entry, and executes it when the QP's stream reaches it, so that it sees
 * every earlier WRITE.  The engine runs one thing at a time: an atomic is
 * atomic against every other atomic of this adapter (IBV_ATOMIC_HCA), not
 * against the host's own CPUs.  The remote value is a little-endian 64-bit
 * integer in guest memory; on the wire, operands and result are
 * big-endian.
 */
#include <string.h>

#include "weng_internal.h"

/* The operands arrive as the message's payload. */
int weng_atomic_place(struct weng_resp *r, uint32_t off, const void *buf,
		      uint32_t len)
{
	if (off > sizeof(r->atomic) || len > sizeof(r->atomic) - off) {
		r->failed = true;
		return -1;
	}
	memcpy(r->atomic + off, buf, len);
	return 0;
}

/*
 * The stream reached the atomic of @r: do it, and answer with the value
 * before it (or FAILED, if the memory went away meanwhile).
 */
void weng_atomic_execute(struct weng *e, struct weng_resp *r)
{
	const struct weng_qp *qp = weng_resp_qp(e, r);
	uint64_t operand = wren_wire_get64(r->atomic), swap = wren_wire_get64(r->atomic + 8);
	uint64_t old, new;
	__le64 mem;

	if (!qp || r->failed ||
	    weng_mr_read(e, qp->pdn, r->rkey, r->raddr, &mem, sizeof(mem),
			 WREN_MR_ACCESS_REMOTE_ATOMIC)) {
		r->failed = true;
		weng_read_execute(e, r);
		return;
	}
	old = wren_le64(mem);
	if (r->opcode == WREN_WIRE_OP_CMP_SWP)
		new = old == operand ? swap : old;
	else
		new = old + operand;
	mem = wren_to_le64(new);
	if (new != old &&
	    weng_mr_write(e, qp->pdn, r->rkey, r->raddr, &mem, sizeof(mem),
			  WREN_MR_ACCESS_REMOTE_ATOMIC))
		r->failed = true;
	wren_wire_put64(r->atomic, old);
	weng_read_execute(e, r);
}
