// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The rendezvous of wren_rd_stress over TCP.  Participant 0, the hub,
 * accepts one connection from each of the others; every participant
 * sends a HELLO (its QP number, GID, window and configuration); the hub
 * checks that all agree and sends everybody the TABLE.  At the end each sends
 * DONE (its figures, and the messages it had to send again after
 * "receiver not ready"); once all are done the hub sends each a RELEASE
 * (everybody's figures, the resends addressed to it), so that nobody
 * destroys its QP while another still sends to it.  A participant that
 * fails sends FAIL, and the hub ABORTs everybody, so that the others do
 * not wait for their timeout.
 *
 * Every message is a header of three big-endian 32-bit words (magic,
 * type, body length) and a body of big-endian 32-bit words and bytes.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rdtest.h"

#define CTL_MAGIC	0x57524453U	/* "WRDS" */
/*
 * 2: the HELLO and the TABLE carry the one-sided window; 3: and the RC
 * QPs (wren_rc_stress).
 */
#define CTL_VERSION	3U
#define CTL_MAX_BODY	(256U << 20)
#define CTL_TEXT_MAX	400U

enum ctl_type {
	CTL_HELLO = 1,
	CTL_TABLE,
	CTL_DONE,
	CTL_RELEASE,
	CTL_FAIL,
	CTL_ABORT,
};

static const char *const type_name[] = {
	[CTL_HELLO] = "HELLO", [CTL_TABLE] = "TABLE", [CTL_DONE] = "DONE",
	[CTL_RELEASE] = "RELEASE", [CTL_FAIL] = "FAIL", [CTL_ABORT] = "ABORT",
};

static const char *tname(uint32_t t)
{
	return t && t <= CTL_ABORT ? type_name[t] : "unknown";
}

uint64_t rd_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void why(struct ctl *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void why(struct ctl *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->why, sizeof(c->why), fmt, ap);
	va_end(ap);
}

/* Milliseconds left until @deadline, for poll(). */
static int ms_left(uint64_t deadline)
{
	uint64_t now = rd_now();

	if (now >= deadline)
		return 0;
	if (deadline - now > 3600ULL * 1000000000ULL)
		return 3600 * 1000;
	return (int)((deadline - now + 999999) / 1000000);
}

/* ------------------------------------------------------------------ */
/* Encoding                                                             */
/* ------------------------------------------------------------------ */

struct wbuf {
	uint8_t *p;
	size_t len, cap;
	bool nomem;
};

static void put(struct wbuf *b, const void *v, size_t n)
{
	if (b->nomem || !n)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		uint8_t *p;

		while (cap < b->len + n)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->nomem = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, v, n);
	b->len += n;
}

static void put32(struct wbuf *b, uint32_t v)
{
	v = htonl(v);
	put(b, &v, 4);
}

static void put64(struct wbuf *b, uint64_t v)
{
	put32(b, (uint32_t)(v >> 32));
	put32(b, (uint32_t)v);
}

struct rbuf {
	const uint8_t *p;
	size_t len, off;
	bool bad;
};

static void get(struct rbuf *b, void *v, size_t n)
{
	if (b->bad || b->len - b->off < n) {
		b->bad = true;
		memset(v, 0, n);
		return;
	}
	memcpy(v, b->p + b->off, n);
	b->off += n;
}

static uint32_t get32(struct rbuf *b)
{
	uint32_t v;

	get(b, &v, 4);
	return ntohl(v);
}

static uint64_t get64(struct rbuf *b)
{
	uint64_t hi = get32(b);

	return hi << 32 | get32(b);
}

/* ------------------------------------------------------------------ */
/* Socket I/O with the deadline                                         */
/* ------------------------------------------------------------------ */

static int write_full(struct ctl *c, int fd, const void *buf, size_t len,
		      const char *to)
{
	const uint8_t *p = buf;

	while (len) {
		struct pollfd pfd = { .fd = fd, .events = POLLOUT };
		ssize_t n;
		int ret;

		ret = poll(&pfd, 1, ms_left(c->deadline));
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0) {
			why(c, "poll (sending to %s): %s", to, strerror(errno));
			return -1;
		}
		if (ret == 0) {
			why(c, "timed out sending to %s", to);
			return -1;
		}
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0) {
			why(c, "send to %s: %s", to, strerror(errno));
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* 0, or 1 at a clean end of stream before the first byte, or -1. */
static int read_full(struct ctl *c, int fd, void *buf, size_t len,
		     const char *from)
{
	uint8_t *p = buf;
	size_t got = 0;

	while (got < len) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;
		int ret;

		ret = poll(&pfd, 1, ms_left(c->deadline));
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0) {
			why(c, "poll (reading from %s): %s", from,
			    strerror(errno));
			return -1;
		}
		if (ret == 0) {
			why(c, "timed out reading from %s", from);
			return -1;
		}
		n = recv(fd, p + got, len - got, 0);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0) {
			why(c, "recv from %s: %s", from, strerror(errno));
			return -1;
		}
		if (n == 0) {
			if (!got)
				return 1;
			why(c, "%s closed the connection mid-message", from);
			return -1;
		}
		got += (size_t)n;
	}
	return 0;
}

