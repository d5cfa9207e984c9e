/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Wren transport: reliable, connectionless, multipath delivery of
 * messages between adapters (Documentation/transport.rst).
 *
 * It sits between two neighbours.  Below, its host (struct wren_tp_env_ops):
 * a clock, timers, randomness and a wire that pulls whole Ethernet frames
 * from it.  Above, its upper layer (struct wren_tp_ulp_ops): whoever posts
 * messages and places what arrives.  In the adapter model that is the
 * queue-pair layer reading and writing guest memory; in tools/netsim it is
 * a traffic generator.  The transport calls nothing else.
 *
 * Single-threaded: the host calls in from one thread at a time, and no
 * callback may call back into the transport synchronously except where
 * it says so.
 */
#ifndef WREN_TP_H
#define WREN_TP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * struct wren_tp_env_ops - what the transport needs from its host
 * @now_ns: the current time in nanoseconds
 * @timer_new: a timer that calls @cb(@arg) when it expires
 * @timer_arm: (re)arm @timer to expire at absolute time @expire_ns
 * @timer_cancel: disarm @timer
 * @timer_free: cancel and free @timer
 * @tx_kick: the transport has frames to send: call wren_tp_tx_pull() soon,
 *	not from inside this call
 * @random: 32 random bits (seeded, and so repeatable, in simulations)
 *
 * Every call gets the host's opaque pointer given to wren_tp_create().
 */
struct wren_tp_env_ops {
	uint64_t (*now_ns)(void *opaque);
	void *(*timer_new)(void *opaque, void (*cb)(void *arg), void *arg);
	void (*timer_arm)(void *timer, uint64_t expire_ns);
	void (*timer_cancel)(void *timer);
	void (*timer_free)(void *timer);
	void (*tx_kick)(void *opaque);
	uint32_t (*random)(void *opaque);
};

/* Message outcomes, at the initiator (tx_done) and at the target. */
enum wren_tp_status {
	WREN_TP_OK = 0,
	WREN_TP_REMOTE_UNRESPONSIVE,	/* the peer answered once, then stopped */
	WREN_TP_REMOTE_UNREACHABLE,	/* the peer never answered */
	WREN_TP_BAD_DEST_QP,		/* the target has no such queue pair */
	WREN_TP_RNR,			/* the target had no receive buffer */
	WREN_TP_REMOTE_OP_ERROR,	/* the target failed to place it */
	WREN_TP_TOO_LONG,		/* longer than the target's buffer */
	WREN_TP_REMOTE_ACCESS,		/* the target refused the memory access */
	WREN_TP_LOCAL_ERROR,		/* tx_read failed */
	WREN_TP_FLUSHED,		/* the transport was destroyed */
	WREN_TP_STATUS_COUNT
};

const char *wren_tp_status_name(enum wren_tp_status st);

/* Establishment modes: wren_tp_dest.mode. */
enum wren_tp_mode {
	WREN_TP_MODE_OPTIMISTIC = 0,	/* data at once, no added round trip */
	WREN_TP_MODE_HANDSHAKE,		/* CONNECT, wait for the ack, then data */
};

/**
 * struct wren_tp_dest - where a message goes
 * @ipv4: the target adapter's address, network byte order
 * @mac: the next hop's MAC address
 * @class_id: the send-queue class: messages to one target with one class
 *	share a transport context (and so one PSN space and, for ordered
 *	messages, one order)
 * @mode: &enum wren_tp_mode, used when this message opens the context
 */
struct wren_tp_dest {
	uint32_t ipv4;
	uint8_t mac[6];
	uint32_t class_id;
	uint8_t mode;
};

/* wren_tp_msg.flags */
#define WREN_TP_MSG_ORDERED	(1U << 0)	/* complete in posting order */
#define WREN_TP_MSG_DATAGRAM	(1U << 1)	/* rx_begin: arrived as UD */
#define WREN_TP_MSG_SOLICITED	(1U << 2)	/* the receiver wants an event */
#define WREN_TP_MSG_FAILED	(1U << 3)	/* READ_RESP: the read failed */
#define WREN_TP_MSG_CONNECTED	(1U << 4)	/* of an RC QP's stream */

