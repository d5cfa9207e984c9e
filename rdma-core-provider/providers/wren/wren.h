/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * libwren's objects, each wrapping its libibverbs counterpart, and the
 * small helpers the control path and the data path share.
 *
 * Who writes what, on the data path:
 * - a send queue's producer index belongs to the threads that post (under
 *   the send queue's lock), its consumer index to the threads that poll
 *   its send CQ (under that CQ's lock);
 * - a receive slot is marked busy by the posting thread (under the
 *   receive queue's lock) and freed by the thread that polls its
 *   completion (under the receive CQ's lock).
 * The two sides meet only through release/acquire atomics, so posting and
 * polling never take each other's locks.  The control path takes them in
 * one order: a reset the queue locks, then the CQ locks; a destruction
 * the context's QP table mutex, then the CQ locks.
 */
#ifndef WREN_H
#define WREN_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/driver.h>
#include <util/compiler.h>
#include <util/udma_barrier.h>
#include <util/util.h>

#include "wren-abi.h"
#include "wren-hw.h"

/**
 * struct wren_device - one Wren RDMA device found in sysfs
 * @vdev: libibverbs' device
 * @page_size: the system page size, the granule of every mapping
 */
struct wren_device {
	struct verbs_device vdev;
	size_t page_size;
};

/*
 * QP numbers are 24 bits.  The context finds a QP by number (a completion
 * names only its QP number) through a two-level table: leaves of 4096 QPs,
 * allocated when first needed and kept until the context goes, so that a
 * poller can read the table without a lock.
 */
#define WREN_QPN_BITS		24
#define WREN_QP_LEAF_SHIFT	12
#define WREN_QP_LEAF_SIZE	(1U << WREN_QP_LEAF_SHIFT)
#define WREN_QP_LEAVES		(1U << (WREN_QPN_BITS - WREN_QP_LEAF_SHIFT))

/*
 * Ring depths the index arithmetic allows.  Work queue doorbells carry the
 * producer index modulo 2^16, the CQ doorbell the consumer index modulo
 * 2^24; the device can tell a full ring from an empty one only if the
 * depth is below the modulus.  The kernel gives the depths; these bound
 * what the provider believes.
 */
#define WREN_WQ_LOG_DEPTH_LIMIT	15
#define WREN_CQ_LOG_DEPTH_LIMIT	23

struct wren_qp;

struct wren_qp_leaf {
	_Atomic(struct wren_qp *) qp[WREN_QP_LEAF_SIZE];
};

/**
 * struct wren_context - a user context opened on a device
 * @ibvctx: libibverbs' context
 * @db_page: this context's doorbell page, mapped from the device
 * @db_page_size: bytes mapped at @db_page
 * @max_sq_depth: work requests per send queue
 * @max_rq_depth: work requests per receive queue
 * @max_sge: scatter/gather entries per send work request
 * @max_inline: inline data bytes per send
 * @max_recv_sge: scatter/gather entries per receive work request
 * @max_msg_size: largest RD message in bytes
 * @max_cq_depth: entries per completion queue
 * @device_caps: WREN_IB_DEVICE_CAP_*
 * @data_path: the kernel offers CQs and QPs (it said so with
 *	WREN_IB_UCONTEXT_RESP_DATA_PATH); the fields above from
 *	@max_recv_sge on are valid only then
 * @qp_table_mutex: serialises changes to @qp_table; held across the
 *	kernel's creation and destruction of a QP too (the device reuses a
 *	QP number at once)
 * @qp_table: the live QPs by number, see wren_qp_lookup()
 */
struct wren_context {
	struct verbs_context ibvctx;
	void *db_page;
	size_t db_page_size;
	uint32_t max_sq_depth;
	uint32_t max_rq_depth;
	uint32_t max_sge;
	uint32_t max_inline;
	uint32_t max_recv_sge;
	uint32_t max_msg_size;
	uint32_t max_cq_depth;
	uint32_t device_caps;
	bool data_path;
	pthread_mutex_t qp_table_mutex;
	_Atomic(struct wren_qp_leaf *) qp_table[WREN_QP_LEAVES];
};

/**
 * struct wren_td - a thread domain: the promise that one thread at a time
 *	uses the objects created under it, so they need no lock
 * @ibvtd: libibverbs' thread domain
 * @refcount: parent domains that name it
 */
struct wren_td {
	struct ibv_td ibvtd;
	atomic_int refcount;
};

/**
 * struct wren_pd - a protection domain, or a parent domain wrapping one
 * @ibvpd: libibverbs' protection domain
 * @pdn: the device's protection domain number (a parent domain's is that
 *	of the protection domain it wraps)
 * @contained_pd: for a parent domain, the protection domain it wraps;
 *	NULL for a protection domain
 * @td: for a parent domain, its thread domain or NULL
 * @refcount: for a protection domain, the parent domains wrapping it; for
 *	a parent domain, the CQs and QPs created with it (the kernel knows
 *	nothing of parent domains, so only this count can refuse to free
 *	one that is in use)
 */
struct wren_pd {
	struct ibv_pd ibvpd;
	uint32_t pdn;
	struct wren_pd *contained_pd;
	struct wren_td *td;
	atomic_int refcount;
};

/**
 * struct wren_lock - a spinlock that objects under a thread domain elide
 * @lock: the lock
 * @need_lock: false when the application promised single-threaded use
 */
struct wren_lock {
	pthread_spinlock_t lock;
	bool need_lock;
};

/**
 * struct wren_cq_fence - completions of a QP incarnation that is gone
 * @qpn: the QP number
 * @end: the free-running CQ index after the last of them
 *
 * Completions of @qpn at CQ indices before @end belong to a QP that was
 * destroyed or reset, and are dropped rather than matched to whatever QP
 * has that number now.
 */
struct wren_cq_fence {
	uint32_t qpn;
	uint32_t end;
};

/**
 * struct wren_cq - a completion queue
 * @vcq: libibverbs' CQ (the extended form includes the plain one)
 * @lock: serialises the threads that poll or arm it
 * @cqn: the device's CQ number
 * @ring: the ring of completion entries, mapped from the kernel
 * @ring_size: bytes mapped at @ring
 * @log_depth: log2 of the ring's entries
 * @ci: the consumer index, free running (the doorbell takes it modulo
 *	2^24, the ring modulo its depth)
 * @db: the CQ's doorbell in the context's doorbell page
 * @live: the ring's liveness word (WREN_IB_CQ_RESP_LIVENESS), or NULL:
 *	0 once the device failed or the context was disassociated
 * @parent_domain: the parent domain it was created with, or NULL
 * @poll_start: @ci when the current poll began; the doorbell is rung at
 *	its end if @ci moved
 * @cur_cqe: the completion the extended poll API is reading
 * @cur_qp: the QP of @cur_cqe, also a one-entry cache for the lookup
 * @cur_wr_id: the work request id of @cur_cqe
 * @fences: completions to drop, see &struct wren_cq_fence
 * @nr_fences: entries in use in @fences
 * @max_fences: entries allocated in @fences
 */
struct wren_cq {
	struct verbs_cq vcq;
	struct wren_lock lock;
	uint32_t cqn;
	struct wren_cqe *ring;
	size_t ring_size;
	uint32_t log_depth;
	uint32_t ci;
	uint32_t *db;
	const uint32_t *live;
	struct wren_pd *parent_domain;
	uint32_t poll_start;
	const struct wren_cqe *cur_cqe;
	struct wren_qp *cur_qp;
	uint64_t cur_wr_id;
	struct wren_cq_fence *fences;
	unsigned int nr_fences;
	unsigned int max_fences;
};

/**
 * struct wren_sq - a send queue
 * @lock: serialises the threads that post
 * @ring: the ring of send entries, mapped from the kernel
 * @ring_size: bytes mapped at @ring
 * @log_depth: log2 of the ring's entries
 * @wqe_shift: the entries are sizeof(struct wren_sq_wqe) << @wqe_shift
 *	bytes (wren_sq_entry())
 * @db: the send doorbell in the context's doorbell page
 * @wr_ids: the work request id of each slot
 * @pi: the producer index, free running, including entries written but
 *	not yet announced (an ibv_wr_* batch); the posters' own
 * @rung_pi: @pi as of the last doorbell: completions can only name
 *	slots before it
 * @ci: every entry before it is finished and its slot free; advanced by
 *	the pollers of the send CQ
 * @max_sge: scatter/gather entries a work request may have
 * @max_inline: inline bytes a work request may have
 * @sig_all: every work request completes, signaled or not
 * @wr_first: @pi when the current ibv_wr_* batch began
 * @wr_err: the first error of the current ibv_wr_* batch
 * @wr_wqe: the entry the current ibv_wr_* work request is built in, NULL
 *	after an error
 */
struct wren_sq {
	struct wren_lock lock;
	void *ring;
	size_t ring_size;
	uint32_t log_depth;
	uint32_t wqe_shift;
	uint32_t *db;
	uint64_t *wr_ids;
	uint32_t pi;
	_Atomic(uint32_t) rung_pi;
	_Atomic(uint32_t) ci;
	uint32_t max_sge;
	uint32_t max_inline;
	bool sig_all;
	uint32_t wr_first;
	int wr_err;
	struct wren_sq_wqe *wr_wqe;
};

/**
 * struct wren_rq_slot - one receive request in flight
 * @wr_id: the work request id posted
 * @busy: posted and its completion not yet polled
 *
 * Receives complete out of order (a multi-packet RD message completes
 * when whole), so the requests are not kept by ring slot: each gets a
 * free request id, which the device returns in the completion.
 */
struct wren_rq_slot {
	uint64_t wr_id;
	atomic_bool busy;
};

/**
 * struct wren_rq - a receive queue
 * @lock: serialises the threads that post
 * @ring: the ring of receive entries, mapped from the kernel
 * @ring_size: bytes mapped at @ring
 * @log_depth: log2 of the ring's entries
 * @wqe_shift: the entries are sizeof(struct wren_rq_wqe) << @wqe_shift
 *	bytes (wren_rq_entry())
 * @db: the receive doorbell in the context's doorbell page
 * @slots: the requests in flight, by request id (as many as ring slots)
 * @pi: the producer index, free running
 * @next_id: where the search for a free request id starts
 * @completed: completions polled, free running; the device takes entries
 *	in ring order and copies each as it takes it, so with fewer than a
 *	ring's worth of requests not yet completed the slot at @pi is free
 * @max_sge: scatter/gather entries a work request may have
 */
struct wren_rq {
	struct wren_lock lock;
	void *ring;
	size_t ring_size;
	uint32_t log_depth;
	uint32_t wqe_shift;
	uint32_t *db;
	struct wren_rq_slot *slots;
	uint32_t pi;
	uint32_t next_id;
	atomic_uint completed;
	uint32_t max_sge;
};

/* The entry of ring slot @slot, whatever the entries' size. */
static inline struct wren_sq_wqe *wren_sq_entry(struct wren_sq *sq,
						uint32_t slot)
{
	return (struct wren_sq_wqe *)((uint8_t *)sq->ring +
				      (WREN_SQ_WQE_SIZE(sq->wqe_shift) * slot));
}

static inline struct wren_rq_wqe *wren_rq_entry(struct wren_rq *rq,
						uint32_t slot)
{
	return (struct wren_rq_wqe *)((uint8_t *)rq->ring +
				      (WREN_RQ_WQE_SIZE(rq->wqe_shift) * slot));
}

/**
 * struct wren_srq - a shared receive queue
 * @vsrq: libibverbs' SRQ
 * @srqn: its number
 * @rq: its ring, posted to like a QP's receive queue; its QPs' receive
 *	completions name its request ids
 */
struct wren_srq {
	struct verbs_srq vsrq;
	uint32_t srqn;
	struct wren_rq rq;
};

/**
 * struct wren_qp - a queue pair, UD, RC or RD
 * @vqp: libibverbs' QP (the extended form includes the plain one)
 * @qpn: its number, as completions name it
 * @rd: a reliable-datagram QP (IBV_QPT_DRIVER)
 * @sq: its send queue
 * @rq: its receive queue (unused on an SRQ)
 * @srq: the SRQ its receives come from, or NULL
 * @parent_domain: the parent domain it was created with, or NULL
 */
struct wren_qp {
	struct verbs_qp vqp;
	uint32_t qpn;
	bool rd;
	struct wren_sq sq;
	struct wren_rq rq;
	struct wren_srq *srq;
	struct wren_pd *parent_domain;
};

/* Where @qp's receives are: its SRQ's ring, or its own. */
static inline struct wren_rq *wren_qp_recv(struct wren_qp *qp)
{
	return qp->srq ? &qp->srq->rq : &qp->rq;
}

/**
 * struct wren_ah - an address handle
 * @ibvah: libibverbs' address handle
 * @ahn: the device's AH number, written into each send entry
 * @ipv4: the destination's IPv4 address (network byte order) when its GID
 *	is IPv4-mapped, else 0
 */
struct wren_ah {
	struct ibv_ah ibvah;
	uint32_t ahn;
	uint32_t ipv4;
};

static inline struct wren_device *to_wren_device(struct ibv_device *ibvdev)
{
	return container_of(ibvdev, struct wren_device, vdev.device);
}

static inline struct wren_context *to_wren_context(struct ibv_context *ibvctx)
{
	return container_of(ibvctx, struct wren_context, ibvctx.context);
}

static inline struct wren_pd *to_wren_pd(struct ibv_pd *ibvpd)
{
	return container_of(ibvpd, struct wren_pd, ibvpd);
}

static inline struct wren_td *to_wren_td(struct ibv_td *ibvtd)
{
	return container_of(ibvtd, struct wren_td, ibvtd);
}

static inline struct wren_cq *to_wren_cq(struct ibv_cq *ibvcq)
{
	return container_of(ibvcq, struct wren_cq, vcq.cq);
}

static inline struct wren_cq *to_wren_cq_ex(struct ibv_cq_ex *ibvcqx)
{
	return container_of(ibvcqx, struct wren_cq, vcq.cq_ex);
}

/* qp.c: map a ring the kernel allocated; NULL with errno set on failure. */
void *wren_map_ring(struct wren_context *ctx, uint64_t mmap_key, size_t size);

static inline struct wren_srq *to_wren_srq(struct ibv_srq *ibvsrq)
{
	return container_of(ibvsrq, struct wren_srq, vsrq.srq);
}

static inline struct wren_qp *to_wren_qp(struct ibv_qp *ibvqp)
{
	return container_of(ibvqp, struct wren_qp, vqp.qp);
}

static inline struct wren_qp *to_wren_qp_ex(struct ibv_qp_ex *ibvqpx)
{
	return container_of(ibvqpx, struct wren_qp, vqp.qp_ex);
}

static inline struct wren_ah *to_wren_ah(struct ibv_ah *ibvah)
{
	return container_of(ibvah, struct wren_ah, ibvah);
}

/* The parent domain @ibvpd is, or NULL if it is a plain protection domain. */
static inline struct wren_pd *wren_parent_domain(struct ibv_pd *ibvpd)
{
	struct wren_pd *pd = ibvpd ? to_wren_pd(ibvpd) : NULL;

	return pd && pd->contained_pd ? pd : NULL;
}

static inline int wren_lock_init(struct wren_lock *lock, bool need_lock)
{
	lock->need_lock = need_lock;
	return pthread_spin_init(&lock->lock, PTHREAD_PROCESS_PRIVATE);
}

static inline void wren_lock_destroy(struct wren_lock *lock)
{
	pthread_spin_destroy(&lock->lock);
}

static inline void wren_lock(struct wren_lock *lock)
{
	if (lock->need_lock)
		pthread_spin_lock(&lock->lock);
}

static inline void wren_unlock(struct wren_lock *lock)
{
	if (lock->need_lock)
		pthread_spin_unlock(&lock->lock);
}

/**
 * wren_qp_lookup() - the live QP of a number, or NULL
 * @ctx: the context
 * @qpn: the number a completion names
 *
 * Lock-free: leaves are never freed before the context, a QP is entered
 * before it can have work requests, and it is removed under the locks of
 * its CQs, which the caller (a poller of one of them) holds.
 */
static inline struct wren_qp *wren_qp_lookup(struct wren_context *ctx,
					     uint32_t qpn)
{
	struct wren_qp_leaf *leaf;

	if (qpn >> WREN_QPN_BITS)
		return NULL;
	leaf = atomic_load_explicit(&ctx->qp_table[qpn >> WREN_QP_LEAF_SHIFT],
				    memory_order_acquire);
	if (!leaf)
		return NULL;
	return atomic_load_explicit(&leaf->qp[qpn & (WREN_QP_LEAF_SIZE - 1)],
				    memory_order_acquire);
}

/**
 * wren_cq_entry() - the completion at a CQ index, if the device wrote it
 * @cq: the CQ
 * @idx: a free-running index at or after the consumer index
 *
 * The device writes an entry with the phase of its lap: 1 on the first
 * lap over the zeroed ring, then alternating.  The phase is read once,
 * through a volatile access so that every call reads the ring again; the
 * rest of the entry only after a barrier, so that it is no older than
 * the phase that said it was written.
 *
 * Return: the entry, or NULL if the device has not written it yet.
 */
static inline const struct wren_cqe *wren_cq_entry(const struct wren_cq *cq,
						   uint32_t idx)
{
	const struct wren_cqe *cqe =
		&cq->ring[idx & ((1U << cq->log_depth) - 1)];
	uint8_t flags = *(const volatile uint8_t *)&cqe->flags;

	if ((flags & WREN_CQE_F_PHASE) != wren_ring_phase(idx, cq->log_depth))
		return NULL;
	udma_from_device_barrier();
	return cqe;
}

/*
 * A doorbell register of the context's doorbell page at a byte offset the
 * kernel gave, or NULL if the offset does not name one.
 */
static inline uint32_t *wren_doorbell(struct wren_context *ctx,
				      uint32_t offset)
{
	if (offset % sizeof(uint32_t) ||
	    offset > ctx->db_page_size - sizeof(uint32_t))
		return NULL;
	return (uint32_t *)((uint8_t *)ctx->db_page + offset);
}

bool is_wren_device(struct ibv_device *ibvdev);
int wren_qp_table_insert(struct wren_context *ctx, struct wren_qp *qp);
void wren_qp_table_remove(struct wren_context *ctx, struct wren_qp *qp);

/* cq.c: the CQ side of destroying or resetting a QP */
void wren_cq_fence_qp(struct wren_cq *cq, uint32_t qpn);
void wren_lock_cqs(struct wren_cq *send_cq, struct wren_cq *recv_cq);
void wren_unlock_cqs(struct wren_cq *send_cq, struct wren_cq *recv_cq);

/* cq_poll.c */
void wren_cq_set_poll_ops(struct wren_cq *cq, uint64_t wc_flags);

/* qp.c: QP creation behind ibv_create_qp*() and wrendv_create_qp() */
struct wrendv_qp_init_attr;
struct ibv_qp *wren_create_qp_common(struct ibv_context *ibvctx,
				     struct ibv_qp_init_attr_ex *attr,
				     const struct wrendv_qp_init_attr *dv_attr);

/* qp_post.c */
void wren_qp_set_wr_ops(struct wren_qp *qp, uint64_t send_ops_flags);

#endif /* WREN_H */