static int send_msg(struct ctl *c, int fd, uint32_t type,
		    const struct wbuf *body, const char *to)
{
	struct wbuf m = { 0 };
	int ret;

	if (body->nomem) {
		why(c, "out of memory building a %s for %s", tname(type), to);
		return -1;
	}
	put32(&m, CTL_MAGIC);
	put32(&m, type);
	put32(&m, (uint32_t)body->len);
	put(&m, body->p, body->len);
	if (m.nomem) {
		free(m.p);
		why(c, "out of memory sending a %s to %s", tname(type), to);
		return -1;
	}
	ret = write_full(c, fd, m.p, m.len, to);
	free(m.p);
	return ret;
}

/*
 * One message into *@type and a malloc'ed *@body of *@len bytes.  0, 1
 * if the peer closed the connection cleanly, -1 on error.
 */
static int recv_msg(struct ctl *c, int fd, uint32_t *type, uint8_t **body,
		    uint32_t *len, const char *from)
{
	uint32_t h[3];
	int ret;

	*body = NULL;
	ret = read_full(c, fd, h, sizeof(h), from);
	if (ret)
		return ret;
	if (ntohl(h[0]) != CTL_MAGIC) {
		why(c, "%s sent 0x%08x where a message starts (not %s?)",
		    from, ntohl(h[0]), rd_prog);
		return -1;
	}
	*type = ntohl(h[1]);
	*len = ntohl(h[2]);
	if (*len > CTL_MAX_BODY) {
		why(c, "%s sent a %s of %u bytes", from, tname(*type), *len);
		return -1;
	}
	*body = malloc(*len ? *len : 1);
	if (!*body) {
		why(c, "out of memory for a %s of %u bytes from %s",
		    tname(*type), *len, from);
		return -1;
	}
	ret = read_full(c, fd, *body, *len, from);
	if (ret) {
		if (ret > 0)
			why(c, "%s closed the connection mid-message", from);
		free(*body);
		*body = NULL;
		return -1;
	}
	return 0;
}

static int send_text(struct ctl *c, int fd, uint32_t type, const char *text,
		     const char *to)
{
	struct wbuf b = { 0 };
	size_t n = strnlen(text, CTL_TEXT_MAX);
	int ret;

	put(&b, text, n);
	ret = send_msg(c, fd, type, &b, to);
	free(b.p);
	return ret;
}

static void get_text(struct rbuf *b, char *out, size_t outlen)
{
	size_t n = b->len - b->off;
	size_t i;

	if (n >= outlen)
		n = outlen - 1;
	memcpy(out, b->p + b->off, n);
	out[n] = '\0';
	for (i = 0; i < n; i++)		/* keep the log readable */
		if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f)
			out[i] = '?';
}

/* ------------------------------------------------------------------ */
/* Opening                                                              */
/* ------------------------------------------------------------------ */

static void set_nodelay(int fd)
{
	int one = 1;

	/* Only latency is at stake: no error worth failing on. */
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static int hub_listen(struct ctl *c, uint16_t port)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};
	socklen_t alen = sizeof(a);
	int one = 1;

	c->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->lfd < 0) {
		why(c, "socket: %s", strerror(errno));
		return -1;
	}
	if (setsockopt(c->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one))) {
		why(c, "setsockopt(SO_REUSEADDR): %s", strerror(errno));
		return -1;
	}
	if (bind(c->lfd, (struct sockaddr *)&a, sizeof(a))) {
		why(c, "bind to TCP port %u: %s", port, strerror(errno));
		return -1;
	}
	if (listen(c->lfd, (int)c->peers)) {
		why(c, "listen on TCP port %u: %s", port, strerror(errno));
		return -1;
	}
	if (getsockname(c->lfd, (struct sockaddr *)&a, &alen)) {
		why(c, "getsockname: %s", strerror(errno));
		return -1;
	}
	c->port = ntohs(a.sin_port);
	return 0;
}