/**
 * struct wren_tp_msg - a message as the upper layer sees it
 * @len: bytes, at most WREN_WIRE_MAX_MSG_LEN
 * @opcode: &enum wren_wire_opcode
 * @flags: WREN_TP_MSG_*
 * @dst_qpn: carried to the target's upper layer
 * @src_qpn: likewise
 * @qkey: likewise (with WREN_TP_MSG_CONNECTED, the upper layers put the
 *	message's place in its QP's stream here)
 * @rsn: with WREN_TP_MSG_CONNECTED, carried likewise; else zero
 * @imm: likewise
 * @raddr: WRITE, WRITE_IMM, READ_REQ: the target's address
 * @rkey: ... and memory key
 * @rlen: READ_REQ: the bytes to read (@len is zero)
 *
 * The transport carries @raddr, @rkey and @rlen (&struct wren_wire_rdma)
 * without giving them any meaning; the upper layers at both ends do.
 */
struct wren_tp_msg {
	uint32_t len;
	uint8_t opcode;
	uint8_t flags;
	uint32_t dst_qpn;
	uint32_t src_qpn;
	uint32_t qkey;
	uint16_t rsn;
	uint32_t imm;
	uint64_t raddr;
	uint32_t rkey;
	uint32_t rlen;
};

/**
 * struct wren_tp_peer - who sent a message that arrives
 * @ipv4: its address, network byte order
 * @mac: its MAC address
 */
struct wren_tp_peer {
	uint32_t ipv4;
	uint8_t mac[6];
};

/**
 * struct wren_tp_ulp_ops - the upper layer, as the transport calls it
 * @tx_read: copy @len bytes of the message posted with @cookie, from
 *	@offset, into @buf; 0, or negative to fail the message with
 *	WREN_TP_LOCAL_ERROR
 * @tx_done: the message posted with @cookie is finished with @status;
 *	the transport forgets @cookie.  May call wren_tp_send().
 * @rx_begin: the first packet of a message from @peer arrived (in any
 *	order, so not necessarily its offset 0): accept it with WREN_TP_OK
 *	and a @cookie for the calls that follow, or refuse it with the
 *	status the initiator will see
 * @rx_write: place @len bytes of the accepted message at @offset; 0, or
 *	negative to fail the message with WREN_TP_REMOTE_OP_ERROR.  Each
 *	byte is written exactly once.
 * @rx_done: the accepted message is complete (WREN_TP_OK) or abandoned
 *	(any other status); for an ordered message, only after every
 *	earlier message of its context
 */
struct wren_tp_ulp_ops {
	int (*tx_read)(void *ulp, uint64_t cookie, uint32_t offset, void *buf,
		       uint32_t len);
	void (*tx_done)(void *ulp, uint64_t cookie, enum wren_tp_status status);
	enum wren_tp_status (*rx_begin)(void *ulp,
					const struct wren_tp_peer *peer,
					const struct wren_tp_msg *msg,
					uint64_t *cookie);
	int (*rx_write)(void *ulp, uint64_t cookie, uint32_t offset,
			const void *buf, uint32_t len);
	void (*rx_done)(void *ulp, uint64_t cookie, enum wren_tp_status status);
};

