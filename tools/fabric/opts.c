// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The command line.  Every value is checked here, once, so the rest of
 * the fabric can trust its configuration; a bad argument is named with
 * the reason and exits 2, before any socket is opened.
 *
 * Impairments are given for every path (--loss 0.01) and overridden for
 * one (--path 3:loss=1); the overrides win whatever the order of the
 * options, so a command line reads the same in any order.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric.h"

static const char usage_text[] =
"usage: fabric --port ID:LISTEN[:PEER] [--port ...] [options]\n"
"\n"
"A switch between QEMU \"dgram\" netdevs: port ID receives the guest's\n"
"frames on UDP LISTEN and sends it frames at UDP PEER (both on --addr).\n"
"LISTEN 0 takes a free port (see --ports-file); PEER omitted or '-' is\n"
"learnt from the first datagram the guest sends.\n"
"\n"
"Ports and forwarding:\n"
"  --port ID:LISTEN[:PEER]   a guest port (ID 0-65535, up to 64 ports)\n"
"  --addr IPV4               address of every socket (127.0.0.1)\n"
"  --route IPV4=ID           the guest on port ID owns IPV4 (also learnt\n"
"                            from source addresses; static ones win)\n"
"\n"
"Paths (K paths between any two ports, chosen by a hash of the 5-tuple):\n"
"  --paths K                 number of paths, 1-64 (1)\n"
"  --ecmp-salt N             salt of the path hash (0)\n"
"  --delay-us D[,D...]       one-way delay in us: one value for every path\n"
"                            or one per path (0)\n"
"  --loss P                  iid loss probability (0)\n"
"  --burst-loss E,X,L        Gilbert-Elliott loss: per frame, enter the bad\n"
"                            state with E, leave it with X; lose L of the\n"
"                            frames sent in the bad state (off)\n"
"  --dup P                   duplicate a frame with probability P (0)\n"
"  --reorder P,US            hold a fraction P of frames US microseconds\n"
"                            longer, so later frames overtake them (off)\n"
"  --path N:KEY=VAL[:KEY=VAL...]\n"
"                            override for path N; KEY is delay-us, loss,\n"
"                            burst-loss, dup or reorder (values as above)\n"
"  --blackhole N@FROM[:UNTIL]\n"
"                            path N drops every frame entering it from FROM\n"
"                            seconds after start (until UNTIL); repeatable\n"
"  --seed N                  seed of every random decision (1)\n"
"  --queue-frames N          frames in flight at most (65536)\n"
"  --queue-bytes N[K|M|G]    bytes in flight at most (256M)\n"
"\n"
"Output:\n"
"  --stats FILE              counters as JSON at exit and on SIGUSR1\n"
"  --pcap FILE               every frame leaving the fabric (pcap)\n"
"  --pcap-in FILE            every frame entering the fabric (pcap)\n"
"  --ports-file FILE         once listening, 'ID LISTEN PEER' per port\n"
"  --quiet                   no start-up lines on stderr\n"
"  --help                    this text\n"
"\n"
"SIGINT or SIGTERM: write --stats, print one line per path, exit 0.\n"
"Bad arguments exit 2.\n";

static const char *cur_opt;

static void __attribute__((noreturn, format(printf, 2, 3)))
fail(const char *arg, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fabric: ");
	if (cur_opt)
		fprintf(stderr, "--%s %s: ", cur_opt, arg ? arg : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'fabric --help'.\n");
	exit(2);
}

/* A decimal (or, with @base 0, also 0x) integer in [0, max], whole. */
static uint64_t num(const char *arg, const char *s, int base, uint64_t max,
		    const char *what)
{
	unsigned long long v;
	char *end;

	errno = 0;
	if (*s < '0' || *s > '9')
		fail(arg, "'%s' is not %s", s, what);
	v = strtoull(s, &end, base);
	if (errno || *end || v > max)
		fail(arg, "'%s' is not %s", s, what);
	return v;
}

static double real(const char *arg, const char *s, double lo, double hi,
		   const char *what)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi)
		fail(arg, "'%s' is not %s", s, what);
	return v;
}

