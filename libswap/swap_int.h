/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * libswap's insides: the endpoint, its partners and the calls between
 * the files.  swap_ep.c makes and tears down the verbs objects,
 * swap_partner.c connects partners and fails them, swap_tx.c sends,
 * swap_rx.c receives, swap_poll.c handles completions, timers and
 * waiting.
 */
#ifndef SWAP_INT_H
#define SWAP_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "swap.h"
#include "swap_wire.h"

#define SWAP_EXPORT __attribute__((visibility("default")))

/* The Q_Key of SWAP's RD QPs. */
#define SWAP_QKEY_VALUE		0x53574150U
/* WRITE work requests one piece may take (swap_tx.c splits by max_rdma). */
#define SWAP_WRITE_WRS		64

/* A work request's id: what it is, for which partner, which buffer. */
enum swap_wr_kind {
	WR_SEND = 1,	/* an INLINE message or a WRITE's header */
	WR_WRITE,	/* a piece of a WRITE-placed message */
	WR_READ,	/* a partner's flow-control block */
	WR_RECV,
};

static inline uint64_t wr_id_make(enum swap_wr_kind k, uint32_t partner,
				  uint32_t idx)
{
	return (uint64_t)k << 56 | (uint64_t)(partner & 0xffffff) << 32 |
	       idx;
}
#define WR_KIND(id)	((unsigned int)((id) >> 56))
#define WR_PARTNER(id)	((uint32_t)((id) >> 32) & 0xffffff)
#define WR_IDX(id)	((uint32_t)(id))

enum partner_state { P_FREE, P_ADDED, P_CONNECTED, P_FAILED };

/* An INLINE send slot's SEND, kept until it completes. */
struct swap_txslot {
	bool busy;		/* posted (or to be posted again) */
	int partner;
	uint32_t gen;
	uint32_t len;
	bool resend;		/* RD receiver not ready: send it again */
	uint32_t backoff_ms;
	uint64_t at;		/* ... at this time (ns) */
	uint64_t first_at;	/* the first refusal */
};

/*
 * A piece's bytes in the staging ring (swap_ep.stage), from its copy
 * until every WRITE of it has completed.  A WRITE's work request id
 * names its record.
 */
struct swap_stage_rec {
	uint64_t end;		/* ring position just past it */
	int partner;
	uint32_t gen;
	uint32_t wrs_left;	/* its WRITEs not yet completed */
};

/* One received piece, in the order of its sequence number. */
enum slot_state {
	S_EMPTY,	/* nothing with this sequence number yet */
	S_ARRIVED,	/* arrived, not yet checked in order */
	S_READY,	/* checked, for the application */
	S_HELD,		/* the application has it */
	S_DONE,		/* released, waiting for those before it */
};

struct swap_slot {
	uint8_t state;
	bool assembled;		/* data is a malloc'd whole message */
	uint32_t rbuf;		/* the receive buffer it came in */
	uint32_t byte_len;
	struct swap_hdr h;
	uint64_t pool_end;	/* WRITE: the stream position after it */
	void *data;
	size_t len;
};

/* A message taken out of its slot and pool into the heap. */
struct swap_spilled {
	struct swap_spilled *next;
	size_t len;
	uint8_t *data;		/* copy[], or an assembled message's own */
	uint8_t copy[];
};

struct swap_partner {
	int id;
	enum partner_state state;
	uint32_t gen;		/* its requests apart from a former one's */
	int err;
	bool err_told;		/* swap_recv() has reported err */
	char why[160];

	/* RC: this partner's own QP.  RD: the endpoint's. */
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;
	uint32_t psn;
	bool rd_posted;		/* RD: its receive buffers are posted */
	struct ibv_ah *ah;	/* RD */

	/* What we publish to it and what it writes into. */
	uint8_t *fcb;
	struct ibv_mr *fcb_mr;
	uint8_t *pool;
	struct ibv_mr *pool_mr;

	struct swap_addr ra;	/* its address */

	/* Sending. */
	uint32_t tx_seq;	/* next sequence number */
	uint64_t tx_pos;	/* next pool stream position */
	uint32_t tx_released;	/* from its block: messages released */
	uint64_t tx_pool_released;
	bool read_busy;		/* our one READ of its block is out */
	bool read_wanted;	/* a send waits for room */
	uint64_t read_at;	/* no READ before (ns) */
	uint32_t backoff_us;
	uint64_t heard_at;	/* last sign of life (ns) */
	uint32_t writes_out;	/* its WRITE work requests not completed */
	enum ibv_wc_status write_refused;	/* a WRITE of this piece's */