/**
 * struct wren_tp_config - transport parameters
 * @ipv4: this adapter's address, network byte order
 * @mac: this adapter's MAC address
 * @udp_port: UDP destination port (WREN_WIRE_UDP_PORT)
 * @mtu: payload bytes per DATA packet
 * @window: packets in flight per context, a power of two, 64 to 512
 * @subflows: sub-flows (paths) per context, 1 to WREN_WIRE_MAX_SUBFLOWS
 * @repath: replace the entropy of a sub-flow that loses or slows down
 * @max_ctx: transport contexts (initiator side) at most
 * @max_rx_ctx: target-side contexts at most
 * @max_msgs: messages posted and not yet done, at most; as many may be
 *	in progress as target
 * @peer_share: the share of each pool (messages posted, receive contexts,
 *	messages in progress as target) one peer may hold, in 1/256ths,
 *	1 to 256 (256: no limit)
 * @init_rto_ns: retransmit timeout before the first RTT sample
 * @min_rto_ns: retransmit timeout floor
 * @max_rto_ns: retransmit timeout ceiling (backoff stops there)
 * @max_retries: consecutive timeouts of one packet before the context
 *	gives up and fails its messages
 * @dupthresh: a packet is lost once this many later packets of its
 *	sub-flow are acknowledged
 * @ack_every: acknowledge at least every this many DATA packets
 * @ack_delay_ns: ... or this long after the first unacknowledged one
 * @cc_target_ns: congestion control: target queueing delay
 * @cc_init_cwnd: initial window, bytes
 * @cc_min_cwnd: window floor, bytes
 * @cc_max_cwnd: window ceiling, bytes
 * @cc_ai: additive increase per round trip, bytes
 * @cc_beta: multiplicative decrease gain for delay above target (1/256)
 * @cc_max_mdf: largest decrease at once (1/256)
 * @grant_threshold: messages of at least this many bytes are pushed only
 *	as the target grants them (0: never)
 * @grant_window: bytes a target keeps granted and not yet received
 * @grant_chunk: bytes per grant
 * @idle_ns: an idle context is closed after this long
 * @mpl_ns: maximum packet lifetime in the network: how long a closed
 *	target-side context remembers its incarnation
 * @prio_short: 0: every packet leaves with IP precedence 0.  Else packets
 *	carry their urgency in the IPv4 TOS byte's precedence (the DSCP
 *	class selectors CS1 to CS4), for switches that serve them with
 *	strict priority: 4 control packets, 3 DATA of a message of at most
 *	this many bytes (and GRANT_REQ, and datagrams), 2 other DATA the
 *	target does not grant, 1 granted DATA
 */
struct wren_tp_config {
	uint32_t ipv4;
	uint8_t mac[6];
	uint16_t udp_port;
	uint32_t mtu;
	uint32_t window;
	uint32_t subflows;
	bool repath;
	uint32_t max_ctx;
	uint32_t max_rx_ctx;
	uint32_t max_msgs;
	uint32_t peer_share;
	uint64_t init_rto_ns;
	uint64_t min_rto_ns;
	uint64_t max_rto_ns;
	uint32_t max_retries;
	uint32_t dupthresh;
	uint32_t ack_every;
	uint64_t ack_delay_ns;
	uint64_t cc_target_ns;
	uint32_t cc_init_cwnd;
	uint32_t cc_min_cwnd;
	uint32_t cc_max_cwnd;
	uint32_t cc_ai;
	uint32_t cc_beta;
	uint32_t cc_max_mdf;
	uint32_t grant_threshold;
	uint32_t grant_window;
	uint32_t grant_chunk;
	uint64_t idle_ns;
	uint64_t mpl_ns;
	uint32_t prio_short;
};

/* Causes of a retransmission: wren_tp_stats.retx_<cause>. */
enum wren_tp_retx_cause {
	WREN_TP_RETX_TIMEOUT,		/* the sub-flow's timer expired */
	WREN_TP_RETX_FAST,		/* later packets of the sub-flow acked */
	WREN_TP_RETX_NACK,		/* the target saw it trimmed */
	WREN_TP_RETX_RECONNECT,		/* resent in a new incarnation */
};

/**
 * struct wren_tp_stats - what the transport counts
 *
 * One field per counter of the one list, linux/wren/wren_stats.h, which
 * says what each counts; "data" means DATA packets and payload bytes.
 */
struct wren_tp_stats {
#define WREN_STAT(counter)	uint64_t counter;
#include "linux/wren/wren_stats.h"
#undef WREN_STAT
};

struct wren_tp;

void wren_tp_config_defaults(struct wren_tp_config *cfg);