/* One non-blocking connect, waited for until @until: 0, or an errno. */
static int try_connect(int fd, const struct sockaddr_in *a, uint64_t until)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	socklen_t elen = sizeof(int);
	int flags, err = 0, ret;

	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK))
		return errno;
	if (connect(fd, (const struct sockaddr *)a, sizeof(*a))) {
		if (errno != EINPROGRESS)
			return errno;
		do
			ret = poll(&pfd, 1, ms_left(until));
		while (ret < 0 && errno == EINTR);
		if (ret < 0)
			return errno;
		if (ret == 0)
			return ETIMEDOUT;
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen))
			return errno;
		if (err)
			return err;
	}
	if (fcntl(fd, F_SETFL, flags))
		return errno;
	return 0;
}

static int client_connect(struct ctl *c, const char *hub, uint16_t port,
			  unsigned int connect_s)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
	};
	uint64_t start = rd_now();
	uint64_t until = start + (uint64_t)connect_s * 1000000000ULL;
	unsigned int tries = 0;
	int err;

	if (until > c->deadline)
		until = c->deadline;
	if (inet_pton(AF_INET, hub, &a.sin_addr) != 1) {
		why(c, "--hub %s is not an IPv4 address", hub);
		return -1;
	}
	for (;;) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (fd < 0) {
			why(c, "socket: %s", strerror(errno));
			return -1;
		}
		tries++;
		err = try_connect(fd, &a, until);
		if (!err) {
			set_nodelay(fd);
			c->fd[0] = fd;
			return 0;
		}
		close(fd);
		if (rd_now() + 250000000ULL >= until)
			break;
		/* The hub's guest may still be booting: try again. */
		usleep(250000);
	}
	why(c, "could not connect to the hub %s port %u in %.0f s (%u tries; "
	    "last: %s)", hub, port, (double)(rd_now() - start) / 1e9, tries,
	    strerror(err));
	return -1;
}

int ctl_open(struct ctl *c, unsigned int peers, unsigned int index,
	     const char *hub, uint16_t port, unsigned int connect_s,
	     uint64_t deadline)
{
	unsigned int i;

	memset(c, 0, sizeof(*c));
	c->peers = peers;
	c->index = index;
	c->port = port;
	c->lfd = -1;
	c->deadline = deadline;
	c->state = CTL_RUNNING;
	c->fd = malloc(peers * sizeof(*c->fd));
	c->done = calloc(peers, sizeof(*c->done));
	c->resent = calloc(peers, sizeof(*c->resent));
	c->nresent = calloc(peers, sizeof(*c->nresent));
	c->reports = calloc(peers, sizeof(*c->reports));
	if (!c->fd || !c->done || !c->resent || !c->nresent || !c->reports) {
		free(c->fd);
		c->fd = NULL;
		why(c, "out of memory");
		return -1;
	}
	for (i = 0; i < peers; i++)
		c->fd[i] = -1;
	if (index == 0)
		return hub_listen(c, port);
	return client_connect(c, hub, port, connect_s);
}

/* ------------------------------------------------------------------ */
/* The table                                                            */
/* ------------------------------------------------------------------ */

static void put_qpns(struct wbuf *b, const uint32_t *qpns, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		put32(b, qpns[i]);
}

static void get_qpns(struct rbuf *b, uint32_t *qpns, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		qpns[i] = get32(b);
}

static void hello_put(struct wbuf *b, const struct rd_hello *h)
{
	put32(b, CTL_VERSION);
	put32(b, h->peers);
	put32(b, h->index);
	put32(b, h->qpn);
	put32(b, h->ipv4);
	put32(b, h->messages);
	put32(b, h->max_size);
	put32(b, h->flags);
	put32(b, h->rdma_ops);
	put32(b, h->rdma_max);
	put32(b, h->win_rkey);
	put64(b, h->win_addr);
	put64(b, h->seed);
	put64(b, h->digest);
	put(b, h->gid, sizeof(h->gid));
	put32(b, h->qps);
	put32(b, h->qp_window);
	put_qpns(b, h->qpns, h->peers * h->qps);
}

/*
 * The hub reads a HELLO into @h, its QP numbers into @qpns if the sender
 * agrees with @me on their count (hello_check() says when not).
 */
static int hello_get(struct rbuf *b, struct rd_hello *h, uint32_t *version,
		     const struct rd_hello *me, uint32_t *qpns)
{
	*version = get32(b);
	h->peers = get32(b);
	h->index = get32(b);
	h->qpn = get32(b);
	h->ipv4 = get32(b);
	h->messages = get32(b);
	h->max_size = get32(b);
	h->flags = get32(b);
	h->rdma_ops = get32(b);
	h->rdma_max = get32(b);
	h->win_rkey = get32(b);
	h->win_addr = get64(b);
	h->seed = get64(b);
	h->digest = get64(b);
	get(b, h->gid, sizeof(h->gid));
	h->qps = get32(b);
	h->qp_window = get32(b);
	h->qpns = NULL;
	if (h->peers == me->peers && h->qps == me->qps) {
		get_qpns(b, qpns, h->peers * h->qps);
		h->qpns = qpns;
	}
	return b->bad ? -1 : 0;
}

