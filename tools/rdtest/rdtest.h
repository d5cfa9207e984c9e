/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * wren_rd_stress: N participants, one RD queue pair each, every one
 * sending to every other; each receiver checks that every message
 * arrives exactly once with every byte intact.  With --rdma-ops, each
 * also writes into and reads back from every other's window (one-sided
 * transactions).  This header is what the
 * parts share, with wren_rc_stress (rc.c) too: the message generator
 * (gen.c) and the TCP rendezvous (ctl.c), neither of which needs a
 * device, so that the host self-test (tests/selftest.c) can exercise
 * both.
 */
#ifndef WREN_RDTEST_H
#define WREN_RDTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The program's name, for messages: each program defines it. */
extern const char *rd_prog;

/* Immediate data: the sender's index above a 24-bit message number. */
#define RD_IMM_K_BITS		24
#define RD_IMM_K_MASK		((1U << RD_IMM_K_BITS) - 1)
#define RD_MAX_PEERS		256
#define RD_MAX_PER_DEST		(1U << RD_IMM_K_BITS)

static inline uint32_t rd_imm(unsigned int sender, uint32_t k)
{
	return (uint32_t)sender << RD_IMM_K_BITS | (k & RD_IMM_K_MASK);
}

/* ------------------------------------------------------------------ */
/* gen.c: sizes and payloads                                            */
/* ------------------------------------------------------------------ */

/*
 * A size class: sizes in [lo, hi] with probability weight / 100000,
 * log-uniform within the class (P(n) proportional to ln((n+1)/n)).
 * RD_CLASS_MAX as hi stands for --max-size; every bound is clipped to
 * --max-size, so a class above it collapses onto max-size.
 */
struct rd_class {
	uint32_t lo;
	uint32_t hi;
	uint32_t weight;
};

#define RD_CLASS_MAX		UINT32_MAX
#define RD_WEIGHT_TOTAL		100000U
#define RD_NCLASSES		5

extern const struct rd_class rd_classes[RD_NCLASSES];