static double prob(const char *arg, const char *s)
{
	return real(arg, s, 0, 1, "a probability in [0, 1]");
}

/* Microseconds, fractions allowed, up to an hour. */
static uint64_t usecs(const char *arg, const char *s)
{
	return (uint64_t)llround(real(arg, s, 0, 3600e6,
				      "a time in microseconds (0 to 3600e6)") *
				 NSEC_PER_USEC);
}

static uint64_t secs(const char *arg, const char *s)
{
	return (uint64_t)llround(real(arg, s, 0, 1e6,
				      "a time in seconds (0 to 1e6)") *
				 NSEC_PER_SEC);
}

/*
 * Split @s at the commas into fields (the string is a copy
 * we own).  Returns how many there were, fails if more than @max.
 */
static unsigned int split(const char *arg, char *s, char **f,
			  unsigned int max)
{
	unsigned int n = 0;

	for (;;) {
		if (n == max)
			fail(arg, "more than %u comma-separated values", max);
		f[n++] = s;
		s = strchr(s, ',');
		if (!s)
			return n;
		*s++ = '\0';
	}
}

static void burst(const char *arg, char *s, struct path_cfg *c)
{
	char *f[3];

	if (split(arg, s, f, 3) != 3)
		fail(arg, "want E,X,L (enter, exit, loss in the bad state)");
	c->ge_enter = prob(arg, f[0]);
	c->ge_exit = prob(arg, f[1]);
	c->ge_loss = prob(arg, f[2]);
	if (c->ge_enter > 0 && c->ge_exit == 0)
		fail(arg, "an exit probability of 0 never leaves the bad state");
}

static void reorder(const char *arg, char *s, struct path_cfg *c)
{
	char *f[2];

	if (split(arg, s, f, 2) != 2)
		fail(arg, "want P,US (fraction, extra microseconds)");
	c->reorder = prob(arg, f[0]);
	c->reorder_ns = usecs(arg, f[1]);
}

/* --path N:KEY=VAL[:KEY=VAL...] */
static void path_override(const char *arg, char *s, struct path_cfg *ov,
			  unsigned int *set)
{
	char *item, *colon = strchr(s, ':');
	uint32_t n;

	if (!colon)
		fail(arg, "want N:KEY=VALUE[:KEY=VALUE...]");
	*colon = '\0';
	n = (uint32_t)num(arg, s, 10, FAB_MAX_PATHS - 1, "a path number");
	for (item = colon + 1; item; item = colon) {
		char *val = strchr(item, '=');

		colon = strchr(item, ':');
		if (colon)
			*colon++ = '\0';
		if (!val)
			fail(arg, "'%s' is not KEY=VALUE", item);
		*val++ = '\0';
		if (!strcmp(item, "delay-us")) {
			ov[n].delay_ns = usecs(arg, val);
			set[n] |= PCF_DELAY;
		} else if (!strcmp(item, "loss")) {
			ov[n].loss = prob(arg, val);
			set[n] |= PCF_LOSS;
		} else if (!strcmp(item, "burst-loss")) {
			burst(arg, val, &ov[n]);
			set[n] |= PCF_BURST;
		} else if (!strcmp(item, "dup")) {
			ov[n].dup = prob(arg, val);
			set[n] |= PCF_DUP;
		} else if (!strcmp(item, "reorder")) {
			reorder(arg, val, &ov[n]);
			set[n] |= PCF_REORDER;
		} else {
			fail(arg, "unknown key '%s' (delay-us, loss, "
			     "burst-loss, dup, reorder)", item);
		}
	}
}

