// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The guest programs' shared plumbing (swap_tool.h): messages to the
 * user, the device, the TCP rendezvous and the message generator.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "swap_tool.h"

unsigned int tool_index;

static void vsay(const char *tag, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: index %u: %s", tool_prog, tool_index, tag);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	fflush(stderr);
}

void tool_say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("", fmt, ap);
	va_end(ap);
}

void tool_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("error: ", fmt, ap);
	va_end(ap);
	printf("%s: index %u FAILED\n", tool_prog, tool_index);
	exit(1);
}

uint64_t tool_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t tool_num(const char *opt, const char *s)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *s == '-')
		tool_die("--%s %s: not a number", opt, s);
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	}
	if (*end)
		tool_die("--%s %s: not a number", opt, s);
	return v;
}

enum swap_transport tool_transport(const char *s)
{
	if (!strcmp(s, "rd"))
		return SWAP_TRANSPORT_RD;
	if (!strcmp(s, "rc"))
		return SWAP_TRANSPORT_RC;
	if (strcmp(s, "auto"))
		tool_die("--transport %s: rd, rc or auto", s);
	return SWAP_TRANSPORT_AUTO;
}

struct ibv_pd *tool_open(const char *name)
{
	struct ibv_device **devs;
	struct ibv_context *ctx = NULL;
	struct ibv_pd *pd;
	int n, i;

	devs = ibv_get_device_list(&n);
	if (!devs || !n)
		tool_die("no RDMA device");
	for (i = 0; i < n && !ctx; i++)
		if (!name || !strcmp(ibv_get_device_name(devs[i]), name))
			ctx = ibv_open_device(devs[i]);
	if (!ctx)
		tool_die("cannot open device %s", name ? name : "(first)");
	ibv_free_device_list(devs);
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		tool_die("ibv_alloc_pd: %s", strerror(errno));
	return pd;
}

static void io_all(int fd, void *buf, size_t len, bool out)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n = out ? send(fd, p, len, MSG_NOSIGNAL) :
				  recv(fd, p, len, 0);

		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			tool_die("rendezvous: %s", n ? strerror(errno) :
				 "connection closed");
		}
		p += n;
		len -= (size_t)n;
	}
}

/* Like io_all() reading, but false where the peer has gone. */
static bool read_or_gone(int fd, void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n = recv(fd, p, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}

void tool_ctl_start(struct tool_ctl *c, unsigned int peers,
		    unsigned int index, const char *hub, uint16_t port,
		    unsigned int timeout_s)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port) };
	uint64_t until = tool_now_ns() + timeout_s * 1000000000ULL;
	int one = 1, fd;
	unsigned int i;
	uint32_t who;

	memset(c, 0, sizeof(*c));
	c->peers = peers;
	c->index = index;
	if (index) {
		if (inet_pton(AF_INET, hub, &a.sin_addr) != 1)
			tool_die("--hub %s: not an IPv4 address", hub);
		for (;;) {
			fd = socket(AF_INET, SOCK_STREAM, 0);
			if (fd < 0)
				tool_die("socket: %s", strerror(errno));
			if (!connect(fd, (struct sockaddr *)&a, sizeof(a)))
				break;
			close(fd);
			if (tool_now_ns() > until)
				tool_die("no hub at %s:%u", hub, port);
			usleep(200000);
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		who = htonl(index);
		io_all(fd, &who, sizeof(who), true);
		c->fd = fd;
		return;
	}
	c->fds = calloc(peers, sizeof(*c->fds));
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
				 sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 64))
		tool_die("listening on port %u: %s", port, strerror(errno));
	for (i = 1; i < peers; i++) {
		int cfd = accept(fd, NULL, NULL);

		if (cfd < 0)
			tool_die("accept: %s", strerror(errno));
		setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		io_all(cfd, &who, sizeof(who), false);
		who = ntohl(who);
		if (!who || who >= peers || c->fds[who])
			tool_die("rendezvous: a participant says it is %u",
				 who);
		c->fds[who] = cfd;
	}
	close(fd);
}

void tool_ctl_exchange(struct tool_ctl *c, const void *row, void *col,
		       size_t len)
{
	size_t rowlen = (size_t)c->peers * len;
	uint8_t *all, *out;
	unsigned int i, j;

	if (c->index) {
		io_all(c->fd, (void *)row, rowlen, true);
		io_all(c->fd, col, rowlen, false);
		return;
	}
	all = malloc(rowlen * c->peers);
	out = malloc(rowlen);
	if (!all || !out)
		tool_die("out of memory");
	memcpy(all, row, rowlen);
	for (i = 1; i < c->peers; i++)
		io_all(c->fds[i], all + i * rowlen, rowlen, false);
	for (i = 0; i < c->peers; i++) {
		/* Record j of i's column: what j gave for i. */
		for (j = 0; j < c->peers; j++)
			memcpy(out + j * len, all + j * rowlen + i * len, len);
		if (i)
			io_all(c->fds[i], out, rowlen, true);
		else
			memcpy(col, out, rowlen);
	}
	free(all);
	free(out);
}

int tool_ctl_barrier(struct tool_ctl *c, int status)
{
	uint32_t v = htonl((uint32_t)status);
	int worst = status;
	unsigned int i;

	if (c->index) {
		io_all(c->fd, &v, sizeof(v), true);
		if (!read_or_gone(c->fd, &v, sizeof(v)))
			return 2;
		return (int)ntohl(v);
	}
	for (i = 1; i < c->peers; i++) {
		if (c->fds[i] < 0)
			continue;
		if (!read_or_gone(c->fds[i], &v, sizeof(v))) {
			close(c->fds[i]);
			c->fds[i] = -1;
			v = htonl(2);
		}
		if ((int)ntohl(v) > worst)
			worst = (int)ntohl(v);
	}
	v = htonl((uint32_t)worst);
	for (i = 1; i < c->peers; i++)
		if (c->fds[i] >= 0)
			send(c->fds[i], &v, sizeof(v), MSG_NOSIGNAL);
	return worst;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x7fb5d329728ea185ULL;
	x ^= x >> 27;
	x *= 0x81dadef4bc2dd44dULL;
	x ^= x >> 33;
	return x;
}

static uint64_t key_hash(const struct tool_key *key)
{
	return mix(key->seed ^ mix((uint64_t)key->src << 40 ^
				   (uint64_t)key->dst << 20 ^ key->stream) ^
		   mix(key->k + 0x9e3779b97f4a7c15ULL));
}

size_t tool_size(const struct tool_key *key, size_t buf_size, size_t max)
{
	uint64_t h = mix(key_hash(key) + 1);
	double u = (double)(h >> 11) / (double)(1ULL << 53);

	if (max <= buf_size || h & 1)
		return (size_t)((h >> 1) % ((max < buf_size ? max : buf_size) +
					    1));
	/* log-uniform in (buf_size, max] */
	return (size_t)floor(exp(log((double)buf_size + 1) +
				 u * (log((double)max + 1) -
				      log((double)buf_size + 1))));
}

void tool_fill(const struct tool_key *key, uint8_t *buf, size_t len)
{
	uint64_t x = key_hash(key) | 1, v;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(buf + i, &x, 8);
	}
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	v = x;
	memcpy(buf + i, &v, len - i);
}

size_t tool_check(const struct tool_key *key, const uint8_t *buf,
		  size_t len)
{
	uint64_t x = key_hash(key) | 1;
	size_t i, j;

	for (i = 0; i < len; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		for (j = 0; j < 8 && i + j < len; j++)
			if (buf[i + j] != (uint8_t)(x >> (8 * j)))
				return i + j;
	}
	return len;
}