/**
 * wren_tp_create() - a transport on top of @env, below @ulp
 * @cfg: parameters; checked, copied
 * @env: the host
 * @env_opaque: passed to @env's calls
 * @ulp: the upper layer
 * @ulp_opaque: passed to @ulp's calls
 *
 * Return: the transport, or NULL if @cfg is invalid or memory is short.
 */
struct wren_tp *wren_tp_create(const struct wren_tp_config *cfg,
			       const struct wren_tp_env_ops *env,
			       void *env_opaque,
			       const struct wren_tp_ulp_ops *ulp,
			       void *ulp_opaque);

/* Fails every message in flight with WREN_TP_FLUSHED, then frees all. */
void wren_tp_destroy(struct wren_tp *tp);

/**
 * wren_tp_send() - post a message
 * @tp: the transport
 * @dst: the target
 * @msg: the message
 * @cookie: handed back in tx_read and tx_done
 *
 * Return: 0 (tx_done will follow), -EINVAL for a bad @dst or @msg,
 * -ENOBUFS when max_msgs messages are already in flight, or -EAGAIN when
 * peer_share of them go to @dst's address (messages to others may still
 * be posted).  Either way, one of the messages in flight finishing
 * (tx_done) makes room.
 */
int wren_tp_send(struct wren_tp *tp, const struct wren_tp_dest *dst,
		 const struct wren_tp_msg *msg, uint64_t cookie);

/**
 * wren_tp_send_ud() - post an unreliable datagram
 * @tp: the transport
 * @dst: the target (its class and mode are not used)
 * @msg: one packet's worth, at most cfg.mtu bytes
 * @cookie: handed back in tx_read and tx_done
 *
 * No context, no acknowledgement, no retransmission: tx_done follows once
 * the datagram is on the wire (WREN_TP_OK) or could not be read
 * (WREN_TP_LOCAL_ERROR), and the target says nothing either way.
 *
 * Return: 0, -EINVAL for a bad @dst or @msg, -EMSGSIZE beyond the MTU, or
 * -ENOBUFS when the datagram queue is full.
 */
int wren_tp_send_ud(struct wren_tp *tp, const struct wren_tp_dest *dst,
		    const struct wren_tp_msg *msg, uint64_t cookie);

/**
 * wren_tp_tx_pull() - the next frame to put on the wire
 * @tp: the transport
 * @frame: where to build it
 * @cap: room at @frame; at least wren_tp_frame_max() of its config
 *
 * The host calls this whenever its wire can take a frame, after
 * env->tx_kick() said there is work, until it returns 0.
 *
 * Return: the frame's length, or 0 when there is nothing to send now.
 */
size_t wren_tp_tx_pull(struct wren_tp *tp, void *frame, size_t cap);

/* The largest frame wren_tp_tx_pull() builds with configuration @cfg. */
size_t wren_tp_frame_max(const struct wren_tp_config *cfg);

/* A frame from the wire; anything invalid is counted and dropped. */
void wren_tp_rx(struct wren_tp *tp, const void *frame, size_t len);

void wren_tp_get_stats(const struct wren_tp *tp, struct wren_tp_stats *st);

/**
 * wren_tp_ctx_id() - the context that carries messages to a target now
 * @tp: the transport
 * @ipv4: the target, network byte order
 * @class_id: the send-queue class (&struct wren_tp_dest)
 * @id: its id on the wire: its record's index with a table
 *	(wren_tp_set_store()), else its slot among the contexts held
 *
 * Return: 0, or -ENOENT if none is held in the adapter now (never opened,
 * or closed or written back to the table since).
 */
int wren_tp_ctx_id(struct wren_tp *tp, uint32_t ipv4, uint32_t class_id,
		   uint32_t *id);