static void port_arg(struct fab_cfg *cfg, const char *arg, char *s)
{
	struct port_cfg *p;
	char *f[3], *c1, *c2;
	unsigned int n = 1, i;

	f[0] = s;
	c1 = strchr(s, ':');
	if (!c1)
		fail(arg, "want ID:LISTEN[:PEER]");
	*c1 = '\0';
	f[n++] = c1 + 1;
	c2 = strchr(c1 + 1, ':');
	if (c2) {
		*c2 = '\0';
		f[n++] = c2 + 1;
		if (strchr(c2 + 1, ':'))
			fail(arg, "want ID:LISTEN[:PEER]");
	}
	if (cfg->nports == FAB_MAX_PORTS)
		fail(arg, "more than %d ports", FAB_MAX_PORTS);
	p = &cfg->ports[cfg->nports];
	p->id = (uint32_t)num(arg, f[0], 10, 65535, "a port ID (0-65535)");
	p->listen_port = (uint16_t)num(arg, f[1], 10, 65535,
				       "a UDP port (0 for any)");
	p->peer_port = 0;
	if (n == 3 && strcmp(f[2], "-"))
		p->peer_port = (uint16_t)num(arg, f[2], 10, 65535,
					     "a UDP port (or '-')");
	if (n == 3 && strcmp(f[2], "-") && !p->peer_port)
		fail(arg, "the peer port cannot be 0 (use '-' to learn it)");
	for (i = 0; i < cfg->nports; i++) {
		if (cfg->ports[i].id == p->id)
			fail(arg, "port ID %u given twice", p->id);
		if (p->listen_port &&
		    cfg->ports[i].listen_port == p->listen_port)
			fail(arg, "UDP port %u already listened on by port %u",
			     p->listen_port, cfg->ports[i].id);
	}
	cfg->nports++;
}

static void route_arg(struct fab_cfg *cfg, const char *arg, char *s)
{
	char *eq = strchr(s, '=');
	struct in_addr a;
	struct route_cfg *r;
	uint32_t i;

	if (!eq)
		fail(arg, "want IPV4=PORT_ID");
	*eq = '\0';
	if (inet_pton(AF_INET, s, &a) != 1)
		fail(arg, "'%s' is not an IPv4 address", s);
	if (cfg->nroutes == FAB_MAX_ROUTES)
		fail(arg, "more than %d routes", FAB_MAX_ROUTES);
	r = &cfg->routes[cfg->nroutes];
	r->ip = ntohl(a.s_addr);
	r->port_id = (uint32_t)num(arg, eq + 1, 10, 65535, "a port ID");
	for (i = 0; i < cfg->nroutes; i++)
		if (cfg->routes[i].ip == r->ip)
			fail(arg, "%s has a route already", s);
	cfg->nroutes++;
}

static void blackhole_arg(struct fab_cfg *cfg, const char *arg, char *s)
{
	char *at = strchr(s, '@'), *colon;
	struct blackhole *b;

	if (!at)
		fail(arg, "want PATH@FROM[:UNTIL] (seconds)");
	*at = '\0';
	if (cfg->nbh == FAB_MAX_BLACKHOLES)
		fail(arg, "more than %d black holes", FAB_MAX_BLACKHOLES);
	b = &cfg->bh[cfg->nbh];
	b->path = (uint32_t)num(arg, s, 10, FAB_MAX_PATHS - 1,
				"a path number");
	colon = strchr(at + 1, ':');
	if (colon)
		*colon++ = '\0';
	b->from_ns = secs(arg, at + 1);
	b->until_ns = colon ? secs(arg, colon) : FAB_FOREVER;
	if (b->until_ns <= b->from_ns)
		fail(arg, "UNTIL must be later than FROM");
	cfg->nbh++;
}

static uint64_t size_arg(const char *arg, char *s)
{
	size_t len = strlen(s);
	uint64_t mul = 1;

	if (len > 1) {
		switch (s[len - 1]) {
		case 'K':
			mul = 1ULL << 10;
			break;
		case 'M':
			mul = 1ULL << 20;
			break;
		case 'G':
			mul = 1ULL << 30;
			break;
		}
		if (mul > 1)
			s[len - 1] = '\0';
	}
	return num(arg, s, 10, (1ULL << 40) / mul, "a size (N[K|M|G])") * mul;
}

