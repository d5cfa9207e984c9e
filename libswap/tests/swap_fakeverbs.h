/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The unit test's stand-in for libibverbs and libwren (swap_fakeverbs.c):
 * every endpoint of the test in one process, RD and RC QPs, one "wire"
 * queue of posted operations that the test may hold, run backwards, or
 * tamper with.
 */
#ifndef SWAP_FAKEVERBS_H
#define SWAP_FAKEVERBS_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

enum fake_op_type { FOP_SEND, FOP_WRITE, FOP_READ };

struct fake_op {
	enum fake_op_type type;
	uint32_t src_qpn, dst_qpn;
	uint32_t imm;			/* network order */
	bool with_imm;
	uint8_t *data;			/* SEND, WRITE: a copy of the payload */
	uint32_t len;
	uint64_t raddr;
	uint32_t rkey;
	uint64_t laddr;			/* READ: where the bytes go */
	uint64_t wr_id;
	/* set by fake_tamper: the operation fails with it, nothing done */
	enum ibv_wc_status fail;
};

/* Operations wait on the wire while set (the device is slow). */
extern bool fake_hold;
/* The wire runs newest first (the fabric reorders). */
extern bool fake_reverse;
/*
 * Called before an operation runs: may change it; true drops it (it
 * completes at the sender as if delivered).  For READs also after the
 * bytes are fetched (@fetched true), to change what comes back.
 */
extern bool (*fake_tamper)(struct fake_op *op, bool fetched);

/* Called whenever a CQ is polled (the test's background work). */
extern void (*fake_on_poll)(void);

struct ibv_pd *fake_pd(void);
/* Operations to @qpn fail as to a vanished QP; its own are lost. */
void fake_kill_qp(uint32_t qpn);
/* Run what is on the wire now. */
void fake_pump(void);
/* The most READs one QP has had outstanding against one rkey. */
unsigned int fake_read_max(void);
uint64_t fake_reads(void);
/* SENDs posted while a WRITE of the same QP waited on the wire. */
uint64_t fake_sends_behind_writes(void);
void fake_reset_counts(void);
unsigned int fake_wire_len(void);

#endif /* SWAP_FAKEVERBS_H */
