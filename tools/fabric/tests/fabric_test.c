// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The fabric's self-test: start the real binary on loopback, play two or
 * three guests with UDP sockets sending frames built as Wren's are
 * (Ethernet, IPv4, UDP to port 0x5752 from an entropy source port, the
 * Wren header), and check what comes out and what --stats says.  TAP,
 * then "N passed, N failed"; exit 1 if any failed.
 *
 *   fabric_test PATH/TO/fabric
 *
 * Timing on a loaded two-core machine is not ours to control: lower
 * bounds on delays are strict (the fabric must never release early),
 * upper bounds loose, and the black-hole test leaves its first phase
 * 1.7 s for 400 frames (taking longer is a failure, not a skip).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tap_ok.h"
#include "flow.h"
#include "wren_compat.h"
#include <linux/wren/wren_wire.h>

#define MAX_GUESTS	3
#define FRAME_MAX	2048
#define PAYLOAD		64

static const char *fabric_bin;
static char tmpdir[256];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ---- guests ---------------------------------------------------------- */

struct guest {
	int fd;
	uint16_t port;		/* its QEMU local.port */
	uint32_t ip;
};

static int guest_open(struct guest *g, uint32_t ip)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t al = sizeof(a);
	int sz = 16 << 20;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	g->ip = ip;
	g->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	if (g->fd < 0)
		return -1;
	/* A burst of 20 000 frames must not overflow our own buffer. */
	if (setsockopt(g->fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)))
		setsockopt(g->fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	if (bind(g->fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(g->fd, (struct sockaddr *)&a, &al))
		return -1;
	g->port = ntohs(a.sin_port);
	return 0;
}

static void guest_close(struct guest *g)
{
	close(g->fd);
}

static uint8_t pattern(uint32_t seq, size_t i)
{
	return (uint8_t)(seq * 31 + i * 7);
}

/* A Wren DATA frame from @sip to @dip; its PSN carries @seq. */
static size_t wren_frame(uint8_t *f, uint32_t sip, uint32_t dip,
			 uint16_t sport, uint32_t seq)
{
	uint8_t *wh = f + WREN_WIRE_HDR, *d = wh + sizeof(struct wren_wire_hdr);
	uint8_t *pl = f + WREN_WIRE_DATA_HDRS_LEN;
	size_t len = WREN_WIRE_DATA_HDRS_LEN + PAYLOAD, i;
	struct wren_wire_l2l4 h = {
		.dst_mac = { 0x02, 0, dip >> 24, dip >> 16, dip >> 8, dip },
		.src_mac = { 0x02, 0, sip >> 24, sip >> 16, sip >> 8, sip },
		.saddr = sip, .daddr = dip, .sport = sport,
		.dport = WREN_WIRE_UDP_PORT, .proto = WREN_WIRE_IPPROTO_UDP,
	};

	memset(f, 0, len);
	wren_wire_put_l2l4(f, len, &h);
	wh[0] = WREN_WIRE_VERSION << 4 | WREN_WIRE_DATA;
	wh[2] = sport & 0xf;
	wren_wire_put32(wh + offsetof(struct wren_wire_hdr, psn), seq);
	wren_wire_put32(wh + offsetof(struct wren_wire_hdr, src_ctx), sip);
	wren_wire_put32(wh + offsetof(struct wren_wire_hdr, dst_ctx),
			WREN_WIRE_CTX_NONE);
	wren_wire_put32(d + offsetof(struct wren_wire_data, msn), seq);
	wren_wire_put32(d + offsetof(struct wren_wire_data, msg_len), PAYLOAD);
	d[offsetof(struct wren_wire_data, opcode)] = WREN_WIRE_OP_SEND;
	for (i = 0; i < PAYLOAD; i++)
		pl[i] = pattern(seq, i);
	return len;
}

/* An ARP request, broadcast: what a guest's stack sends first. */
static size_t arp_frame(uint8_t *f, uint32_t sip, uint32_t tip)
{
	memset(f, 0, 42);
	memset(f, 0xff, 6);
	f[6] = 0x02;
	wren_wire_put32(f + 8, sip);
	wren_wire_put16(f + 12, 0x0806);
	wren_wire_put16(f + 14, 1);
	wren_wire_put16(f + 16, 0x0800);
	f[18] = 6;
	f[19] = 4;
	wren_wire_put16(f + 20, 1);
	memcpy(f + 22, f + 6, 6);
	wren_wire_put32(f + 28, sip);
	wren_wire_put32(f + 38, tip);
	return 42;
}

static uint32_t entropy(uint32_t i)
{
	return WREN_WIRE_ENTROPY_BASE + ((i * 7919) & WREN_WIRE_ENTROPY_MASK);
}

static uint32_t path_of(uint32_t sip, uint32_t dip, uint16_t sport,
			uint32_t npaths)
{
	if (npaths <= 1)
		return 0;
	return flow_pick(flow_hash_v4(0, sip, dip, 17, sport,
				      WREN_WIRE_UDP_PORT), npaths);
}

/* ---- receiving ------------------------------------------------------- */

#define SEQ_OTHER	UINT32_MAX	/* not a Wren frame of ours */

struct rxlog {
	uint32_t *seq;
	uint64_t *t;
	uint32_t n, cap;
	uint32_t corrupt;
};

static void rx_init(struct rxlog *l, uint32_t cap)
{
	l->seq = calloc(cap, sizeof(*l->seq));
	l->t = calloc(cap, sizeof(*l->t));
	l->n = 0;
	l->cap = cap;
	l->corrupt = 0;
}

static void rx_free(struct rxlog *l)
{
	free(l->seq);
	free(l->t);
}

/* Our frames must come out exactly as they went in. */
static uint32_t rx_check(const uint8_t *f, ssize_t len, struct rxlog *l)
{
	uint32_t seq;
	size_t i;

	if (len != (ssize_t)(WREN_WIRE_DATA_HDRS_LEN + PAYLOAD) ||
	    wren_wire_get16(f + WREN_WIRE_ETH_TYPE) != WREN_WIRE_ETH_P_IPV4)
		return SEQ_OTHER;
	seq = wren_wire_get32(f + WREN_WIRE_HDR +
			      offsetof(struct wren_wire_hdr, psn));
	if (wren_wire_get16(f + WREN_WIRE_IP_CSUM) !=
	    wren_wire_ipv4_csum(f + WREN_WIRE_IP))
		l->corrupt++;
	for (i = 0; i < PAYLOAD; i++)
		if (f[WREN_WIRE_DATA_HDRS_LEN + i] != pattern(seq, i)) {
			l->corrupt++;
			break;
		}
	return seq;
}

/* Read whatever is queued now, without waiting. */
static void rx_now(int fd, struct rxlog *l)
{
	uint8_t f[FRAME_MAX];
	ssize_t n;

	while ((n = recv(fd, f, sizeof(f), 0)) >= 0) {
		uint32_t seq = rx_check(f, n, l);

		if (l->n < l->cap) {
			l->seq[l->n] = seq;
			l->t[l->n] = now_ns();
			l->n++;
		}
	}
}

/* Read until nothing has come for @idle_ms (or @max_ms in all). */
static void rx_drain(int fd, struct rxlog *l, int idle_ms, int max_ms)
{
	uint64_t end = now_ns() + (uint64_t)max_ms * 1000000ULL;
	struct pollfd p = { .fd = fd, .events = POLLIN };

	while (now_ns() < end) {
		if (poll(&p, 1, idle_ms) <= 0)
			break;
		rx_now(fd, l);
	}
}

/* ---- the fabric ------------------------------------------------------ */

struct fab {
	pid_t pid;
	uint16_t fport[MAX_GUESTS];	/* where guest i sends */
	uint64_t ready_ns;
	char stats[300], pcap[300], pcap_in[300], ports[300], log[300];
};

static int send_to(const struct guest *g, const struct fab *fb, int port,
		   const uint8_t *f, size_t len)
{
	struct sockaddr_in a = { .sin_family = AF_INET };

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons(fb->fport[port]);
	return sendto(g->fd, f, len, 0, (struct sockaddr *)&a,
		      sizeof(a)) == (ssize_t)len ? 0 : -1;
}

static void show_log(const char *file)
{
	char line[512];
	FILE *f = fopen(file, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		printf("# %s", line);
	fclose(f);
}

/* Start the fabric for @n guests; @extra is NULL-terminated. */
static int fab_start(struct fab *fb, const char *name, struct guest *g,
		     int n, const char **extra)
{
	char portarg[MAX_GUESTS][40];
	const char *argv[64];
	int argc = 0, i, fd;
	uint64_t end;
	FILE *pf;

	memset(fb, 0, sizeof(*fb));
	snprintf(fb->stats, sizeof(fb->stats), "%s/%s.json", tmpdir, name);
	snprintf(fb->pcap, sizeof(fb->pcap), "%s/%s.pcap", tmpdir, name);
	snprintf(fb->pcap_in, sizeof(fb->pcap_in), "%s/%s-in.pcap", tmpdir,
		 name);
	snprintf(fb->ports, sizeof(fb->ports), "%s/%s.ports", tmpdir, name);
	snprintf(fb->log, sizeof(fb->log), "%s/%s.log", tmpdir, name);
	argv[argc++] = fabric_bin;
	for (i = 0; i < n; i++) {
		/* Listen port 0: the fabric picks, --ports-file tells. */
		snprintf(portarg[i], sizeof(portarg[i]), "%d:0:%u", i,
			 g[i].port);
		argv[argc++] = "--port";
		argv[argc++] = portarg[i];
	}
	argv[argc++] = "--ports-file";
	argv[argc++] = fb->ports;
	argv[argc++] = "--stats";
	argv[argc++] = fb->stats;
	while (extra && *extra)
		argv[argc++] = *extra++;
	argv[argc] = NULL;

	fb->pid = fork();
	if (fb->pid < 0)
		return -1;
	if (!fb->pid) {
		fd = open(fb->log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0)
			dup2(fd, 2);
		execv(fabric_bin, (char **)argv);
		_exit(127);
	}
	end = now_ns() + 5000000000ULL;
	while (access(fb->ports, R_OK)) {
		if (now_ns() > end || waitpid(fb->pid, NULL, WNOHANG)) {
			show_log(fb->log);
			return -1;
		}
		sleep_ms(1);
	}
	fb->ready_ns = now_ns();
	pf = fopen(fb->ports, "r");
	if (!pf)
		return -1;
	for (i = 0; i < n; i++) {
		unsigned int id, lp, pp;

		if (fscanf(pf, "%u %u %u", &id, &lp, &pp) != 3 ||
		    id >= MAX_GUESTS) {
			fclose(pf);
			return -1;
		}
		fb->fport[id] = (uint16_t)lp;
	}
	fclose(pf);
	return 0;
}

/* SIGTERM, and the fabric must exit 0 having written its stats. */
static int fab_stop(struct fab *fb)
{
	uint64_t end = now_ns() + 5000000000ULL;
	int st;

	kill(fb->pid, SIGTERM);
	while (waitpid(fb->pid, &st, WNOHANG) == 0) {
		if (now_ns() > end) {
			kill(fb->pid, SIGKILL);
			waitpid(fb->pid, &st, 0);
			return -1;
		}
		sleep_ms(2);
	}
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static char *slurp(const char *file)
{
	char *buf;
	long len;
	FILE *f = fopen(file, "r");

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)len + 1);
	if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/*
 * A counter from the stats JSON: every port and path is one line, so
 * find the line of the object (@kind "path" or "id" equal to @idx) and
 * the key in it.  -1 if absent.
 */
static long long stat_get(const char *json, const char *kind, unsigned int idx,
			  const char *key)
{
	char obj[64], k[64];
	const char *line, *eol, *p;

	if (!json)
		return -1;
	snprintf(obj, sizeof(obj), "{\"%s\": %u,", kind, idx);
	snprintf(k, sizeof(k), "\"%s\": ", key);
	line = strstr(json, obj);
	if (!line)
		return -1;
	eol = strchr(line, '\n');
	p = strstr(line, k);
	if (!p || (eol && p > eol))
		return -1;
	return strtoll(p + strlen(k), NULL, 10);
}

/* Ask for a snapshot (SIGUSR1) and wait until a new one is there. */
static char *fab_snapshot(struct fab *fb)
{
	struct stat st;
	uint64_t end = now_ns() + 3000000000ULL;

	unlink(fb->stats);
	kill(fb->pid, SIGUSR1);
	while (stat(fb->stats, &st)) {
		if (now_ns() > end)
			return NULL;
		sleep_ms(1);
	}
	return slurp(fb->stats);
}

static long cpu_ticks(pid_t pid)
{
	char file[64], *buf, *p;
	unsigned long ut = 0, stt = 0;
	int i;

	snprintf(file, sizeof(file), "/proc/%d/stat", pid);
	buf = slurp(file);
	if (!buf)
		return -1;
	/* Fields 14 and 15, after the parenthesised command name. */
	p = strrchr(buf, ')');
	for (i = 0; p && i < 12; i++)
		p = strchr(p + 1, ' ');
	if (p)
		sscanf(p + 1, "%lu %lu", &ut, &stt);
	free(buf);
	return (long)(ut + stt);
}

/* Every path's frames accounted for: in + dup = out + drops + held. */
static bool conserved(const char *json, unsigned int npaths)
{
	unsigned int i;

	for (i = 0; i < npaths; i++) {
		long long in = stat_get(json, "path", i, "in_frames");
		long long dup = stat_get(json, "path", i, "duplicated");
		long long out = stat_get(json, "path", i, "out_frames");
		long long d = stat_get(json, "path", i, "drop_loss") +
			      stat_get(json, "path", i, "drop_burst") +
			      stat_get(json, "path", i, "drop_blackhole") +
			      stat_get(json, "path", i, "drop_overflow");
		long long held = stat_get(json, "path", i, "held");

		if (in < 0 || in + dup != out + d + held)
			return false;
	}
	return true;
}

static long long sum_paths(const char *json, unsigned int npaths,
			   const char *key)
{
	long long s = 0;
	unsigned int i;

	for (i = 0; i < npaths; i++)
		s += stat_get(json, "path", i, key);
	return s;
}

/* Records in a pcap file, or -1 if it is not one we wrote. */
static long pcap_records(const char *file, uint32_t *linktype)
{
	uint32_t h[6], r[4];
	long n = 0;
	FILE *f = fopen(file, "rb");

	if (!f)
		return -1;
	if (fread(h, sizeof(h), 1, f) != 1 || h[0] != 0xa1b2c3d4U ||
	    (h[1] & 0xffff) != 2 || (h[1] >> 16) != 4) {
		fclose(f);
		return -1;
	}
	*linktype = h[5];
	while (fread(r, sizeof(r), 1, f) == 1) {
		if (r[2] > r[3] || r[2] > 262144 ||
		    fseek(f, (long)r[2], SEEK_CUR)) {
			fclose(f);
			return -1;
		}
		n++;
	}
	fclose(f);
	return n;
}

/* ---- the tests ------------------------------------------------------- */

#define IP(a, b, c, d)	((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d))

static int count_seq(const struct rxlog *l, uint32_t seq)
{
	uint32_t i;
	int c = 0;

	for (i = 0; i < l->n; i++)
		c += l->seq[i] == seq;
	return c;
}

/* Send one frame from guest @from and see which guests get it. */
static unsigned int who_gets(struct guest *g, int n, struct fab *fb,
			     int from, const uint8_t *f, size_t len)
{
	struct rxlog l[MAX_GUESTS];
	unsigned int mask = 0;
	int i;

	send_to(&g[from], fb, from, f, len);
	for (i = 0; i < n; i++) {
		rx_init(&l[i], 16);
		rx_drain(g[i].fd, &l[i], 30, 500);
		if (l[i].n)
			mask |= 1U << i;
		rx_free(&l[i]);
	}
	return mask;
}

static void test_forwarding(void)
{
	const char *extra[] = { "--paths", "4", "--route", "10.0.0.1=0",
		"--route", "10.0.0.2=1", "--pcap", NULL, "--pcap-in", NULL,
		NULL };
	uint32_t ip[3] = { IP(10, 0, 0, 1), IP(10, 0, 0, 2), IP(10, 0, 0, 3) };
	uint32_t expect[4] = { 0 }, i, lt = 0;
	struct guest g[3];
	uint8_t f[FRAME_MAX];
	struct rxlog l;
	struct fab fb;
	char *s1, *s2, *fin;
	long t0, t1, rec, rec_in;
	bool spread = true, exact = true, seen = true;
	size_t len;
	const uint32_t N = 2000;
	static char pc[300], pci[300];

	for (i = 0; i < 3; i++)
		if (guest_open(&g[i], ip[i])) {
			ok(false, "forwarding: guest sockets");
			return;
		}
	/* The pcap names are only known now. */
	snprintf(pc, sizeof(pc), "%s/fwd.pcap", tmpdir);
	snprintf(pci, sizeof(pci), "%s/fwd-in.pcap", tmpdir);
	extra[7] = pc;
	extra[9] = pci;
	if (fab_start(&fb, "fwd", g, 3, extra)) {
		ok(false, "forwarding: fabric starts and writes --ports-file");
		return;
	}
	ok(true, "forwarding: fabric starts and writes --ports-file");

	t0 = cpu_ticks(fb.pid);
	sleep_ms(300);
	t1 = cpu_ticks(fb.pid);
	ok(t0 >= 0 && t1 - t0 <= 2,
	   "idle: %ld CPU ticks in 300 ms (no busy-spin)", t1 - t0);

	len = wren_frame(f, ip[0], ip[2], 0xc001, 1);
	ok(who_gets(g, 3, &fb, 0, f, len) == 0x6,
	   "unknown destination flooded to the other ports only");
	len = wren_frame(f, ip[2], ip[0], 0xc002, 2);
	ok(who_gets(g, 3, &fb, 2, f, len) == 0x1,
	   "static route: 10.0.0.1 reaches port 0 only");
	len = wren_frame(f, ip[0], ip[2], 0xc003, 3);
	ok(who_gets(g, 3, &fb, 0, f, len) == 0x4,
	   "learnt route: 10.0.0.3 (seen as a source) reaches port 2 only");
	len = wren_frame(f, ip[0], ip[1], 0xc004, 4);
	ok(who_gets(g, 3, &fb, 0, f, len) == 0x2,
	   "static route: 10.0.0.2 reaches port 1 only");
	len = arp_frame(f, ip[1], ip[0]);
	ok(who_gets(g, 3, &fb, 1, f, len) == 0x5,
	   "ARP broadcast flooded to the other ports only");
	memset(f, 0xab, 10);
	ok(who_gets(g, 3, &fb, 2, f, 10) == 0x3,
	   "a 10-byte frame is flooded, not parsed");
	len = wren_frame(f, ip[1], ip[0], 0xc005, 5);
	/* Port 0 owns 10.0.0.1: sent in on port 0 it has nowhere to go. */
	ok(who_gets(g, 3, &fb, 0, f, len) == 0,
	   "a frame for the ingress port's own address is not reflected");

	/* ECMP: per-path counters between two snapshots, frame by frame. */
	s1 = fab_snapshot(&fb);
	rx_init(&l, N + 16);
	for (i = 0; i < N; i++) {
		uint16_t sp = (uint16_t)entropy(i);

		len = wren_frame(f, ip[0], ip[1], sp, 100 + i);
		send_to(&g[0], &fb, 0, f, len);
		expect[path_of(ip[0], ip[1], sp, 4)]++;
		if (i % 128 == 127)
			rx_drain(g[1].fd, &l, 2, 200);
	}
	rx_drain(g[1].fd, &l, 100, 2000);
	s2 = fab_snapshot(&fb);
	for (i = 0; i < 4; i++) {
		long long d = stat_get(s2, "path", i, "in_frames") -
			      stat_get(s1, "path", i, "in_frames");

		exact &= d == expect[i];
		spread &= expect[i] > N / 4 * 7 / 10 &&
			  expect[i] < N / 4 * 13 / 10;
	}
	ok(s1 && s2, "SIGUSR1 writes the stats file");
	ok(exact, "ECMP: per-path counters match the 5-tuple hash "
	   "(%u %u %u %u of %u)", expect[0], expect[1], expect[2],
	   expect[3], N);
	ok(spread, "ECMP: entropy spreads frames evenly over 4 paths");
	for (i = 0; i < N; i++)
		seen &= count_seq(&l, 100 + i) == 1;
	ok(seen && l.n == N && !l.corrupt,
	   "ECMP: all %u frames delivered once, unmodified (%u, %u corrupt)",
	   N, l.n, l.corrupt);
	rx_free(&l);
	free(s1);
	free(s2);

	ok(!fab_stop(&fb), "SIGTERM: fabric exits 0");
	fin = slurp(fb.stats);
	ok(fin && conserved(fin, 4),
	   "stats: in + duplicated = out + drops + held on every path");
	ok(stat_get(fin, "id", 0, "unrouted") == 1 &&
	   stat_get(fin, "id", 0, "rx_wren") == 4 + N &&
	   stat_get(fin, "id", 0, "rx_wren_data") == 4 + N &&
	   stat_get(fin, "id", 0, "rx_wren_ack") == 0 &&
	   stat_get(fin, "id", 0, "rx_wren_other") == 0 &&
	   stat_get(fin, "id", 0, "rx_wren_retx") == 0 &&
	   stat_get(fin, "id", 2, "flooded") == 1 &&
	   stat_get(fin, "id", 1, "flooded") == 1,
	   "stats: per-port rx_wren (by type), flooded and unrouted counters");
	rec = pcap_records(pc, &lt);
	ok(rec >= 0 && lt == 1 && rec == sum_paths(fin, 4, "out_frames"),
	   "pcap: magic, Ethernet, one record per frame out (%ld)", rec);
	rec_in = pcap_records(pci, &lt);
	ok(rec_in >= 0 && rec_in == 7 + N,
	   "pcap-in: one record per frame in (%ld)", rec_in);
	free(fin);
	for (i = 0; i < 3; i++)
		guest_close(&g[i]);
}

/* A source port that lands on @path of @npaths, starting the search at @i. */
static uint16_t sport_for(uint32_t sip, uint32_t dip, uint32_t path,
			  uint32_t npaths, uint32_t *i)
{
	for (;; (*i)++)
		if (path_of(sip, dip, (uint16_t)entropy(*i), npaths) == path)
			return (uint16_t)entropy((*i)++);
}

static void test_delay(void)
{
	const char *extra[] = { "--paths", "2", "--delay-us", "20000,300000",
		"--quiet", NULL };
	uint32_t sip = IP(10, 0, 1, 1), dip = IP(10, 0, 1, 2), k = 0, i, j;
	uint64_t sent[20];
	uint64_t lo0 = UINT64_MAX, hi0 = 0, lo1 = UINT64_MAX, hi1 = 0;
	uint64_t last0 = 0, first1 = UINT64_MAX;
	struct guest g[2];
	uint8_t f[FRAME_MAX];
	struct rxlog l;
	struct fab fb;
	long t0, t1;
	size_t len;

	if (guest_open(&g[0], sip) || guest_open(&g[1], dip) ||
	    fab_start(&fb, "delay", g, 2, extra)) {
		ok(false, "delay: fabric starts");
		return;
	}
	rx_init(&l, 64);
	for (i = 0; i < 20; i++) {
		uint16_t sp = sport_for(sip, dip, i & 1, 2, &k);

		len = wren_frame(f, sip, dip, sp, i);
		sent[i] = now_ns();
		send_to(&g[0], &fb, 0, f, len);
	}
	/* Path 0's frames out; path 1's still held: the fabric must sleep. */
	rx_drain(g[1].fd, &l, 100, 150);
	t0 = cpu_ticks(fb.pid);
	sleep_ms(100);
	t1 = cpu_ticks(fb.pid);
	rx_drain(g[1].fd, &l, 400, 1500);
	for (j = 0; j < l.n; j++) {
		uint32_t s = l.seq[j];
		uint64_t d;

		if (s >= 20)
			continue;
		d = l.t[j] - sent[s];
		if (s & 1) {
			lo1 = d < lo1 ? d : lo1;
			hi1 = d > hi1 ? d : hi1;
			first1 = l.t[j] < first1 ? l.t[j] : first1;
		} else {
			lo0 = d < lo0 ? d : lo0;
			hi0 = d > hi0 ? d : hi0;
			last0 = l.t[j] > last0 ? l.t[j] : last0;
		}
	}
	ok(l.n == 20, "delay: all 20 frames delivered (%u)", l.n);
	ok(lo0 >= 20000000ULL && hi0 < 270000000ULL,
	   "delay: path 0 holds 20 ms (%.2f to %.2f ms)", lo0 / 1e6,
	   hi0 / 1e6);
	ok(lo1 >= 300000000ULL && hi1 < 800000000ULL,
	   "delay: path 1 holds 300 ms (%.2f to %.2f ms)", lo1 / 1e6,
	   hi1 / 1e6);
	ok(last0 < first1, "delay: released in order of release time");
	ok(t0 >= 0 && t1 - t0 <= 2,
	   "delay: %ld CPU ticks in 100 ms with frames held", t1 - t0);
	ok(!fab_stop(&fb), "delay: fabric exits 0");
	rx_free(&l);
	guest_close(&g[0]);
	guest_close(&g[1]);
}

/*
 * @n frames from guest 0 to guest 1 in paced bursts; @cnt[seq] counts
 * copies received (duplicates too).  Returns the stats JSON.
 */
static char *blast(const char *name, const char **extra, uint32_t n,
		   uint8_t *cnt, struct rxlog *l)
{
	uint32_t sip = IP(10, 0, 2, 1), dip = IP(10, 0, 2, 2), i;
	struct guest g[2];
	uint8_t f[FRAME_MAX];
	struct fab fb;
	char *json;
	size_t len;

	if (guest_open(&g[0], sip) || guest_open(&g[1], dip) ||
	    fab_start(&fb, name, g, 2, extra))
		return NULL;
	for (i = 0; i < n; i++) {
		len = wren_frame(f, sip, dip, (uint16_t)entropy(i), i);
		send_to(&g[0], &fb, 0, f, len);
		if (i % 128 == 127)
			rx_drain(g[1].fd, l, 2, 200);
	}
	rx_drain(g[1].fd, l, 150, 5000);
	for (i = 0; i < l->n; i++)
		if (l->seq[i] < n && cnt[l->seq[i]] < 255)
			cnt[l->seq[i]]++;
	json = fab_stop(&fb) ? NULL : slurp(fb.stats);
	guest_close(&g[0]);
	guest_close(&g[1]);
	return json;
}

static void test_loss(void)
{
	const char *a7[] = { "--paths", "3", "--loss", "0.1", "--burst-loss",
		"0.005,0.2,0.8", "--dup", "0.02", "--seed", "7", "--quiet",
		NULL };
	const char *a8[] = { "--paths", "3", "--loss", "0.1", "--burst-loss",
		"0.005,0.2,0.8", "--dup", "0.02", "--seed", "8", "--quiet",
		NULL };
	const uint32_t N = 20000;
	uint8_t *c1 = calloc(N, 1), *c2 = calloc(N, 1), *c3 = calloc(N, 1);
	struct rxlog l1, l2, l3;
	char *j1, *j2, *j3;
	long long in, dl, db, dup, out;
	double sd;

	rx_init(&l1, 2 * N);
	rx_init(&l2, 2 * N);
	rx_init(&l3, 2 * N);
	j1 = blast("loss1", a7, N, c1, &l1);
	j2 = blast("loss2", a7, N, c2, &l2);
	j3 = blast("loss3", a8, N, c3, &l3);
	ok(j1 && j2 && j3, "loss: three runs of %u frames", N);

	in = sum_paths(j1, 3, "in_frames");
	dl = sum_paths(j1, 3, "drop_loss");
	db = sum_paths(j1, 3, "drop_burst");
	dup = sum_paths(j1, 3, "duplicated");
	out = sum_paths(j1, 3, "out_frames");
	sd = sqrt(N * 0.1 * 0.9);
	ok(in == N && fabs(dl - N * 0.1) < 5 * sd,
	   "iid loss: %lld of %u dropped (expected %.0f +- %.0f)", dl, N,
	   N * 0.1, 5 * sd);
	/* Bad state 0.005/(0.005+0.2) of the time, 0.8 lost there. */
	ok(db > 0 && db < 3 * 0.9 * N * 0.8 * 0.005 / 0.205,
	   "burst loss: %lld dropped (expected about %.0f)", db,
	   0.9 * N * 0.8 * 0.005 / 0.205);
	ok(dup > 0 && fabs(dup - 0.02 * out) < 5 * sqrt(0.02 * out) + 10,
	   "duplication: %lld of %lld", dup, out);
	ok(l1.n == (uint32_t)out && !l1.corrupt,
	   "every frame out of the fabric reaches the guest (%u of %lld)",
	   l1.n, out);
	ok(j1 && conserved(j1, 3), "loss: counters conserved");
	ok(!memcmp(c1, c2, N) && l1.n == l2.n,
	   "same seed: identical drop and duplicate pattern");
	ok(memcmp(c1, c3, N) != 0, "another seed: another pattern");
	free(j1);
	free(j2);
	free(j3);
	free(c1);
	free(c2);
	free(c3);
	rx_free(&l1);
	rx_free(&l2);
	rx_free(&l3);
}

static void test_reorder(void)
{
	const char *extra[] = { "--reorder", "0.1,5000", "--dup", "0.05",
		"--quiet", NULL };
	const uint32_t N = 3000;
	uint8_t *cnt = calloc(N, 1);
	uint32_t i, late = 0, dups = 0, max = 0;
	struct rxlog l;
	char *j;
	long long reord, dup;

	rx_init(&l, 2 * N);
	j = blast("reorder", extra, N, cnt, &l);
	for (i = 0; i < l.n; i++) {
		if (l.seq[i] >= N)
			continue;
		if (l.seq[i] < max)
			late++;
		else
			max = l.seq[i];
	}
	for (i = 0; i < N; i++)
		dups += cnt[i] > 1 ? cnt[i] - 1U : 0;
	reord = stat_get(j, "path", 0, "reordered");
	dup = stat_get(j, "path", 0, "duplicated");
	ok(j && fabs(reord - N * 0.1) < 5 * sqrt(N * 0.09),
	   "reorder: %lld of %u frames held back", reord, N);
	ok(late > 0, "reorder: %u frames arrive after a later one", late);
	ok(dups == dup && dup > 0,
	   "duplication: the guest sees %u extra copies, stats say %lld",
	   dups, dup);
	free(j);
	free(cnt);
	rx_free(&l);
}

static void test_blackhole(void)
{
	const char *extra[] = { "--paths", "4", "--blackhole", "2@2.0",
		"--blackhole", "3@0:2.0", "--quiet", NULL };
	uint32_t sip = IP(10, 0, 3, 1), dip = IP(10, 0, 3, 2), i;
	const uint32_t N = 400;
	uint32_t want_drop[4] = { 0 };
	bool exact1 = true, exact2 = true;
	struct guest g[2];
	uint8_t f[FRAME_MAX];
	struct rxlog l;
	struct fab fb;
	uint64_t t;
	size_t len;
	char *j;

	if (guest_open(&g[0], sip) || guest_open(&g[1], dip) ||
	    fab_start(&fb, "blackhole", g, 2, extra)) {
		ok(false, "blackhole: fabric starts");
		return;
	}
	rx_init(&l, 4 * N);
	/* Phase 1, well before 2.0 s: path 3 is dead, path 2 alive. */
	for (i = 0; i < N; i++) {
		len = wren_frame(f, sip, dip, (uint16_t)entropy(i), i);
		send_to(&g[0], &fb, 0, f, len);
		if (i % 128 == 127)
			rx_now(g[1].fd, &l);
	}
	t = now_ns() - fb.ready_ns;
	rx_drain(g[1].fd, &l, 50, 300);
	/* Phase 2, after 2.0 s by the fabric's clock too: the reverse. */
	while (now_ns() < fb.ready_ns + 2150000000ULL)
		sleep_ms(10);
	for (i = 0; i < N; i++) {
		len = wren_frame(f, sip, dip, (uint16_t)entropy(i), N + i);
		send_to(&g[0], &fb, 0, f, len);
		if (i % 128 == 127)
			rx_now(g[1].fd, &l);
	}
	rx_drain(g[1].fd, &l, 100, 1000);
	for (i = 0; i < N; i++) {
		uint32_t p = path_of(sip, dip, (uint16_t)entropy(i), 4);

		exact1 &= count_seq(&l, i) == (p == 3 ? 0 : 1);
		exact2 &= count_seq(&l, N + i) == (p == 2 ? 0 : 1);
		want_drop[p]++;
	}
	ok(!fab_stop(&fb), "blackhole: fabric exits 0");
	j = slurp(fb.stats);
	ok(t < 1700000000ULL && exact1 &&
	   stat_get(j, "path", 3, "drop_blackhole") == want_drop[3],
	   "blackhole 3@0:2.0: exactly path 3's frames lost before 2.0 s "
	   "(%u, phase 1 took %.2f s)", want_drop[3], t / 1e9);
	ok(exact2 && stat_get(j, "path", 2, "drop_blackhole") ==
	   want_drop[2],
	   "blackhole 2@2.0: exactly path 2's frames lost after 2.0 s (%u)",
	   want_drop[2]);
	free(j);
	rx_free(&l);
	guest_close(&g[0]);
	guest_close(&g[1]);
}

/* Bad command lines: exit status 2 and a message naming the problem. */
static void test_cli(void)
{
	static const struct {
		const char *args[6];
		const char *msg;
	} bad[] = {
		{ { "--port", "0:0:1", "--paths", "0" }, "--paths 0" },
		{ { "--port", "0:0:1", "--loss", "1.5" }, "probability" },
		{ { "--port", "0:0:1", "--paths", "2", "--delay-us",
		    "1,2,3" }, "3 values for 2 paths" },
		{ { "--port", "0:0:1", "--path", "1:loss=1" },
		  "only 1 paths" },
		{ { "--port", "0:0:1", "--blackhole", "0@2:1" }, "UNTIL" },
		{ { "--port", "0:0:1", "--route", "10.0.0.1=4" },
		  "no such --port" },
		{ { "--port", "0:0:1", "--reorder", "0.1" }, "P,US" },
		{ { "--frobnicate" }, "unknown option" },
		{ { "--loss", "0.1" }, "no --port" },
	};
	char log[300], *out;
	unsigned int i, good = 0;

	snprintf(log, sizeof(log), "%s/cli.log", tmpdir);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *argv[8] = { fabric_bin };
		int st = 0, k;
		pid_t pid;

		for (k = 0; k < 6 && bad[i].args[k]; k++)
			argv[k + 1] = bad[i].args[k];
		pid = fork();
		if (!pid) {
			int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

			dup2(fd, 2);
			execv(fabric_bin, (char **)argv);
			_exit(127);
		}
		waitpid(pid, &st, 0);
		out = slurp(log);
		if (WIFEXITED(st) && WEXITSTATUS(st) == 2 && out &&
		    strstr(out, bad[i].msg) && !strncmp(out, "fabric: ", 8))
			good++;
		else
			printf("# bad case %u: status %d, stderr: %s", i, st,
			       out ? out : "(none)\n");
		free(out);
	}
	ok(good == i, "bad arguments: exit 2 with a precise message (%u of %u)",
	   good, i);
}

/*
 * A fabric that stops reading (here, stopped) loses what its socket
 * buffer cannot hold in the host kernel, before it sees it: those
 * datagrams must show as rx_sock_drops, so that every frame a guest sent
 * is counted somewhere.
 */
static void test_sock_drops(void)
{
	const char *extra[] = { "--quiet", NULL };
	uint32_t sip = IP(10, 0, 3, 1), dip = IP(10, 0, 3, 2), i;
	const uint32_t n = 50000;
	uint8_t f[FRAME_MAX];
	struct guest g[2];
	struct rxlog l;
	struct fab fb;
	long long rx, drops;
	uint32_t sent = 0;
	uint64_t end;
	char *json;
	size_t len;

	if (guest_open(&g[0], sip) || guest_open(&g[1], dip) ||
	    fab_start(&fb, "sockdrops", g, 2, extra)) {
		ok(0, "sock drops: fabric started");
		return;
	}
	kill(fb.pid, SIGSTOP);
	for (i = 0; i < n; i++) {
		len = wren_frame(f, sip, dip, (uint16_t)entropy(i), i);
		sent += !send_to(&g[0], &fb, 0, f, len);
	}
	kill(fb.pid, SIGCONT);
	/*
	 * And a last frame, awaited at the other side: the fabric reads its
	 * socket in order, so once that one is through it has read all the
	 * kernel kept.  Stopped before (a loaded host is slow to run it
	 * again), what it had not read yet would be counted nowhere.
	 */
	len = wren_frame(f, sip, dip, (uint16_t)entropy(n), n);
	sent += !send_to(&g[0], &fb, 0, f, len);
	rx_init(&l, n + 1);
	for (end = now_ns() + 20000000000ULL;
	     now_ns() < end && !(l.n && l.seq[l.n - 1] == n);)
		rx_drain(g[1].fd, &l, 100, 100);
	json = fab_stop(&fb) ? NULL : slurp(fb.stats);
	rx = stat_get(json, "id", 0, "rx_frames");
	drops = stat_get(json, "id", 0, "rx_sock_drops");
	ok(drops > 0 && rx + drops == sent,
	   "sock drops: %lld received + %lld dropped in the kernel = %u sent",
	   rx, drops, sent);
	free(json);
	rx_free(&l);
	guest_close(&g[0]);
	guest_close(&g[1]);
}

int main(int argc, char **argv)
{
	uint64_t t0 = now_ns();

	if (argc != 2) {
		fprintf(stderr, "usage: fabric_test PATH/TO/fabric\n");
		return 2;
	}
	fabric_bin = argv[1];
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/fabric-test.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);

	test_cli();
	test_forwarding();
	test_delay();
	test_loss();
	test_reorder();
	test_blackhole();
	test_sock_drops();

	printf("1..%d\n# %.1f s\n", tap_tests, (now_ns() - t0) / 1e9);
	if (tap_failed)
		printf("# files in %s\n", tmpdir);
	/* Keep the files of a failed run to look at. */
	if (!tap_failed) {
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd))
			printf("# could not remove %s\n", tmpdir);
	}
	return tap_done();
}