	/* Receiving. */
	struct swap_slot *slots;	/* buf_count, by seq % buf_count */
	uint32_t rx_check;	/* next sequence number to check */
	uint32_t rx_deliver;	/* next to hand out */
	uint32_t rx_released;	/* all before it released */
	uint64_t rx_pos;	/* where the next piece must start */
	uint64_t rx_pool_released;
	uint8_t *asm_buf;	/* a message being assembled */
	uint64_t asm_total, asm_have;
	/* Messages copied aside (swap_rx_spill()), before any slot's. */
	struct swap_spilled *spill_head, *spill_last;
	uint64_t spill_bytes;
	uint32_t spill_count;
};

struct swap_ep {
	struct ibv_pd *pd;
	struct ibv_context *ctx;
	struct swap_ep_attr a;
	enum swap_transport tp;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	uint32_t cq_size;
	struct ibv_qp *qp;		/* RD */
	struct ibv_qp_ex *qpx;
	union ibv_gid gid;
	uint16_t lid;
	uint32_t max_rdma;		/* largest WRITE or READ */
	uint32_t max_send;		/* largest SEND */
	uint32_t max_sq;		/* send queue depth per QP */

	/* Receive buffers: max_partners * buf_count of rstride bytes. */
	uint8_t *rx_mem;
	struct ibv_mr *rx_mr;
	uint32_t rstride;
	/* INLINE send slots: send_depth of tstride bytes, a free stack. */
	uint8_t *tx_mem;
	struct ibv_mr *tx_mr;
	uint32_t tstride;
	uint32_t *tx_free;
	uint32_t ntx_free;
	struct swap_txslot *txs;	/* per slot: what it holds */
	uint32_t resends;		/* slots waiting to be sent again */
	/*
	 * WRITE staging, a ring: positions count up, stage_tail is where
	 * the oldest piece not completed starts; its records, rec_tail to
	 * rec_head (at most one per WRITE work request).
	 */
	uint8_t *stage;
	struct ibv_mr *stage_mr;
	size_t stage_size;
	uint64_t stage_head, stage_tail;
	struct swap_stage_rec stage_rec[SWAP_WRITE_WRS];
	uint32_t rec_head, rec_tail;
	uint32_t writes_out;		/* WRITE work requests, all partners */
	/* Where partners' blocks are READ into. */
	uint8_t *shadow;
	struct ibv_mr *shadow_mr;

	struct swap_partner *p;
	uint32_t rr;			/* swap_recv()'s round robin */
	struct swap_stats st;
	int fatal;			/* the endpoint itself failed */
};

uint64_t swap_now(void);
/* Zeroed, page-aligned memory, or NULL. */
void *swap_zalloc(size_t len);
void swap_fail(struct swap_ep *ep, struct swap_partner *p, int err,
	       const char *fmt, ...) __attribute__((format(printf, 4, 5)));
struct swap_partner *swap_partner_get(struct swap_ep *ep, int id);
void swap_qp_init_attr(struct swap_ep *ep, struct ibv_qp_init_attr_ex *ia,
		       enum ibv_qp_type type);

/* swap_poll.c */
int swap_poll(struct swap_ep *ep);
int swap_wait(struct swap_ep *ep, uint64_t deadline);
void swap_timers(struct swap_ep *ep);

/* swap_tx.c */
void swap_tx_done(struct swap_ep *ep, const struct ibv_wc *wc);
void swap_read_post(struct swap_ep *ep, struct swap_partner *p);
void swap_resend_due(struct swap_ep *ep, uint64_t now, uint64_t *next);
void swap_tx_drain(struct swap_ep *ep, struct swap_partner *p);

/* swap_rx.c */
int swap_rx_post(struct swap_ep *ep, struct swap_partner *p, uint32_t rbuf);
void swap_rx_arrived(struct swap_ep *ep, const struct ibv_wc *wc);
void swap_rx_reset(struct swap_ep *ep, struct swap_partner *p);
bool swap_rx_ready(struct swap_ep *ep, struct swap_partner *p);
void swap_rx_spill(struct swap_ep *ep);

#endif /* SWAP_INT_H */