/* The hub gives up: tell everybody connected why (best effort). */
static void abort_all(struct ctl *c, const char *text)
{
	char keep[sizeof(c->why)], to[32];
	unsigned int i;

	memcpy(keep, c->why, sizeof(keep));	/* keep our own reason */
	for (i = 1; i < c->peers; i++) {
		if (c->fd[i] < 0)
			continue;
		snprintf(to, sizeof(to), "participant %u", i);
		send_text(c, c->fd[i], CTL_ABORT, text, to);
	}
	memcpy(c->why, keep, sizeof(keep));
	c->state = CTL_ABORTED;
}

/* The hub: does participant @h agree with us (@me)? */
static int hello_check(struct ctl *c, const struct rd_hello *me,
		       const struct rd_hello *h, uint32_t version)
{
	if (version != CTL_VERSION) {
		why(c, "a participant speaks protocol version %u, the hub %u",
		    version, CTL_VERSION);
		return -1;
	}
	if (h->peers != me->peers) {
		why(c, "participant %u says --peers %u, the hub %u", h->index,
		    h->peers, me->peers);
		return -1;
	}
	if (h->index == 0 || h->index >= me->peers) {
		why(c, "a participant says --index %u (1 to %u expected)",
		    h->index, me->peers - 1);
		return -1;
	}
	if (c->fd[h->index] >= 0) {
		why(c, "two participants say --index %u", h->index);
		return -1;
	}
	if (h->seed != me->seed) {
		why(c, "participant %u says --seed %llu, the hub %llu",
		    h->index, (unsigned long long)h->seed,
		    (unsigned long long)me->seed);
		return -1;
	}
	if (h->max_size != me->max_size) {
		why(c, "participant %u says --max-size %u, the hub %u",
		    h->index, h->max_size, me->max_size);
		return -1;
	}
	if (h->rdma_ops != me->rdma_ops) {
		why(c, "participant %u says --rdma-ops %u, the hub %u",
		    h->index, h->rdma_ops, me->rdma_ops);
		return -1;
	}
	/* The largest transaction sizes every slot of every window. */
	if (h->rdma_ops && h->rdma_max != me->rdma_max) {
		why(c, "participant %u writes and reads %u bytes at most, the "
		    "hub %u (another device's largest RDMA size?)", h->index,
		    h->rdma_max, me->rdma_max);
		return -1;
	}
	if ((h->flags ^ me->flags) & RD_HELLO_RC) {
		why(c, "participant %u runs %s, the hub %s", h->index,
		    h->flags & RD_HELLO_RC ? "wren_rc_stress" : "wren_rd_stress",
		    rd_prog);
		return -1;
	}
	if (h->qps != me->qps) {
		why(c, "participant %u says --qps %u, the hub %u", h->index,
		    h->qps, me->qps);
		return -1;
	}
	if (h->qp_window != me->qp_window) {
		why(c, "participant %u says --window %u, the hub %u",
		    h->index, h->qp_window, me->qp_window);
		return -1;
	}
	if ((h->flags ^ me->flags) & RD_HELLO_ORDERED) {
		why(c, "participant %u %s --ordered, the hub %s", h->index,
		    h->flags & RD_HELLO_ORDERED ? "has" : "has no",
		    me->flags & RD_HELLO_ORDERED ? "has" : "has not");
		return -1;
	}
	if (h->digest != me->digest) {
		why(c, "participant %u draws other message sizes or patterns "
		    "than the hub (another build of %s?)", h->index, rd_prog);
		return -1;
	}
	return 0;
}

static void table_row(struct rd_peer *row, const struct rd_hello *h)
{
	if (h->qps && row->qpns != h->qpns)
		memcpy(row->qpns, h->qpns,
		       (size_t)h->peers * h->qps * sizeof(*row->qpns));
	row->qpn = h->qpn;
	row->ipv4 = h->ipv4;
	row->messages = h->messages;
	row->win_rkey = h->win_rkey;
	row->win_addr = h->win_addr;
	memcpy(row->gid, h->gid, sizeof(row->gid));
}

static void list_add(char *buf, size_t len, unsigned int i);

/* The participants that have not joined the hub yet. */
static void unconnected(const struct ctl *c, char *buf, size_t len)
{
	unsigned int i;

	buf[0] = '\0';
	for (i = 1; i < c->peers; i++)
		if (c->fd[i] < 0)
			list_add(buf, len, i);
}