/**
 * wren_tp_set_accounts() - count each queue pair's events apart as well
 * @tp: the transport
 * @acct: @n accounts, one per queue-pair number of this adapter; the
 *	caller's, which it may read and reset at any time
 * @n: their number; 0 (or a NULL @acct) to stop
 *
 * The transport does not know queue pairs, but every message names the
 * two it joins.  From now on each event of a counter whose scope is QP
 * (linux/wren/wren_stats.h) is counted in the totals, as before, and also
 * in the account of the queue pair it concerns here: a message's
 * @src_qpn for what happens to it as its initiator's (packets sent and
 * resent, its delivery or failure), its @dst_qpn for what happens to it
 * at its target (packets placed, out of order, duplicated, marked CE, its
 * delivery or refusal), as the packet names it even once its message is
 * gone.  An event whose number is @n or above is in the totals only.
 * The totals are what they would be without accounts.
 */
void wren_tp_set_accounts(struct wren_tp *tp, struct wren_tp_stats *acct,
			  uint32_t n);

/* Bytes of context state the transport holds, in total and for one peer. */
size_t wren_tp_ctx_memory(const struct wren_tp *tp);
size_t wren_tp_peer_memory(const struct wren_tp *tp, uint32_t ipv4);

/* States of a context record in the host's table. */
enum wren_tp_rec_state {
	WREN_TP_REC_FREE = 0,		/* nobody's (its epoch may be kept) */
	WREN_TP_REC_CACHED,		/* in use, held inside the adapter */
	WREN_TP_REC_SPILLED,		/* idle, held only here */
};

/**
 * struct wren_tp_ctx_rec - a transport context as the host's table keeps it
 * @state: &enum wren_tp_rec_state
 * @mode: &enum wren_tp_mode
 * @answered: the target has answered this context
 * @ipv4: the target
 * @mac: its next hop
 * @class_id: the send-queue class
 * @epoch: the incarnation
 * @session: the target's id for it
 * @psn: the next packet sequence number (the window is empty)
 * @msn: the next message sequence number
 * @cwnd: congestion window learnt, bytes over all sub-flows (0: none)
 * @base_rtt_ns: shortest round trip seen (0: none)
 * @srtt_ns: smoothed round trip (0: none)
 * @idle_since_ns: when it went idle
 *
 * A FREE record's fields other than @ipv4, @class_id and @epoch mean
 * nothing; a CACHED one's are those of when it entered the cache.
 */
struct wren_tp_ctx_rec {
	uint8_t state;
	uint8_t mode;
	bool answered;
	uint32_t ipv4;
	uint8_t mac[6];
	uint32_t class_id;
	uint32_t epoch;
	uint32_t session;
	uint32_t psn;
	uint32_t msn;
	uint32_t cwnd;
	uint64_t base_rtt_ns;
	uint64_t srtt_ns;
	uint64_t idle_since_ns;
};

/**
 * struct wren_tp_store_ops - the host's table of context records
 * @load: read record @idx into @rec: 0, -EINVAL if it is malformed (it is
 *	then treated as free), or -EIO if it cannot be read
 * @save: write @rec as record @idx: 0 or -EIO
 */
struct wren_tp_store_ops {
	int (*load)(void *opaque, uint32_t idx, struct wren_tp_ctx_rec *rec);
	int (*save)(void *opaque, uint32_t idx,
		    const struct wren_tp_ctx_rec *rec);
};

#define WREN_TP_MAX_TABLE	(1U << 24)	/* wire ids are 24 bits */

/**
 * wren_tp_set_store() - make a table in host memory the contexts' home
 * @tp: the transport, with no context yet
 * @ops: how to read and write a record
 * @opaque: passed to @ops
 * @entries: records, a power of two, at least cfg.max_ctx and at most
 *	WREN_TP_MAX_TABLE
 *
 * From then on, a context's wire id is its record's index and an idle
 * context that leaves the adapter is kept in its record, to come back
 * without a new handshake (Documentation/transport.rst).  Set once.
 * Return: 0, -EINVAL for bad arguments, -EBUSY if a table is set or a
 * context exists.
 */
int wren_tp_set_store(struct wren_tp *tp, const struct wren_tp_store_ops *ops,
		      void *opaque, uint32_t entries);

#endif /* WREN_TP_H */
