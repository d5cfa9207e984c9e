// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The helpers both programs of tools/rdtest use (common.h): messages to
 * the user, numbers, bitmaps, and opening the device, its port and GID.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "rdtest.h"

unsigned int rd_index;
char rd_failure[512];
volatile sig_atomic_t rd_signal;

static void vsay(FILE *f, const char *tag, const char *fmt, va_list ap)
{
	fprintf(f, "%s: index %u: %s", rd_prog, rd_index, tag);
	vfprintf(f, fmt, ap);
	fputc('\n', f);
	fflush(f);
}

void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(stderr, "", fmt, ap);
	va_end(ap);
}

void fail(const char *fmt, ...)
{
	va_list ap;

	if (!rd_failure[0]) {
		va_start(ap, fmt);
		vsnprintf(rd_failure, sizeof(rd_failure), fmt, ap);
		va_end(ap);
	}
	va_start(ap, fmt);
	vsay(stderr, "error: ", fmt, ap);
	va_end(ap);
}

void data_error(unsigned int *logged, uint64_t *counter, const char *fmt,
		...)
{
	va_list ap;

	(*counter)++;
	if ((*logged)++ >= MAX_LOGGED) {
		if (*logged == MAX_LOGGED + 1)
			note("further wrong messages are counted, not shown");
		return;
	}
	va_start(ap, fmt);
	vsay(stderr, "", fmt, ap);
	va_end(ap);
}

/*
 * The error of a verbs call: those returning an errno value give it,
 * those returning -1 leave it in errno.
 */
const char *verr(int ret)
{
	int e = ret > 0 ? ret : ret == -1 ? errno : -ret;

	return strerror(e ? e : EIO);
}

double secs(uint64_t ns)
{
	return (double)ns / NS;
}

const char *gid_str(const uint8_t *gid, char *buf, size_t len)
{
	if (!inet_ntop(AF_INET6, gid, buf, (socklen_t)len))
		snprintf(buf, len, "?");
	return buf;
}

int parse_num(const char *opt, const char *s, uint64_t min, uint64_t max,
	      bool sizes, uint64_t *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	if (!*s || *s == '-')
		goto bad;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		goto bad;
	if (sizes && (*end == 'k' || *end == 'K')) {
		v = v > UINT64_MAX >> 10 ? UINT64_MAX : v << 10;
		end++;
	} else if (sizes && (*end == 'm' || *end == 'M')) {
		v = v > UINT64_MAX >> 20 ? UINT64_MAX : v << 20;
		end++;
	}
	if (*end)
		goto bad;
	if (v < min || v > max) {
		fprintf(stderr, "%s: --%s %s: must be %" PRIu64 " to %" PRIu64
			"\n", rd_prog, opt, s, min, max);
		return -1;
	}
	*out = v;
	return 0;
bad:
	fprintf(stderr, "%s: --%s %s: not a number\n", rd_prog, opt, s);
	return -1;
}

void rd_usage_base(FILE *f)
{
	fprintf(f,
"  --peers N         participants in all, 2 to %u\n"
"  --index I         this participant, 0 to N-1; 0 is the hub and listens\n"
"  --hub IP          the hub's IPv4 address (required unless --index 0)\n"
"  --device NAME     the RDMA device (the first one)\n"
"  --gid-index G     the source GID index (0)\n"
"  --timeout SECONDS give up after this long, saying what is missing (600)\n",
		RD_MAX_PEERS);
}

/* The option @c of rd_parse_opts()'s own: 1 if taken, 0 if not, -1. */
static int take_base(struct rd_base *b, int c, const char *name,
		     const char *arg, bool *have_peers, bool *have_index)
{
	uint64_t v;

	switch (c) {
	case 'n':
		if (parse_num(name, arg, 2, RD_MAX_PEERS, false, &v))
			return -1;
		b->peers = (unsigned int)v;
		*have_peers = true;
		return 1;
	case 'i':
		if (parse_num(name, arg, 0, RD_MAX_PEERS - 1, false, &v))
			return -1;
		b->index = (unsigned int)v;
		*have_index = true;
		return 1;
	case 'H':
		b->hub = arg;
		return 1;
	case 'p':
		if (parse_num(name, arg, 1, 65535, false, &v))
			return -1;
		b->port = (uint16_t)v;
		return 1;
	case 's':
		if (parse_num(name, arg, 0, UINT64_MAX, false, &v))
			return -1;
		b->seed = v;
		return 1;
	case 'd':
		b->device = arg;
		return 1;
	case 'g':
		if (parse_num(name, arg, 0, 65535, false, &v))
			return -1;
		b->gid_index = (unsigned int)v;
		return 1;
	case 'S':
		if (parse_num(name, arg, 1, 1U << 30, true, &v))
			return -1;
		b->max_size = (uint32_t)v;
		return 1;
	case 't':
		if (parse_num(name, arg, 1, 7 * 86400, false, &v))
			return -1;
		b->timeout = (unsigned int)v;
		return 1;
	}
	return 0;
}