/*
 * The hub gave up before everybody joined: for a little while, answer
 * those still joining with the reason, rather than a refused connection.
 * Their HELLO is read first, so that closing does not reset the
 * connection under the ABORT.
 */
static void hub_linger(struct ctl *c, const char *text, unsigned int joined)
{
	uint64_t until = rd_now() + 2000000000ULL;
	uint64_t deadline = c->deadline;
	char keep[sizeof(c->why)];

	if (until > deadline)
		until = deadline;
	memcpy(keep, c->why, sizeof(keep));
	while (joined < c->peers) {
		struct pollfd pfd = { .fd = c->lfd, .events = POLLIN };
		uint32_t type, len;
		uint8_t *body;
		int fd, r;

		r = poll(&pfd, 1, ms_left(until));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		fd = accept4(c->lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		c->deadline = until;
		if (!recv_msg(c, fd, &type, &body, &len, "a late participant"))
			send_text(c, fd, CTL_ABORT, text, "a late participant");
		free(body);
		c->deadline = deadline;
		close(fd);
		joined++;
	}
	memcpy(c->why, keep, sizeof(keep));
}

static int hub_start(struct ctl *c, const struct rd_hello *me,
		     struct rd_peer *table)
{
	unsigned int joined = 1, i;
	struct wbuf b = { 0 };
	char text[sizeof(c->why) + 32];
	char pending[256];
	uint32_t *qpns = NULL;
	int ret = -1;

	table_row(&table[0], me);
	if (me->qps) {
		qpns = malloc((size_t)me->peers * me->qps * sizeof(*qpns));
		if (!qpns) {
			why(c, "out of memory for the QP numbers");
			goto fail;
		}
	}
	while (joined < c->peers) {
		struct pollfd pfd = { .fd = c->lfd, .events = POLLIN };
		struct rd_hello h;
		struct rbuf rb;
		uint32_t type, len, version;
		uint8_t *body;
		int fd, r;

		r = poll(&pfd, 1, ms_left(c->deadline));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			why(c, "poll (accepting): %s", strerror(errno));
			goto fail;
		}
		if (r == 0) {
			unconnected(c, pending, sizeof(pending));
			why(c, "timed out waiting for participants to connect: "
			    "%s never did", pending);
			goto fail;
		}
		fd = accept4(c->lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			why(c, "accept: %s", strerror(errno));
			goto fail;
		}
		set_nodelay(fd);
		r = recv_msg(c, fd, &type, &body, &len, "a new participant");
		if (!r && type == CTL_FAIL) {
			char t[CTL_TEXT_MAX + 1];

			rb = (struct rbuf){ .p = body, .len = len };
			get_text(&rb, t, sizeof(t));
			why(c, "a participant failed before its HELLO: %s", t);
		} else if (!r && type != CTL_HELLO) {
			why(c, "a new participant sent a %s, not a HELLO",
			    tname(type));
		} else if (r > 0) {
			why(c, "a new participant hung up before its HELLO");
		}
		if (r || type != CTL_HELLO) {
			free(body);
			send_text(c, fd, CTL_ABORT, c->why, "a new participant");
			close(fd);
			joined++;
			goto fail;
		}
		rb = (struct rbuf){ .p = body, .len = len };
		/* The QP numbers into the scratch, table_row() copies. */
		if (hello_get(&rb, &h, &version, me, qpns) ||
		    hello_check(c, me, &h, version)) {
			if (rb.bad)
				why(c, "a new participant sent a HELLO of %u "
				    "bytes", len);
			free(body);
			send_text(c, fd, CTL_ABORT, c->why, "a new participant");
			close(fd);
			joined++;
			goto fail;
		}
		free(body);
		c->fd[h.index] = fd;
		table_row(&table[h.index], &h);
		joined++;
	}

	put32(&b, c->peers);
	for (i = 0; i < c->peers; i++) {
		put32(&b, table[i].qpn);
		put32(&b, table[i].ipv4);
		put32(&b, table[i].messages);
		put32(&b, table[i].win_rkey);
		put64(&b, table[i].win_addr);
		put(&b, table[i].gid, sizeof(table[i].gid));
		put_qpns(&b, table[i].qpns, me->peers * me->qps);
	}
	for (i = 1; i < c->peers; i++) {
		char to[32];

		snprintf(to, sizeof(to), "participant %u", i);
		if (send_msg(c, c->fd[i], CTL_TABLE, &b, to))
			goto fail;
	}
	ret = 0;
	c->started = true;
	goto out;
fail:
	snprintf(text, sizeof(text), "the hub gave up: %s", c->why);
	abort_all(c, text);
	hub_linger(c, text, joined);
out:
	free(qpns);
	free(b.p);
	return ret;
}

