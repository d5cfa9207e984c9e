/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * libswap: SWAP, the shared-write-address message protocol, over verbs.
 *
 * An endpoint is one device and PD.  Each partner publishes a
 * flow-control block that the other side reads with RDMA READ (at most
 * one READ of a partner's block outstanding); a message up to the
 * partner's buffer size travels INLINE in a SEND, a larger one is placed
 * with RDMA WRITE into the partner's message pool once the block shows
 * room.  Delivery is ordered per partner.  swap(7) and
 * Documentation/swap.rst describe the protocol; each call has a page in
 * section 3.
 *
 * An endpoint is not thread-safe: one thread at a time calls into it.
 */
#ifndef SWAP_SWAP_H
#define SWAP_SWAP_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest address blob swap_ep_addr() writes. */
#define SWAP_ADDR_LEN		96

enum swap_transport {
	SWAP_TRANSPORT_AUTO = 0,	/* RD on a Wren device, else RC */
	SWAP_TRANSPORT_RD = 1,		/* Wren reliable datagram: one QP */
	SWAP_TRANSPORT_RC = 2,		/* one RC QP per partner */
};

/* Zero in any field: its default. */
struct swap_ep_attr {
	enum swap_transport transport;
	uint8_t port_num;		/* 1 */
	uint8_t gid_index;		/* 0 */
	uint32_t buf_size;		/* INLINE payload limit: 4096 */
	uint32_t buf_count;		/* receive buffers per partner: 16 */
	uint64_t pool_size;		/* message pool per partner: 1 MiB */
	uint64_t max_msg_size;		/* largest message received: 64 MiB */
	uint32_t max_partners;		/* 64 */
	uint32_t send_depth;		/* INLINE sends outstanding: 64 */
	uint32_t probe_ms;		/* idle partner liveness READ: 1000 */
	uint32_t spin_us;		/* busy-poll before sleeping: 20 */
	/*
	 * A message under way whose receiver gives no room for this long
	 * fails that partner (-ETIMEDOUT): 30000.
	 */
	uint32_t stall_ms;
};

struct swap_ep;

/* A received message: data stays valid until swap_msg_release(). */
struct swap_msg {
	int partner;
	void *data;
	size_t len;
	uint64_t priv[2];		/* the library's */
};

struct swap_stats {
	uint64_t msgs_sent;
	uint64_t inline_sent;		/* messages sent INLINE */
	uint64_t write_sent;		/* messages placed with RDMA WRITE */
	uint64_t fragments_sent;	/* WRITE-placed pieces */
	uint64_t bytes_sent;
	uint64_t msgs_received;
	uint64_t bytes_received;
	uint64_t reads;			/* RDMA READs of flow-control blocks */
	uint64_t waits;			/* sends that waited for room */
	uint64_t write_retries;		/* pieces WRITTEN again (refused) */
	uint64_t partners_failed;
	uint64_t mem_per_partner;	/* registered bytes per partner */
	uint64_t mem_shared;		/* the endpoint's other buffers */
};

struct swap_ep *swap_ep_create(struct ibv_pd *pd,
			       const struct swap_ep_attr *attr);
int swap_ep_close(struct swap_ep *ep);
/* A file descriptor that polls readable when the endpoint has work. */
int swap_ep_fd(struct swap_ep *ep);
enum swap_transport swap_ep_transport(struct swap_ep *ep);

/* Reserve a partner's resources: its id (>= 0), or -errno. */
int swap_partner_add(struct swap_ep *ep);
/* This endpoint's address for @partner: bytes written, or -errno. */
int swap_ep_addr(struct swap_ep *ep, int partner, void *buf, size_t len);
/* Connect @partner to the address it gave us out of band. */
int swap_partner_connect(struct swap_ep *ep, int partner, const void *addr,
			 size_t len);
int swap_partner_remove(struct swap_ep *ep, int partner);
/*
 * 0 while @partner is usable, else the -errno that ended it (and its
 * reason in *@why, if given): -ECONNRESET the partner went away,
 * -EPROTO it broke the protocol, -ETIMEDOUT it stopped answering.
 */
int swap_partner_error(struct swap_ep *ep, int partner, const char **why);

/*
 * Send @len bytes to @partner, in order with its other messages; @buf
 * may be reused on return.  Waits up to @timeout_ms (-1: forever) for
 * room before the first byte goes; 0 or -errno (-EAGAIN: no room in
 * time, nothing sent).
 */
int swap_send(struct swap_ep *ep, int partner, const void *buf, size_t len,
	      int timeout_ms);
/*
 * The next message from any partner: 0; -EAGAIN (none in @timeout_ms);
 * or, once for each partner that failed, its -errno with @msg->partner
 * naming it.
 */
int swap_recv(struct swap_ep *ep, struct swap_msg *msg, int timeout_ms);
int swap_recv_nb(struct swap_ep *ep, struct swap_msg *msg);
/* Give a message's buffer back; its space returns to the sender. */
void swap_msg_release(struct swap_ep *ep, struct swap_msg *msg);
/* Handle completions and timers without blocking: 0 or -errno. */
int swap_progress(struct swap_ep *ep);
void swap_ep_stats(struct swap_ep *ep, struct swap_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* SWAP_SWAP_H */
