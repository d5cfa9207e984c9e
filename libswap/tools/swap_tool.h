/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What swap_stress and swap_bench share: the device, a TCP rendezvous
 * through participant 0 (the hub) for the address blobs and the end,
 * and the messages' sizes and bytes as functions of their names.
 */
#ifndef SWAP_TOOL_H
#define SWAP_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <swap/swap.h>

extern const char *tool_prog;
extern unsigned int tool_index;

void tool_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tool_die(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
uint64_t tool_now_ns(void);
/* A number with optional K, M, G suffix; dies if bad. */
uint64_t tool_num(const char *opt, const char *s);

/* --transport rd, rc or auto. */
enum swap_transport tool_transport(const char *s);

/* Open @name (NULL: the first device) and a PD on it. */
struct ibv_pd *tool_open(const char *name);

/*
 * The rendezvous: @peers participants, this one @index, the hub's IPv4
 * address @hub (unused by the hub itself).
 */
struct tool_ctl {
	unsigned int peers, index;
	int fd;		/* to the hub */
	int *fds;	/* the hub: to each participant */
};

void tool_ctl_start(struct tool_ctl *c, unsigned int peers,
		    unsigned int index, const char *hub, uint16_t port,
		    unsigned int timeout_s);
/*
 * Everyone gives a row of @peers records of @len bytes (record p for
 * participant p) and gets the column of records addressed to it.
 */
void tool_ctl_exchange(struct tool_ctl *c, const void *row, void *col,
		       size_t len);
/*
 * Wait for everyone (a participant whose connection drops counts as
 * done with status 2): the worst status of all.
 */
int tool_ctl_barrier(struct tool_ctl *c, int status);

/* Message k from @src to @dst on stream @stream. */
struct tool_key {
	uint64_t seed;
	uint32_t src, dst, stream, k;
};

/* Its size: half up to @buf_size, half log-uniform above, to @max. */
size_t tool_size(const struct tool_key *key, size_t buf_size, size_t max);
void tool_fill(const struct tool_key *key, uint8_t *buf, size_t len);
/* The offset of the first wrong byte, or @len if all are right. */
size_t tool_check(const struct tool_key *key, const uint8_t *buf,
		  size_t len);

#endif /* SWAP_TOOL_H */