/*
 * A participant's next message from the hub, which must be a @want: 0
 * with @rb over its body (*@body to free, even on failure), or -1 once
 * why() said what came instead (@hangup, the hub's ABORT reason...).
 */
static int recv_from_hub(struct ctl *c, uint32_t want, const char *hangup,
			 uint8_t **body, uint32_t *len, struct rbuf *rb)
{
	uint32_t type;
	int r;

	r = recv_msg(c, c->fd[0], &type, body, len, "the hub");
	if (r > 0)
		why(c, "%s", hangup);
	if (r)
		return -1;
	*rb = (struct rbuf){ .p = *body, .len = *len };
	if (type == CTL_ABORT) {
		char text[CTL_TEXT_MAX + 1];

		get_text(rb, text, sizeof(text));
		why(c, "aborted by the hub: %s", text);
		return -1;
	}
	if (type != want) {
		why(c, "the hub sent a %s, not the %s", tname(type),
		    tname(want));
		return -1;
	}
	return 0;
}

static int client_start(struct ctl *c, const struct rd_hello *me,
			struct rd_peer *table)
{
	struct wbuf b = { 0 };
	uint32_t len, i;
	uint8_t *body = NULL;
	struct rbuf rb;
	int r;

	hello_put(&b, me);
	r = send_msg(c, c->fd[0], CTL_HELLO, &b, "the hub");
	free(b.p);
	if (r)
		goto fail;
	if (recv_from_hub(c, CTL_TABLE,
			  "the hub hung up instead of sending the table",
			  &body, &len, &rb))
		goto fail;
	if (get32(&rb) != c->peers) {
		why(c, "the hub's table is not of %u participants", c->peers);
		goto fail;
	}
	for (i = 0; i < c->peers; i++) {
		table[i].qpn = get32(&rb);
		table[i].ipv4 = get32(&rb);
		table[i].messages = get32(&rb);
		table[i].win_rkey = get32(&rb);
		table[i].win_addr = get64(&rb);
		get(&rb, table[i].gid, sizeof(table[i].gid));
		get_qpns(&rb, table[i].qpns, me->peers * me->qps);
	}
	if (rb.bad || rb.off != rb.len) {
		why(c, "the hub's table has %u bytes", len);
		goto fail;
	}
	if (table[c->index].qpn != me->qpn ||
	    table[c->index].win_addr != me->win_addr ||
	    table[c->index].win_rkey != me->win_rkey ||
	    memcmp(table[c->index].gid, me->gid, sizeof(me->gid)) ||
	    (me->qps && memcmp(table[c->index].qpns, me->qpns,
			       (size_t)me->peers * me->qps *
			       sizeof(*me->qpns)))) {
		why(c, "the hub's table does not have us as participant %u",
		    c->index);
		goto fail;
	}
	free(body);
	c->started = true;
	return 0;
fail:
	free(body);
	c->state = CTL_ABORTED;
	return -1;
}

int ctl_start(struct ctl *c, const struct rd_hello *me,
	      struct rd_peer *table)
{
	return c->index == 0 ? hub_start(c, me, table) :
			       client_start(c, me, table);
}

/* ------------------------------------------------------------------ */
/* The end                                                              */
/* ------------------------------------------------------------------ */

static int hub_record(struct ctl *c, unsigned int i,
		      const struct rd_report *r, struct rd_pair *resent,
		      uint32_t n)
{
	c->reports[i] = *r;
	c->resent[i] = resent;
	c->nresent[i] = n;
	c->done[i] = true;
	c->ndone++;
	return 0;
}

/* Everybody is done: release them all, each with its resends. */
static void hub_release(struct ctl *c)
{
	unsigned int p, s;
	uint32_t j, n;

	for (p = 0; p < c->peers; p++) {
		struct wbuf b = { 0 };
		char to[32];

		put32(&b, c->peers);
		for (s = 0; s < c->peers; s++) {
			put32(&b, c->reports[s].sent);
			put32(&b, c->reports[s].received);
			put32(&b, c->reports[s].errors);
		}
		n = 0;
		for (s = 0; s < c->peers; s++)
			for (j = 0; j < c->nresent[s]; j++)
				n += c->resent[s][j].peer == p;
		put32(&b, n);
		if (p == 0 && n) {
			c->to_me = malloc(n * sizeof(*c->to_me));
			if (!c->to_me) {
				free(b.p);
				why(c, "out of memory for the resends");
				abort_all(c, "the hub ran out of memory");
				return;
			}
		}
		for (s = 0; s < c->peers; s++) {
			for (j = 0; j < c->nresent[s]; j++) {
				if (c->resent[s][j].peer != p)
					continue;
				put32(&b, s);
				put32(&b, c->resent[s][j].k);
				if (p == 0)
					c->to_me[c->nto_me++] = (struct rd_pair){
						s, c->resent[s][j].k };
			}
		}
		if (p == 0) {
			free(b.p);
			continue;
		}
		snprintf(to, sizeof(to), "participant %u", p);
		if (send_msg(c, c->fd[p], CTL_RELEASE, &b, to)) {
			char text[sizeof(c->why) + 32];

			free(b.p);
			snprintf(text, sizeof(text), "the hub gave up: %s",
				 c->why);
			abort_all(c, text);
			return;
		}
		free(b.p);
	}
	c->state = CTL_RELEASED;
}