enum {
	O_PORT = 256, O_ADDR, O_ROUTE, O_PATHS, O_SALT, O_DELAY, O_LOSS,
	O_BURST, O_DUP, O_REORDER, O_PATH, O_BLACKHOLE, O_SEED, O_QFRAMES,
	O_QBYTES, O_STATS, O_PCAP, O_PCAP_IN, O_PORTS_FILE, O_QUIET, O_HELP,
};

int opts_parse(struct fab_cfg *cfg, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "port", required_argument, NULL, O_PORT },
		{ "addr", required_argument, NULL, O_ADDR },
		{ "route", required_argument, NULL, O_ROUTE },
		{ "paths", required_argument, NULL, O_PATHS },
		{ "ecmp-salt", required_argument, NULL, O_SALT },
		{ "delay-us", required_argument, NULL, O_DELAY },
		{ "loss", required_argument, NULL, O_LOSS },
		{ "burst-loss", required_argument, NULL, O_BURST },
		{ "dup", required_argument, NULL, O_DUP },
		{ "reorder", required_argument, NULL, O_REORDER },
		{ "path", required_argument, NULL, O_PATH },
		{ "blackhole", required_argument, NULL, O_BLACKHOLE },
		{ "seed", required_argument, NULL, O_SEED },
		{ "queue-frames", required_argument, NULL, O_QFRAMES },
		{ "queue-bytes", required_argument, NULL, O_QBYTES },
		{ "stats", required_argument, NULL, O_STATS },
		{ "pcap", required_argument, NULL, O_PCAP },
		{ "pcap-in", required_argument, NULL, O_PCAP_IN },
		{ "ports-file", required_argument, NULL, O_PORTS_FILE },
		{ "quiet", no_argument, NULL, O_QUIET },
		{ "help", no_argument, NULL, O_HELP },
		{ NULL, 0, NULL, 0 },
	};
	static struct path_cfg ov[FAB_MAX_PATHS];
	static unsigned int set[FAB_MAX_PATHS];
	struct path_cfg g = { 0 };
	uint64_t delays[FAB_MAX_PATHS];
	unsigned int ndelays = 0;
	uint32_t i, j;
	int opt;

	memset(cfg, 0, sizeof(*cfg));
	cfg->addr.s_addr = htonl(INADDR_LOOPBACK);
	cfg->npaths = 1;
	cfg->seed = 1;
	cfg->queue_frames = 65536;
	cfg->queue_bytes = 256ULL << 20;
	opterr = 0;

	while ((opt = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		char *a = optarg ? strdup(optarg) : NULL;
		char *f[FAB_MAX_PATHS];

		cur_opt = NULL;
		for (i = 0; opts[i].name; i++)
			if (opts[i].val == opt)
				cur_opt = opts[i].name;
		switch (opt) {
		case O_PORT:
			port_arg(cfg, optarg, a);
			break;
		case O_ADDR:
			if (inet_pton(AF_INET, a, &cfg->addr) != 1)
				fail(optarg, "not an IPv4 address");
			break;
		case O_ROUTE:
			route_arg(cfg, optarg, a);
			break;
		case O_PATHS:
			cfg->npaths = (uint32_t)num(optarg, a, 10, FAB_MAX_PATHS,
						    "a path count (1-64)");
			if (!cfg->npaths)
				fail(optarg, "at least one path");
			break;
		case O_SALT:
			cfg->salt = num(optarg, a, 0, UINT64_MAX,
					"an unsigned 64-bit number");
			break;
		case O_DELAY:
			ndelays = split(optarg, a, f, FAB_MAX_PATHS);
			for (i = 0; i < ndelays; i++)
				delays[i] = usecs(optarg, f[i]);
			break;
		case O_LOSS:
			g.loss = prob(optarg, a);
			break;
		case O_BURST:
			burst(optarg, a, &g);
			break;
		case O_DUP:
			g.dup = prob(optarg, a);
			break;
		case O_REORDER:
			reorder(optarg, a, &g);
			break;
		case O_PATH:
			path_override(optarg, a, ov, set);
			break;
		case O_BLACKHOLE:
			blackhole_arg(cfg, optarg, a);
			break;
		case O_SEED:
			cfg->seed = num(optarg, a, 0, UINT64_MAX,
					"an unsigned 64-bit number");
			break;
		case O_QFRAMES:
			cfg->queue_frames = (uint32_t)num(optarg, a, 10,
							  1U << 24,
							  "a frame count (1-16M)");
			if (!cfg->queue_frames)
				fail(optarg, "at least one frame");
			break;
		case O_QBYTES:
			cfg->queue_bytes = size_arg(optarg, a);
			if (cfg->queue_bytes < FAB_MAX_FRAME)
				fail(optarg, "less than one largest frame "
				     "(%d bytes)", FAB_MAX_FRAME);
			break;
		case O_STATS:
			cfg->stats = optarg;
			break;
		case O_PCAP:
			cfg->pcap_out = optarg;
			break;
		case O_PCAP_IN:
			cfg->pcap_in = optarg;
			break;
		case O_PORTS_FILE:
			cfg->ports_file = optarg;
			break;
		case O_QUIET:
			cfg->quiet = true;
			break;
		case O_HELP:
			fputs(usage_text, stdout);
			exit(0);
		case ':':
			cur_opt = NULL;
			fail(NULL, "%s wants a value", argv[optind - 1]);
		default:
			cur_opt = NULL;
			fail(NULL, "unknown option '%s'", argv[optind - 1]);
		}
		free(a);
	}
	cur_opt = NULL;
	if (optind < argc)
		fail(NULL, "unexpected argument '%s'", argv[optind]);
	if (!cfg->nports)
		fail(NULL, "no --port given");

	/* Now that K is known: check everything that depends on it. */
	if (ndelays > 1 && ndelays != cfg->npaths)
		fail(NULL, "--delay-us has %u values for %u paths "
		     "(give one, or one per path)", ndelays, cfg->npaths);
	for (i = 0; i < FAB_MAX_PATHS; i++)
		if (set[i] && i >= cfg->npaths)
			fail(NULL, "--path %u: there are only %u paths "
			     "(--paths)", i, cfg->npaths);
	for (i = 0; i < cfg->nbh; i++)
		if (cfg->bh[i].path >= cfg->npaths)
			fail(NULL, "--blackhole %u@...: there are only %u paths "
			     "(--paths)", cfg->bh[i].path, cfg->npaths);
	for (i = 0; i < cfg->nroutes; i++) {
		for (j = 0; j < cfg->nports; j++)
			if (cfg->ports[j].id == cfg->routes[i].port_id)
				break;
		if (j == cfg->nports)
			fail(NULL, "--route to port %u: no such --port",
			     cfg->routes[i].port_id);
	}

	for (i = 0; i < cfg->npaths; i++) {
		struct path_cfg *c = &cfg->path[i];

		*c = g;
		if (ndelays)
			c->delay_ns = delays[ndelays > 1 ? i : 0];
		if (set[i] & PCF_DELAY)
			c->delay_ns = ov[i].delay_ns;
		if (set[i] & PCF_LOSS)
			c->loss = ov[i].loss;
		if (set[i] & PCF_BURST) {
			c->ge_enter = ov[i].ge_enter;
			c->ge_exit = ov[i].ge_exit;
			c->ge_loss = ov[i].ge_loss;
		}
		if (set[i] & PCF_DUP)
			c->dup = ov[i].dup;
		if (set[i] & PCF_REORDER) {
			c->reorder = ov[i].reorder;
			c->reorder_ns = ov[i].reorder_ns;
		}
	}
	return 0;
}