/* splitmix64's finalizer: a stateless 64-bit mix. */
static inline uint64_t rd_mix64(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The key every draw for message k from @s to @d derives from. */
uint64_t rd_msg_key(uint64_t seed, unsigned int s, unsigned int d,
		    uint32_t k);
/*
 * The key of one-sided transaction t from @s to @d's window: another
 * family than the messages', so that a transaction's bytes are never a
 * message's.
 */
uint64_t rd_rdma_key(uint64_t seed, unsigned int s, unsigned int d,
		     uint32_t t);
/* Class @c's bounds once clipped to @max_size (at least 1). */
void rd_class_range(unsigned int c, uint32_t max_size, uint32_t *lo,
		    uint32_t *hi);
/* The message's size; its class in *@cls if @cls is not NULL. */
uint32_t rd_msg_size(uint64_t key, uint32_t max_size, unsigned int *cls);
/* The mean of class @c (clipped) and of the whole distribution. */
double rd_class_mean(unsigned int c, uint32_t max_size);
double rd_expected_mean(uint32_t max_size);

/* The payload: xorshift64* seeded from the key, 8 bytes at a time. */
void rd_fill(void *buf, uint32_t len, uint64_t key);

struct rd_mismatch {
	uint32_t offset;
	uint8_t got;
	uint8_t want;
};

/* 0 if @buf holds the pattern of @key, else 1 and the first difference. */
int rd_check(const void *buf, uint32_t len, uint64_t key,
	     struct rd_mismatch *m);

/*
 * A digest of the sizes and patterns this build draws for @seed and
 * @max_size, of messages and transactions: participants whose digests
 * differ would disagree about what the messages are (another binary,
 * another libm), and must not run.
 */
uint64_t rd_gen_digest(uint64_t seed, uint32_t max_size);

/* ------------------------------------------------------------------ */
/* ctl.c: the rendezvous over TCP                                       */
/* ------------------------------------------------------------------ */

#define RD_HELLO_ORDERED	(1U << 0)
/* wren_rc_stress, whose QPs are RC: never to meet a wren_rd_stress. */
#define RD_HELLO_RC		(1U << 1)

/* What a participant tells the hub about itself. */
struct rd_hello {
	uint32_t peers;
	uint32_t index;
	uint32_t qpn;
	uint32_t ipv4;		/* from the GID when IPv4-mapped; network order */
	uint32_t messages;	/* messages it sends, over all the others */
	uint32_t max_size;
	uint32_t flags;		/* RD_HELLO_* */
	uint32_t rdma_ops;	/* transactions to each other; 0: none */
	uint32_t rdma_max;	/* the largest transaction, when rdma_ops */
	uint32_t win_rkey;	/* the window the others write and read */
	uint64_t win_addr;
	uint64_t seed;
	uint64_t digest;	/* rd_gen_digest() */
	uint8_t gid[16];
	/*
	 * RD_HELLO_RC: the RC QPs to each other participant, each taking
	 * qp_window work requests at most, and their numbers, qps per
	 * participant in index order (our own row unused).
	 */
	uint32_t qps;
	uint32_t qp_window;
	const uint32_t *qpns;	/* peers * qps */
};

/* One row of the table the hub hands out. */
struct rd_peer {
	uint32_t qpn;
	uint32_t ipv4;
	uint32_t messages;
	uint32_t win_rkey;
	uint64_t win_addr;
	uint8_t gid[16];
	/* RD_HELLO_RC: peers * qps QP numbers, the caller's array. */
	uint32_t *qpns;
};

/* A participant's word at the end: its own verdict, relayed to all. */
struct rd_report {
	uint32_t sent;
	uint32_t received;
	uint32_t errors;
};

/* A message that was sent again after "receiver not ready". */
struct rd_pair {
	uint32_t peer;		/* the receiver in a DONE, the sender after */
	uint32_t k;
};

enum ctl_state {
	CTL_RUNNING,
	CTL_RELEASED,
	CTL_ABORTED,
};

struct ctl {
	unsigned int peers;
	unsigned int index;
	uint16_t port;
	int lfd;		/* the hub's listening socket */
	int *fd;		/* hub: fd[i] for participant i; else fd[0] */
	uint64_t deadline;	/* CLOCK_MONOTONIC ns */
	enum ctl_state state;
	bool started;		/* the table is out */
	char why[512];		/* what went wrong, when something did */

	/* The hub's bookkeeping. */
	bool *done;
	unsigned int ndone;
	struct rd_pair **resent;	/* per participant, as reported */
	uint32_t *nresent;

	/* After the release: everybody's reports, the resends to us. */
	struct rd_report *reports;
	struct rd_pair *to_me;
	uint32_t nto_me;
};

/* Monotonic nanoseconds. */
uint64_t rd_now(void);

/*
 * Index 0 listens on @port (0: any; ctl->port tells), the others connect
 * to @hub:@port, retrying for up to @connect_s seconds.  On error -1 with
 * ctl->why set; ctl_close() is due either way.
 */
int ctl_open(struct ctl *c, unsigned int peers, unsigned int index,
	     const char *hub, uint16_t port, unsigned int connect_s,
	     uint64_t deadline);
/*
 * Exchange hellos for the table (@table has ctl->peers rows; with
 * @me->qps, each row's qpns room for peers * qps numbers).
 */
int ctl_start(struct ctl *c, const struct rd_hello *me,
	      struct rd_peer *table);
/* We are done: all sent, all received; @resent lists our resends. */
int ctl_done(struct ctl *c, const struct rd_report *r,
	     const struct rd_pair *resent, uint32_t nresent);
/*
 * Serve the control connections, waiting up to @timeout_ms for
 * something to happen; returns the state (ctl->why says why aborted).
 */
enum ctl_state ctl_poll(struct ctl *c, int timeout_ms);
/* We failed: tell the hub, or (the hub) tell everybody.  Best effort. */
void ctl_fail(struct ctl *c, const char *why);
/* "2, 3": the participants the hub still waits for, into @buf. */
void ctl_pending(const struct ctl *c, char *buf, size_t len);
void ctl_close(struct ctl *c);

#endif /* WREN_RDTEST_H */