int ctl_done(struct ctl *c, const struct rd_report *r,
	     const struct rd_pair *resent, uint32_t nresent)
{
	struct wbuf b = { 0 };
	uint32_t i;
	int ret;

	if (c->state != CTL_RUNNING)
		return c->state == CTL_RELEASED ? 0 : -1;
	if (c->index == 0) {
		struct rd_pair *copy = NULL;

		if (nresent) {
			copy = malloc(nresent * sizeof(*copy));
			if (!copy) {
				why(c, "out of memory for the resends");
				return -1;
			}
			memcpy(copy, resent, nresent * sizeof(*copy));
		}
		hub_record(c, 0, r, copy, nresent);
		if (c->ndone == c->peers)
			hub_release(c);
		return c->state == CTL_ABORTED ? -1 : 0;
	}
	put32(&b, c->index);
	put32(&b, r->sent);
	put32(&b, r->received);
	put32(&b, r->errors);
	put32(&b, nresent);
	for (i = 0; i < nresent; i++) {
		put32(&b, resent[i].peer);
		put32(&b, resent[i].k);
	}
	ret = send_msg(c, c->fd[0], CTL_DONE, &b, "the hub");
	free(b.p);
	if (ret)
		c->state = CTL_ABORTED;
	return ret;
}

/* The hub: one message from participant @i. */
static void hub_serve(struct ctl *c, unsigned int i)
{
	char from[32], text[sizeof(c->why) + 64];
	uint32_t type, len, n, j;
	struct rd_pair *list = NULL;
	struct rd_report r;
	uint8_t *body;
	struct rbuf rb;
	int ret;

	snprintf(from, sizeof(from), "participant %u", i);
	ret = recv_msg(c, c->fd[i], &type, &body, &len, from);
	if (ret > 0)
		why(c, "participant %u hung up before the end%s", i,
		    c->done[i] ? "" : " (it had not said it was done)");
	if (ret)
		goto fail;
	rb = (struct rbuf){ .p = body, .len = len };
	if (type == CTL_FAIL) {
		char t[CTL_TEXT_MAX + 1];

		get_text(&rb, t, sizeof(t));
		why(c, "participant %u failed: %s", i, t);
		goto fail;
	}
	if (type != CTL_DONE || c->done[i]) {
		why(c, "participant %u sent %s%s", i,
		    type == CTL_DONE ? "a second " : "a ", tname(type));
		goto fail;
	}
	if (get32(&rb) != i) {
		why(c, "participant %u's DONE names another", i);
		goto fail;
	}
	r.sent = get32(&rb);
	r.received = get32(&rb);
	r.errors = get32(&rb);
	n = get32(&rb);
	if (rb.bad || (uint64_t)n * 8 != rb.len - rb.off) {
		why(c, "participant %u sent a DONE of %u bytes", i, len);
		goto fail;
	}
	if (n) {
		list = malloc(n * sizeof(*list));
		if (!list) {
			why(c, "out of memory for participant %u's resends", i);
			goto fail;
		}
	}
	for (j = 0; j < n; j++) {
		list[j].peer = get32(&rb);
		list[j].k = get32(&rb);
		if (list[j].peer >= c->peers || list[j].peer == i) {
			why(c, "participant %u says it resent to participant "
			    "%u", i, list[j].peer);
			free(list);
			goto fail;
		}
	}
	free(body);
	hub_record(c, i, &r, list, n);
	return;
fail:
	free(body);
	snprintf(text, sizeof(text), "%s", c->why);
	abort_all(c, text);
}