int rd_parse_opts(int argc, char **argv, struct rd_base *b,
		  const struct rd_optdef *def, void *opts)
{
	static const struct option base[] = {
		{ "peers", required_argument, NULL, 'n' },
		{ "index", required_argument, NULL, 'i' },
		{ "hub", required_argument, NULL, 'H' },
		{ "port", required_argument, NULL, 'p' },
		{ "seed", required_argument, NULL, 's' },
		{ "device", required_argument, NULL, 'd' },
		{ "gid-index", required_argument, NULL, 'g' },
		{ "max-size", required_argument, NULL, 'S' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
	};
	const size_t nbase = sizeof(base) / sizeof(base[0]);
	struct option all[64];
	bool have_peers = false, have_index = false;
	size_t n = 0;
	int c, ret;

	while (def->longopts[n].name)
		n++;
	if (nbase + n + 1 > sizeof(all) / sizeof(all[0]))
		abort();	/* a program with that many options: grow all */
	memcpy(all, base, sizeof(base));
	memcpy(all + nbase, def->longopts, (n + 1) * sizeof(*all));
	while ((c = getopt_long(argc, argv, "", all, NULL)) != -1) {
		const char *name = "?";
		const struct option *lo;

		for (lo = all; lo->name; lo++)
			if (lo->val == c)
				name = lo->name;
		if (c == 'h') {
			def->usage(stdout);
			exit(0);
		}
		if (c == '?') {
			def->usage(stderr);
			return -1;
		}
		ret = take_base(b, c, name, optarg, &have_peers, &have_index);
		if (!ret)
			ret = def->take(opts, c, name, optarg) ? -1 : 1;
		if (ret < 0)
			return -1;
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument %s\n", rd_prog,
			argv[optind]);
		return -1;
	}
	if (!have_peers || !have_index) {
		fprintf(stderr, "%s: --peers and --index are required\n",
			rd_prog);
		def->usage(stderr);
		return -1;
	}
	if (b->index >= b->peers) {
		fprintf(stderr, "%s: --index %u: must be below --peers %u\n",
			rd_prog, b->index, b->peers);
		return -1;
	}
	if (b->index && !b->hub) {
		fprintf(stderr, "%s: --hub is required unless --index 0\n",
			rd_prog);
		return -1;
	}
	return 0;
}

void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static void on_signal(int sig)
{
	rd_signal = sig;
}

void rd_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	signal(SIGPIPE, SIG_IGN);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

uint64_t *bitmap_new(uint32_t bits)
{
	return calloc((bits + 63) / 64 + 1, sizeof(uint64_t));
}

bool test_and_set(uint64_t *map, uint32_t bit)
{
	uint64_t m = 1ULL << (bit % 64);
	bool was = map[bit / 64] & m;

	map[bit / 64] |= m;
	return was;
}

bool test_bit(const uint64_t *map, uint32_t bit)
{
	return map[bit / 64] & (1ULL << (bit % 64));
}

/* Port RD_IB_PORT must be up, GID @gid_index set. */
static int open_port(struct rd_dev *dv, unsigned int gid_index)
{
	static const uint8_t v4mapped[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	int ret;

	ret = ibv_query_port(dv->ctx, RD_IB_PORT, &dv->port);
	if (ret) {
		fail("ibv_query_port(%u): %s", RD_IB_PORT, verr(ret));
		return -1;
	}
	if (dv->port.state != IBV_PORT_ACTIVE) {
		fail("port %u of %s is %s, not ACTIVE", RD_IB_PORT,
		     ibv_get_device_name(dv->dev),
		     ibv_port_state_str(dv->port.state));
		return -1;
	}
	if (gid_index >= (unsigned int)dv->port.gid_tbl_len) {
		fail("--gid-index %u: port %u has %d GIDs", gid_index,
		     RD_IB_PORT, dv->port.gid_tbl_len);
		return -1;
	}
	ret = ibv_query_gid(dv->ctx, RD_IB_PORT, (int)gid_index, &dv->gid);
	if (ret) {
		fail("ibv_query_gid(port %u, index %u): %s", RD_IB_PORT,
		     gid_index, verr(ret));
		return -1;
	}
	if (!dv->gid.global.subnet_prefix && !dv->gid.global.interface_id) {
		fail("GID %u of port %u is zero", gid_index, RD_IB_PORT);
		return -1;
	}
	/* ::ffff:a.b.c.d: the adapter's IPv4 address. */
	if (!memcmp(dv->gid.raw, v4mapped, sizeof(v4mapped)))
		memcpy(&dv->ipv4, dv->gid.raw + 12, 4);
	return 0;
}

int rd_dev_open(struct rd_dev *dv, const char *name, unsigned int gid_index)
{
	char names[256] = "";
	int n, i, ret;

	dv->devs = ibv_get_device_list(&n);
	if (!dv->devs) {
		fail("ibv_get_device_list: %s%s", strerror(errno),
		     errno == ENOSYS ? " (no RDMA support here: is ib_uverbs "
		     "loaded?)" : "");
		return -1;
	}
	if (n == 0) {
		fail("no RDMA device (is wren_ib loaded?)");
		return -1;
	}
	for (i = 0; i < n; i++) {
		const char *dname = ibv_get_device_name(dv->devs[i]);
		size_t off = strlen(names);

		snprintf(names + off, sizeof(names) - off, "%s%s",
			 i ? ", " : "", dname);
		if (!dv->dev && (!name || !strcmp(dname, name)))
			dv->dev = dv->devs[i];
	}
	if (!dv->dev) {
		fail("no RDMA device %s (there are: %s)", name, names);
		return -1;
	}
	dv->ctx = ibv_open_device(dv->dev);
	if (!dv->ctx) {
		fail("ibv_open_device(%s): %s", ibv_get_device_name(dv->dev),
		     strerror(errno));
		return -1;
	}
	ret = ibv_query_device(dv->ctx, &dv->attr);
	if (ret) {
		fail("ibv_query_device: %s", verr(ret));
		return -1;
	}
	return open_port(dv, gid_index);
}

void rd_dev_close(struct rd_dev *dv)
{
	int ret;

	if (dv->ctx) {
		ret = ibv_close_device(dv->ctx);
		if (ret)
			fail("ibv_close_device: %s", verr(ret));
	}
	if (dv->devs)
		ibv_free_device_list(dv->devs);
	dv->ctx = NULL;
	dv->devs = NULL;
}
