/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * SWAP's formats on the wire and in published memory (swap(7),
 * Documentation/swap.rst): the message header every SEND begins with,
 * the flow-control block a partner reads, and the address blob
 * exchanged out of band.  All integers are big-endian.  Besides the
 * encoders and decoders, the rules that say whether a value from a
 * partner is acceptable live here, free of verbs, so that the unit test
 * checks them alone.
 */
#ifndef SWAP_WIRE_H
#define SWAP_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SWAP_HDR_LEN		32
#define SWAP_FCB_LEN		64
/* Every WRITE-placed piece starts on this boundary of the pool. */
#define SWAP_POOL_ALIGN		64
#define SWAP_VERSION		1

#define SWAP_HDR_MAGIC		0x5357U		/* "SW" */
#define SWAP_FCB_MAGIC		0x53574642U	/* "SWFB" */
#define SWAP_ADDR_MAGIC		0x53574150U	/* "SWAP" */

enum swap_msg_type {
	SWAP_MSG_INLINE = 1,	/* the payload follows the header */
	SWAP_MSG_WRITE = 2,	/* the payload is in the pool at pos */
};

#define SWAP_F_FIRST		0x1	/* a message's first piece */
#define SWAP_F_LAST		0x2	/* a message's last piece */

/* Limits a partner's address must keep (swap_addr_get()). */
#define SWAP_BUF_SIZE_MAX	(1U << 20)
#define SWAP_BUF_COUNT_MAX	4096U
#define SWAP_POOL_SIZE_MAX	(1ULL << 40)
#define SWAP_MSG_SIZE_MAX	(1ULL << 40)

struct swap_hdr {
	uint8_t type;		/* enum swap_msg_type */
	uint8_t flags;		/* SWAP_F_* */
	uint32_t seq;		/* per sender and receiver, from 0 */
	uint32_t len;		/* this piece's payload */
	uint64_t pos;		/* WRITE: the piece's place in the pool's
				 * byte stream; pos % pool_size is the offset */
	uint64_t total;		/* FIRST: the whole message's length */
};

/* What a receiver publishes to one sender. */
struct swap_fcb {
	uint32_t released;	/* messages of the sender's it has released */
	uint64_t pool_released;	/* pool bytes (stream position) released */
	bool closed;		/* the owner closed; nothing more arrives */
};

struct swap_addr {
	uint8_t transport;	/* enum swap_transport */
	uint16_t lid;
	uint32_t qpn;
	uint32_t id;		/* the owner's id for the reader: its imm */
	uint32_t psn;		/* RC: the owner's first PSN */
	uint8_t gid[16];
	uint64_t fcb_addr;	/* the block for the reader */
	uint32_t fcb_rkey;
	uint64_t pool_addr;	/* the pool for the reader */
	uint32_t pool_rkey;
	uint64_t pool_size;
	uint32_t buf_size;	/* largest INLINE payload it takes */
	uint32_t buf_count;	/* unreleased messages it takes from one */
	uint64_t max_msg_size;	/* largest message it takes */
};

void swap_hdr_put(void *buf, const struct swap_hdr *h);
/* 0, or -1 if @buf holds no SWAP header of this version. */
int swap_hdr_get(const void *buf, struct swap_hdr *h);

void swap_fcb_init(void *buf);
/* Each a single aligned store: a READ sees the old or the new value. */
void swap_fcb_set_released(void *buf, uint32_t released);
void swap_fcb_set_pool(void *buf, uint64_t pool_released);
void swap_fcb_set_closed(void *buf);
/* 0, or -1 if @buf holds no flow-control block. */
int swap_fcb_get(const void *buf, struct swap_fcb *f);

/* SWAP_ADDR_LEN bytes. */
void swap_addr_put(void *buf, const struct swap_addr *a);
/* 0, or -1 with *@why if @buf is not an acceptable address. */
int swap_addr_get(const void *buf, size_t len, struct swap_addr *a,
		  const char **why);

/*
 * A new flow-control block from the receiver of messages [0, @sent) and
 * of pool bytes [0, @pos), against what we saw before (@seen_*): NULL if
 * acceptable (counters never go back nor past what was sent), else why
 * not.
 */
const char *swap_fcb_check(const struct swap_fcb *f, uint32_t seen_released,
			   uint32_t sent, uint64_t seen_pool, uint64_t pos);

/*
 * Sender: where a piece of @len bytes goes in a pool of @pool_size at
 * stream position @pos, the receiver having released @released: true
 * with *@start if it fits now (not across the pool's end: a piece that
 * would wrap starts at the next lap), false if it must wait.
 */
bool swap_pool_place(uint64_t pos, uint64_t pool_size, uint64_t released,
		     uint64_t len, uint64_t *start);
/* The stream position after a piece at @start of @len. */
uint64_t swap_pool_next(uint64_t start, uint64_t len);

/*
 * Receiver: is a piece at @start of @len where the sender could have
 * placed it, the previous piece having ended at @expect and the pool
 * being released up to @released?  NULL if so, else why not.
 */
const char *swap_pool_check(uint64_t expect, uint64_t pool_size,
			    uint64_t released, uint64_t start, uint64_t len);

#endif /* SWAP_WIRE_H */