/* A participant: the hub's word. */
static void client_serve(struct ctl *c)
{
	uint32_t len, s, n, j;
	uint8_t *body;
	struct rbuf rb;

	if (recv_from_hub(c, CTL_RELEASE,
			  "the hub hung up before it released us",
			  &body, &len, &rb))
		goto fail;
	if (get32(&rb) != c->peers) {
		why(c, "the hub's RELEASE is not for %u participants",
		    c->peers);
		goto fail;
	}
	for (s = 0; s < c->peers; s++) {
		c->reports[s].sent = get32(&rb);
		c->reports[s].received = get32(&rb);
		c->reports[s].errors = get32(&rb);
	}
	n = get32(&rb);
	if (rb.bad || (uint64_t)n * 8 != rb.len - rb.off) {
		why(c, "the hub sent a RELEASE of %u bytes", len);
		goto fail;
	}
	if (n) {
		c->to_me = malloc(n * sizeof(*c->to_me));
		if (!c->to_me) {
			why(c, "out of memory for the resends");
			goto fail;
		}
	}
	for (j = 0; j < n; j++) {
		c->to_me[j].peer = get32(&rb);
		c->to_me[j].k = get32(&rb);
	}
	c->nto_me = n;
	free(body);
	c->state = CTL_RELEASED;
	return;
fail:
	free(body);
	c->state = CTL_ABORTED;
}

enum ctl_state ctl_poll(struct ctl *c, int timeout_ms)
{
	struct pollfd pfd[RD_MAX_PEERS];
	unsigned int map[RD_MAX_PEERS];
	unsigned int n = 0, i;
	int ret;

	if (c->state != CTL_RUNNING)
		return c->state;
	for (i = 0; i < c->peers; i++) {
		if (c->fd[i] < 0)
			continue;
		pfd[n] = (struct pollfd){ .fd = c->fd[i], .events = POLLIN };
		map[n++] = i;
	}
	ret = poll(pfd, n, timeout_ms);
	if (ret < 0 && errno != EINTR) {
		why(c, "poll (control connections): %s", strerror(errno));
		if (c->index == 0)
			abort_all(c, "the hub failed polling its connections");
		c->state = CTL_ABORTED;
		return c->state;
	}
	for (i = 0; ret > 0 && i < n && c->state == CTL_RUNNING; i++) {
		if (!pfd[i].revents)
			continue;
		if (c->index == 0)
			hub_serve(c, map[i]);
		else
			client_serve(c);
	}
	if (c->index == 0 && c->state == CTL_RUNNING && c->ndone == c->peers)
		hub_release(c);
	return c->state;
}

void ctl_fail(struct ctl *c, const char *text)
{
	char t[CTL_TEXT_MAX + 64];

	if (c->state != CTL_RUNNING || !c->fd)
		return;
	if (c->index == 0) {
		unsigned int joined = 1, i;

		snprintf(t, sizeof(t), "participant 0 (the hub) failed: %s",
			 text);
		for (i = 1; i < c->peers; i++)
			joined += c->fd[i] >= 0;
		abort_all(c, t);
		/* Before the table, some may be waiting to be accepted. */
		if (!c->started && c->lfd >= 0)
			hub_linger(c, t, joined);
		return;
	}
	if (c->fd[0] >= 0) {
		char keep[sizeof(c->why)];

		memcpy(keep, c->why, sizeof(keep));
		send_text(c, c->fd[0], CTL_FAIL, text, "the hub");
		memcpy(c->why, keep, sizeof(keep));
	}
	c->state = CTL_ABORTED;
}

/* Append ", I" (or "I") to the list in @buf. */
static void list_add(char *buf, size_t len, unsigned int i)
{
	size_t off = strlen(buf);

	if (off < len)
		snprintf(buf + off, len - off, "%s%u", off ? ", " : "", i);
}

void ctl_pending(const struct ctl *c, char *buf, size_t len)
{
	unsigned int i;

	buf[0] = '\0';
	if (c->index != 0) {
		snprintf(buf, len, "(only the hub knows)");
		return;
	}
	for (i = 0; i < c->peers; i++)
		if (!c->done[i])
			list_add(buf, len, i);
	if (!buf[0])
		snprintf(buf, len, "none");
}

void ctl_close(struct ctl *c)
{
	unsigned int i;

	if (c->fd) {
		for (i = 0; i < c->peers; i++)
			if (c->fd[i] >= 0)
				close(c->fd[i]);
	}
	if (c->lfd >= 0)
		close(c->lfd);
	c->lfd = -1;
	if (c->resent)
		for (i = 0; i < c->peers; i++)
			free(c->resent[i]);
	free(c->fd);
	free(c->done);
	free(c->resent);
	free(c->nresent);
	free(c->reports);
	free(c->to_me);
	c->fd = NULL;
	c->done = NULL;
	c->resent = NULL;
	c->nresent = NULL;
	c->reports = NULL;
	c->to_me = NULL;
}
