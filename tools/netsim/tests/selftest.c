// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The simulator's own tests, so that figures from it can be trusted:
 * timing against arithmetic, ECMP spread, realised impairment rates,
 * scenario errors, and determinism.  TAP, then "N passed, N failed".
 *
 *   selftest NETSIM DETERMINISM.ini
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libgen.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap_ok.h"
#include "net.h"
#include "run.h"
#include "scenario.h"


/* Build a config from key=value strings; NULL-terminated. */
static int cfg_from(struct cfg *c, struct kvlist *merged, const char **kv)
{
	struct kvlist base = { 0 };
	int ret;

	for (; *kv; kv += 2)
		kv_set(&base, kv[0], kv[1], "selftest");
	ret = cfg_build(c, &base, NULL, NULL, merged);
	kv_free(&base);
	return ret;
}

/*
 * One message of ten full packets from host0 to host1 over one link:
 * the NIC sends them back to back, so the last byte lands at ten
 * serialization times plus one propagation delay.
 */
static void timing_run(const char *rate, const char *delay,
		       struct run_out *out)
{
	const char *kv[] = {
		"topology", "back2back", "transport", "gbn", "app", "stream",
		"msg_size", "40960", "msgs", "1", "rate", "100",
		"delay", "700ns", "link.host0>host1.rate", rate,
		"link.host0>host1.delay", delay, NULL,
	};
	struct kvlist merged = { 0 };
	struct cfg c;

	*out = (struct run_out){ 0 };
	if (cfg_from(&c, &merged, kv) ||
	    run_one("timing", &c, &merged, NULL, NULL, NULL, out))
		out->first_rx_ps = 0;
	cfg_free(&c);
	kv_free(&merged);
}

/*
 * The same over one link of its own rate and delay (link.NAME.rate,
 * link.NAME.delay): 25 Gb/s and 2 us, a quarter of the rate, so four
 * times the serialization; "0" leaves a link as built.
 */
static void test_link_rate(void)
{
	uint64_t ser = (4096 + WREN_WIRE_DATA_HDRS_LEN +
			WREN_WIRE_ETH_OVERHEAD) * 80;
	struct run_out slow, same;

	timing_run("25", "2us", &slow);
	timing_run("0", "0", &same);
	ok(slow.first_rx_ps == 4 * ser + 2000000 &&
	   slow.last_rx_ps == 40 * ser + 2000000 &&
	   same.last_rx_ps == 10 * ser + 700000,
	   "link rate/delay: at 25 Gb/s and 2 us the last packet at %llu ps "
	   "(want %llu); as built %llu ps (want %llu)",
	   (unsigned long long)slow.last_rx_ps,
	   (unsigned long long)(40 * ser + 2000000),
	   (unsigned long long)same.last_rx_ps,
	   (unsigned long long)(10 * ser + 700000));
}

static void test_timing(void)
{
	const char *kv[] = {
		"topology", "back2back", "transport", "gbn", "app", "stream",
		"msg_size", "40960", "msgs", "1", "rate", "100",
		"delay", "700ns", NULL,
	};
	struct kvlist merged = { 0 };
	struct run_out out = { 0 };
	struct cfg c;
	uint64_t ser, want_first, want_last;

	if (cfg_from(&c, &merged, kv) ||
	    run_one("timing", &c, &merged, NULL, NULL, NULL, &out)) {
		ok(false, "timing: run");
		return;
	}
	/* (4096 + headers + FCS, preamble, gap) bytes at 8 ps a bit. */
	ser = (4096 + WREN_WIRE_DATA_HDRS_LEN + WREN_WIRE_ETH_OVERHEAD) * 80;
	want_first = ser + 700000;
	want_last = 10 * ser + 700000;
	ok(out.first_rx_ps == want_first && out.last_rx_ps == want_last &&
	   out.rx_bytes == 40960,
	   "timing: first packet at %llu ps (want %llu), last at %llu ps "
	   "(want %llu)", (unsigned long long)out.first_rx_ps,
	   (unsigned long long)want_first, (unsigned long long)out.last_rx_ps,
	   (unsigned long long)want_last);
	cfg_free(&c);
	kv_free(&merged);
}

static void test_ecmp(void)
{
	enum { PORTS = 8, N = 80000 };
	uint32_t cnt[PORTS] = { 0 }, i, min = N, max = 0;
	struct rng r;

	rng_seed(&r, 42, 7);
	for (i = 0; i < N; i++) {
		uint16_t sport = WREN_WIRE_ENTROPY_BASE |
				 (rng_next(&r) & WREN_WIRE_ENTROPY_MASK);

		cnt[ecmp_pick(0x1234, host_ip(i % 64), host_ip(64 + i % 7),
			      sport, WREN_WIRE_UDP_PORT, PORTS)]++;
	}
	for (i = 0; i < PORTS; i++) {
		if (cnt[i] < min)
			min = cnt[i];
		if (cnt[i] > max)
			max = cnt[i];
	}
	ok(min > N / PORTS * 0.95 && max < N / PORTS * 1.05,
	   "ecmp: %d flows over %d ports, %u..%u each (want %d +- 5%%)", N,
	   PORTS, min, max, N / PORTS);
}

static uint64_t arrived;

static void count_rx(void *node, struct pkt *p)
{
	struct net *n = node;

	arrived++;
	pkt_free(n, p);
}

/* Send @cnt minimum frames over a link with @imp; return arrivals. */
static uint64_t push(const struct imp *imp, uint32_t cnt, struct link *out)
{
	static struct cfg c;
	struct net n = { 0 };
	struct link l = { 0 };
	uint32_t i;

	c.seed = 99;
	sim_init(&n.sim);
	n.cfg = &c;
	n.pkt_cap = 128;
	rng_seed(&n.rng, c.seed, 0);
	l.net = &n;
	l.rate_mbps = 100000;
	l.prop_ps = 1000;
	l.imp = imp;
	l.rx = count_rx;
	l.node = &n;
	arrived = 0;
	for (i = 0; i < cnt; i++) {
		struct pkt *p = pkt_alloc(&n);
		uint64_t t;

		p->len = 64;
		t = link_send(&l, p);
		/* Deliver what has arrived, then send the next at once. */
		sim_run(&n.sim, t);
		n.sim.now = t;
	}
	sim_run(&n.sim, UINT64_MAX);
	*out = l;
	pkt_free_all(&n);
	sim_fini(&n.sim);
	return arrived;
}

static void test_impairments(void)
{
	const uint32_t N = 400000;
	struct imp imp = { .down_ps = NO_TIME, .up_ps = NO_TIME };
	double want, got, sd;
	struct link l;

	imp.loss = 0.01;
	got = 1 - (double)push(&imp, N, &l) / N;
	sd = sqrt(0.01 * 0.99 / N);
	ok(fabs(got - 0.01) < 5 * sd, "iid loss: %.5f realised (want 0.01 "
	   "+- %.5f)", got, 5 * sd);

	imp.loss = 0;
	imp.p_gb = 0.001;
	imp.p_bg = 0.1;
	imp.bad_loss = 0.5;
	want = imp.p_gb / (imp.p_gb + imp.p_bg) * imp.bad_loss;
	got = 1 - (double)push(&imp, N, &l) / N;
	/* Bursts make the spread wider than binomial: 15% relative. */
	ok(fabs(got - want) < 0.15 * want, "burst loss: %.5f realised "
	   "(want %.5f +- 15%%)", got, want);

	imp = (struct imp){ .dup = 0.02, .down_ps = NO_TIME,
			    .up_ps = NO_TIME };
	got = (double)push(&imp, N, &l) / N - 1;
	sd = sqrt(0.02 * 0.98 / N);
	ok(fabs(got - 0.02) < 5 * sd && l.duped == (uint64_t)llround(got * N),
	   "duplication: %.5f realised (want 0.02 +- %.5f)", got, 5 * sd);

	/* Minimum frames at 100 Gb/s: (64 + 24) * 80 ps each. */
	imp = (struct imp){ .down_ps = 100 * 7040, .up_ps = 300 * 7040 };
	got = (double)push(&imp, 1000, &l);
	ok(got == 800 && l.blackholed == 200, "black hole: %.0f of 1000 "
	   "arrived, %llu swallowed (want 800, 200)", got,
	   (unsigned long long)l.blackholed);
}

static uint32_t order_seen, ack_pos;

static void order_rx(void *node, struct pkt *p)
{
	struct net *n = node;

	order_seen++;
	if (FIELD_GET(WREN_WIRE_VER_TYPE_TYPE, p->data[WREN_WIRE_HDR]) ==
	    WREN_WIRE_ACK || p->data[WREN_WIRE_IP_TOS] >> 5 == 3)
		ack_pos = order_seen;
	pkt_free(n, p);
}

/*
 * Ten full DATA frames, then one ACK (@data: one more DATA frame at IP
 * precedence 3), into one switch port at once: the position at which
 * the last leaves (1-based).
 */
static uint32_t ack_position(bool prio, uint16_t dport, bool data)
{
	static const struct imp imp = { .down_ps = NO_TIME, .up_ps = NO_TIME };
	struct cfg c = { .seed = 5, .sw_buffer = 1 << 20,
			 .sw_hdr_buffer = 64 << 10, .sw_prio_ctrl = prio,
			 .sw_prio_data = prio && data };
	struct net n = { 0 };
	struct sw s = { 0 };
	uint32_t i;

	sim_init(&n.sim);
	n.cfg = &c;
	n.pkt_cap = WREN_WIRE_DATA_HDRS_LEN + 4096;
	rng_seed(&n.rng, c.seed, 0);
	sw_init(&n, &s, 0, 1);
	s.ports[0].link.rate_mbps = 100000;
	s.ports[0].link.prop_ps = 1000;
	s.ports[0].link.imp = &imp;
	s.ports[0].link.rx = order_rx;
	s.ports[0].link.node = &n;
	order_seen = ack_pos = 0;
	for (i = 0; i <= 10; i++) {
		struct pkt *p = pkt_alloc(&n);
		uint8_t type = i < 10 || data ? WREN_WIRE_DATA : WREN_WIRE_ACK;

		p->len = i < 10 || data ? n.pkt_cap : WREN_WIRE_DATA_HDRS_LEN;
		memset(p->data, 0, p->len);
		frame_l2l4(p->data, p->len, host_ip(0), host_ip(1), 0xc001,
			   dport, i == 10 && data ? 3 << 5 : 0);
		p->data[WREN_WIRE_HDR] =
			FIELD_PREP(WREN_WIRE_VER_TYPE_VERSION,
				   WREN_WIRE_VERSION) |
			FIELD_PREP(WREN_WIRE_VER_TYPE_TYPE, type);
		port_enqueue(&s.ports[0], p);
	}
	sim_run(&n.sim, UINT64_MAX);
	free(s.ports);
	pkt_free_all(&n);
	sim_fini(&n.sim);
	return order_seen == 11 ? ack_pos : 0;
}

/*
 * sw.prio_ctrl: an ACK behind ten DATA frames leaves second (after the
 * frame already on the wire), for Wren and for the baseline's port;
 * without it, last.
 */
static void test_prio_ctrl(void)
{
	uint32_t on = ack_position(true, WREN_WIRE_UDP_PORT, false);
	uint32_t rocev2 = ack_position(true, GBN_UDP_PORT, false);
	uint32_t off = ack_position(false, WREN_WIRE_UDP_PORT, false);

	ok(on == 2 && rocev2 == 2 && off == 11,
	   "prio_ctrl: ACK behind 10 DATA leaves %u-th (RoCEv2 port %u-th), "
	   "%u-th without (want 2, 2, 11)", on, rocev2, off);
}

/*
 * sw.prio_data: a DATA frame at IP precedence 3 behind ten at 0 leaves
 * second; without it, last.
 */
static void test_prio_data(void)
{
	uint32_t on = ack_position(true, WREN_WIRE_UDP_PORT, true);
	uint32_t off = ack_position(false, WREN_WIRE_UDP_PORT, true);

	ok(on == 2 && off == 11,
	   "prio_data: DATA at precedence 3 behind 10 at 0 leaves %u-th, "
	   "%u-th without (want 2, 11)", on, off);
}

/*
 * DCQCN (gbn.cc = dcqcn) on the marking profile of its paper: two
 * senders at line rate into one 100 Gb/s port with a 2 MiB buffer and
 * 4 MiB each allowed in flight.  Without congestion control the queue
 * overflows (the same run with gbn.cc = aimd and no ECN drops); with
 * DCQCN the switch marks, the CNPs cut the senders' rates and hold the
 * queue under the buffer, and no packet is dropped.
 */
static int dcqcn_run(const char *cc, const char *kmax, struct run_out *out)
{
	const char *kv[] = {
		"topology", "star", "app", "incast", "senders", "2",
		"transport", "gbn", "gbn.cc", cc, "gbn.window", "4M",
		"msg_size", "1M", "outstanding", "4", "duration", "4ms",
		"warmup", "1ms", "sw.buffer", "2M", "sw.kmin", "5K",
		"sw.kmax", kmax, "sw.pmax", "0.01", "rate", "100", NULL,
	};
	struct kvlist merged = { 0 };
	struct cfg c;
	int ret;

	*out = (struct run_out){ 0 };
	ret = cfg_from(&c, &merged, kv) ||
	      run_one("dcqcn", &c, &merged, NULL, NULL, NULL, out);
	cfg_free(&c);
	kv_free(&merged);
	return ret;
}

static void test_dcqcn(void)
{
	struct run_out on, off;
	int r1 = dcqcn_run("dcqcn", "200K", &on);
	int r2 = dcqcn_run("aimd", "0", &off);

	ok(!r1 && !r2 && on.ok && off.ok && on.sw_marks > 0 &&
	   on.sw_drops == 0 && on.sw_max_q < 2 << 20 && off.sw_drops > 0,
	   "dcqcn: 2:1 at line rate: %llu marks, %llu drops, queue peak "
	   "%u B (want marks, no drop); without: %llu drops (want some)",
	   (unsigned long long)on.sw_marks, (unsigned long long)on.sw_drops,
	   on.sw_max_q, (unsigned long long)off.sw_drops);
}

/*
 * PFC (sw.pfc): two go-back-N senders without congestion control at line
 * rate into one 100 Gb/s port whose buffer (256 KiB) cannot hold their
 * window (1 MiB each).  Without PFC the port drops; with it the switch
 * pauses both senders' NICs whenever their ingress queue passes XOFF
 * (64 KiB), nothing is dropped or resent, the queue stays within the two
 * ingress queues' XOFF plus headroom, and the port stays busy (XON at
 * 32 KiB leaves it 32 KiB a sender to send while the XON travels).
 */
static int pfc_run(const char *pfc, struct run_out *out)
{
	const char *kv[] = {
		"topology", "star", "app", "incast", "senders", "2",
		"transport", "gbn", "gbn.window", "1M", "msg_size", "256K",
		"outstanding", "4", "duration", "2ms", "warmup", "500us",
		"sw.buffer", "256K", "sw.pfc", pfc, "rate", "100", NULL,
	};
	struct kvlist merged = { 0 };
	struct cfg c;
	int ret;

	*out = (struct run_out){ 0 };
	ret = cfg_from(&c, &merged, kv) ||
	      run_one("pfc", &c, &merged, NULL, NULL, NULL, out);
	cfg_free(&c);
	kv_free(&merged);
	return ret;
}

static void test_pfc(void)
{
	struct run_out on, off;
	int r1 = pfc_run("1", &on);
	int r2 = pfc_run("0", &off);

	ok(!r1 && !r2 && on.ok && off.ok && on.pfc_pauses > 0 &&
	   on.sw_drops == 0 && on.pfc_drops == 0 && on.retx_pkts == 0 &&
	   on.sw_max_q <= 2 * (64 << 10) + 2 * 24000 && on.frac >= 0.95 &&
	   off.sw_drops > 0,
	   "pfc: 2:1 without CC: %llu PAUSEs, %llu drops, %llu resent, queue "
	   "peak %u B, %.3f of the wire limit (want pauses, no drop, no "
	   "resend, <= 2 x (XOFF + headroom), >= 0.95); without: %llu drops",
	   (unsigned long long)on.pfc_pauses, (unsigned long long)on.sw_drops,
	   (unsigned long long)on.retx_pkts, on.sw_max_q, on.frac,
	   (unsigned long long)off.sw_drops);
}

/*
 * Swift (gbn.cc = swift over IRN's recovery): 4 senders at line rate
 * into one 100 Gb/s port with a 2 MiB buffer, up to 64 packets each
 * allowed out.  Without congestion control (DCQCN on a switch that never
 * marks) the allowance queues at the port; Swift's delay target (10 us
 * plus up to 10 us of flow scaling) holds the queue to a fraction of
 * that, with nothing dropped and the port busy.
 */
static int swift_run(const char *cc, struct run_out *out)
{
	const char *kv[] = {
		"topology", "star", "app", "incast", "senders", "4",
		"transport", "gbn", "gbn.cc", cc, "gbn.recovery", "irn",
		"gbn.bdp_cap", "64", "msg_size", "1M", "outstanding", "4",
		"duration", "2ms", "warmup", "500us", "sw.buffer", "2M",
		"rate", "100", NULL,
	};
	struct kvlist merged = { 0 };
	struct cfg c;
	int r;

	*out = (struct run_out){ 0 };
	r = cfg_from(&c, &merged, kv) ||
	    run_one("swift", &c, &merged, NULL, NULL, NULL, out);
	cfg_free(&c);
	kv_free(&merged);
	return r;
}

static void test_swift(void)
{
	struct run_out on, off;
	int r1 = swift_run("swift", &on), r2 = swift_run("dcqcn", &off);

	ok(!r1 && !r2 && on.ok && off.ok && on.sw_drops == 0 &&
	   2 * on.sw_max_q < off.sw_max_q && on.frac >= 0.95,
	   "swift: 4:1 at line rate: queue peak %u B, %llu drops, %.3f of "
	   "the wire limit; without CC %u B (want under half, no drop, "
	   ">= 0.95)", on.sw_max_q, (unsigned long long)on.sw_drops, on.frac,
	   off.sw_max_q);
}

/*
 * NDP (transport = ndp): 16 senders each send 1 MiB at once into one
 * host behind a switch that trims data beyond 36 KiB (8 packets).  The
 * first windows overflow the port and are trimmed, the receiver NACKs
 * the headers and from then on pulls at its link rate: nothing is
 * dropped, every message arrives, the receiver's link stays busy and the
 * senders finish close together (first-to-last as S5 measures it: 0.945,
 * the senders whose first window got through untrimmed keep that much of
 * a lead, 96 KiB of 1 MiB at most; ask 0.9).
 */
static void test_ndp(void)
{
	const char *kv[] = {
		"topology", "star", "app", "incast", "senders", "16",
		"transport", "ndp", "msg_size", "1M", "msgs", "1",
		"outstanding", "1", "sw.buffer", "36K", "sw.trim", "1",
		"sw.prio_ctrl", "1", "rate", "100", "max_time", "50ms", NULL,
	};
	struct kvlist merged = { 0 };
	struct run_out out = { 0 };
	struct cfg c;
	int r = cfg_from(&c, &merged, kv) ||
		run_one("ndp", &c, &merged, NULL, NULL, NULL, &out);
	double secs = (out.last_rx_ps - out.first_rx_ps) / 1e12;
	/* 16 MiB at the receiver's wire limit: 4096 of 4226 bytes. */
	double ideal = 16.0 * 1048576 / (100e9 / 8 * 4096 / (4096 + 130));

	ok(!r && out.ok && out.sw_drops == 0 && out.retx_pkts > 0 &&
	   out.first_to_last >= 0.9 && secs <= 1.05 * ideal,
	   "ndp: 16:1 incast through a trimming switch: %llu resent, %llu "
	   "drops, first-to-last %.3f, %.1f us for %.1f us at the wire "
	   "limit (want resends, no drop, >= 0.9, <= 1.05 x)",
	   (unsigned long long)out.retx_pkts,
	   (unsigned long long)out.sw_drops, out.first_to_last, secs * 1e6,
	   ideal * 1e6);
	cfg_free(&c);
	kv_free(&merged);
}

/* A UET run from key=value strings, into @out; false if not set up. */
static bool uet_run(const char *name, const char **kv, struct run_out *out)
{
	struct kvlist merged = { 0 };
	struct cfg c;
	int r = cfg_from(&c, &merged, kv) ||
		run_one(name, &c, &merged, NULL, NULL, NULL, out);

	cfg_free(&c);
	kv_free(&merged);
	return !r;
}

/*
 * UET (transport = uet) delivers every message exactly once when links
 * lose packets and the switch trims them: 8 senders x 1 MiB into one
 * host behind a 36 KiB trimming buffer, every link losing 0.5 % of
 * frames.  The run's integrity checks (no byte wrong, none twice, none
 * missing, every message done) must hold, and both NACKed trims and
 * timeouts must have resent packets.
 */
static void test_uet_loss(void)
{
	const char *kv[] = {
		"topology", "star", "app", "incast", "senders", "8",
		"transport", "uet", "msg_size", "1M", "msgs", "1",
		"outstanding", "1", "sw.buffer", "36K", "sw.trim", "1",
		"sw.prio_ctrl", "1", "loss", "0.005", "max_time", "50ms",
		NULL,
	};
	struct run_out out = { 0 };
	bool r = uet_run("uet_loss", kv, &out);

	ok(r && out.ok && out.sw_trims > 0 && out.lost_pkts > 0 &&
	   out.retx_pkts >= out.lost_pkts,
	   "uet: 8:1 incast, 0.5 %% loss, trimming: intact %d, %llu trimmed, "
	   "%llu lost, %llu resent (want intact, trims, resends >= losses)",
	   out.ok, (unsigned long long)out.sw_trims,
	   (unsigned long long)out.lost_pkts,
	   (unsigned long long)out.retx_pkts);
}

/*
 * UET sprays: one flow between two leaves joined by 8 spines uses
 * every leaf-spine link both ways (8 up, 8 down, and as many for the
 * ACKs, which follow the EVs they echo: 34 ports with the two host
 * links); with one entropy (uet.evs = 1) data and ACKs take one path
 * each way and the receiver's PULLs one more back (8 ports, seed 1).
 */
static void test_uet_spray(void)
{
	const char *kv[] = {
		"topology", "leafspine", "leaves", "2", "hosts_per_leaf", "1",
		"spines", "8", "transport", "uet", "app", "stream",
		"msg_size", "1M", "msgs", "4", "outstanding", "1",
		"uet.evs", "64", NULL,
	};
	struct run_out many = { 0 }, one = { 0 };
	bool r1 = uet_run("uet_spray", kv, &many), r2;

	kv[19] = "1";
	r2 = uet_run("uet_1ev", kv, &one);
	ok(r1 && r2 && many.ok && one.ok && many.sw_ports_used >= 30 &&
	   one.sw_ports_used <= 8,
	   "uet: spraying over 64 EVs uses %u switch ports, one EV %u "
	   "(want >= 30 and <= 8)", many.sw_ports_used, one.sw_ports_used);
}

/*
 * RCCC's credits bound what queues at the receiver: 16 senders x 1 MiB
 * into one host behind a 64 KiB trimming buffer, NSCC off so that only
 * the credits hold the senders back.  Without credits every sender
 * keeps its window (1.5 BDP) in flight and the port trims all along;
 * with them only the first, speculative windows overflow it (seed 1:
 * 302 trims against 52,814; ask for under half), and the receiver's
 * link stays busy (1391.3 us for 1384.8 us at its wire limit).
 */
static void test_uet_credits(void)
{
	const char *kv[] = {
		"topology", "star", "app", "incast", "senders", "16",
		"transport", "uet", "msg_size", "1M", "msgs", "1",
		"outstanding", "1", "sw.buffer", "64K", "sw.trim", "1",
		"sw.prio_ctrl", "1", "uet.nscc", "0", "uet.rccc", "1",
		"max_time", "50ms", NULL,
	};
	struct run_out on = { 0 }, off = { 0 };
	bool r1 = uet_run("uet_rccc", kv, &on), r2;
	double secs = (on.last_rx_ps - on.first_rx_ps) / 1e12;
	/* 16 MiB at the receiver's wire limit: 4096 of 4226 bytes. */
	double ideal = 16.0 * 1048576 / (100e9 / 8 * 4096 / (4096 + 130));

	kv[23] = "0";
	r2 = uet_run("uet_norccc", kv, &off);
	ok(r1 && r2 && on.ok && off.ok && 2 * on.sw_trims < off.sw_trims &&
	   secs <= 1.05 * ideal,
	   "uet: 16:1 incast, credits on: %llu trims, %.1f us (wire limit "
	   "%.1f us); off: %llu trims (want under half, <= 1.05 x)",
	   (unsigned long long)on.sw_trims, secs * 1e6, ideal * 1e6,
	   (unsigned long long)off.sw_trims);
}

/*
 * IRN (gbn.recovery = irn) against go-back-N on one 100 Gb/s link that
 * loses 1 % of frames: both deliver every message intact, but IRN
 * resends about what was lost (each lost DATA frame once, give or take
 * lost ACKs and timeouts: at most twice the frames lost), where
 * go-back-N resends everything after each loss (over 3x here).
 */
static int irn_run(const char *rec, struct run_out *out)
{
	const char *kv[] = {
		"topology", "back2back", "transport", "gbn",
		"gbn.recovery", rec, "msg_size", "64K", "outstanding", "8",
		"duration", "2ms", "loss", "0.01", "rate", "100", NULL,
	};
	struct kvlist merged = { 0 };
	struct cfg c;
	int ret;

	*out = (struct run_out){ 0 };
	ret = cfg_from(&c, &merged, kv) ||
	      run_one("irn", &c, &merged, NULL, NULL, NULL, out);
	cfg_free(&c);
	kv_free(&merged);
	return ret;
}

static void test_irn(void)
{
	struct run_out sr, gbn;
	int r1 = irn_run("irn", &sr);
	int r2 = irn_run("gbn", &gbn);

	ok(!r1 && !r2 && sr.ok && gbn.ok && sr.lost_pkts > 0 &&
	   sr.retx_pkts <= 2 * sr.lost_pkts &&
	   gbn.retx_pkts > 3 * gbn.lost_pkts,
	   "irn: 1%% loss: %llu resent for %llu lost (want <= 2x); "
	   "go-back-N %llu for %llu (want > 3x); both intact",
	   (unsigned long long)sr.retx_pkts,
	   (unsigned long long)sr.lost_pkts,
	   (unsigned long long)gbn.retx_pkts,
	   (unsigned long long)gbn.lost_pkts);
}

/*
 * openloop: four hosts on one switch offer 30 % of their links in
 * messages of exactly 10000 bytes for 1 ms.  The bytes offered come to
 * 30 % of 4 links x 1 ms within 10 % (Poisson: about 1500 messages), and
 * no message beats its ideal (slowdown >= 1) while the least loaded come
 * close to it (the smallest under 1.5).
 */
static void test_openloop(void)
{
	char path[] = "/tmp/netsim-cdf-XXXXXX";
	const char *kv[] = {
		"topology", "star", "hosts", "4", "app", "openloop",
		"load", "0.3", "cdf", path, "duration", "1ms",
		"rate", "100", NULL,
	};
	struct kvlist merged = { 0 };
	struct run_out out = { 0 };
	int fd = mkstemp(path), r = -1;
	double offered = 0;
	struct cfg c;
	FILE *f;

	if (fd >= 0 && (f = fdopen(fd, "w"))) {
		fprintf(f, "10000 0\n10000 100\n");
		fclose(f);
		r = cfg_from(&c, &merged, kv) ||
		    run_one("openloop", &c, &merged, NULL, NULL, NULL, &out);
		cfg_free(&c);
		kv_free(&merged);
		/* bytes x 8 over 4 links of 100 Gb/s for 1 ms */
		offered = out.ol_posted_bytes * 8 / (4 * 100e9 * 1e-3);
	}
	if (fd >= 0)
		unlink(path);
	ok(!r && out.ok && fabs(offered - 0.3) < 0.03 &&
	   out.ol_sd_min >= 1000 && out.ol_sd_min < 1500,
	   "openloop: %u messages, offered %.3f of the links (want 0.3 +- "
	   "10%%), smallest slowdown %.3f (want 1..1.5)", out.ol_msgs,
	   offered, out.ol_sd_min / 1e3);
}

/*
 * The target's grants share its link evenly: 16 senders on one switch
 * each send one 2 MiB message (granted) to host0.  The first sender to
 * ask takes the whole grant window before the others' requests arrive;
 * least-granted-first lets the others catch up, so every sender is done
 * within 5 % of the last (plain turns: the first was 9 % ahead).
 */
static void test_incast_fair(void)
{
	const char *kv[] = {
		"topology", "star", "app", "incast", "senders", "16",
		"msgs", "1", "msg_size", "2M", "sw.buffer", "256K",
		"rate", "100", "max_time", "100ms", NULL,
	};
	struct kvlist merged = { 0 };
	struct run_out out = { 0 };
	struct cfg c;
	int r;

	r = cfg_from(&c, &merged, kv) ||
	    run_one("incast", &c, &merged, NULL, NULL, NULL, &out);
	cfg_free(&c);
	kv_free(&merged);
	ok(!r && out.ok && out.first_to_last >= 0.95,
	   "incast: 16 x 2 MiB granted: first sender done at %.3f of the "
	   "last (want >= 0.95)", out.first_to_last);
}

/*
 * The fat tree's shape: k^3/4 hosts, 5k^2/4 switches, and between two
 * hosts 1 path on one edge switch, k/2 within a pod, (k/2)^2 across
 * pods, every pair (each walk ending at its destination); the tiers'
 * rates follow ft.os_edge and ft.os_agg.
 */
static bool fattree_shape(uint32_t k, const char *os_edge,
			  const char *os_agg, uint32_t *hosts,
			  uint32_t *rate_ea, uint32_t *rate_ac)
{
	char ks[8];
	const char *kv[] = {
		"topology", "fattree", "ft.k", ks, "ft.os_edge", os_edge,
		"ft.os_agg", os_agg, "msgs", "1", NULL,
	};
	struct kvlist merged = { 0 };
	uint32_t h = k / 2, a, b;
	struct net n = { 0 };
	struct link *ea, *ac;
	bool good = false;
	struct cfg c;

	snprintf(ks, sizeof(ks), "%u", k);
	*hosts = *rate_ea = *rate_ac = 0;
	if (cfg_from(&c, &merged, kv))
		goto out;
	sim_init(&n.sim);
	n.cfg = &c;
	rng_seed(&n.rng, c.seed, 0);
	if (topo_build(&n))
		goto out_sim;
	*hosts = n.nhosts;
	good = n.nsw == 5 * k * k / 4;
	for (a = 0; a < n.nhosts; a++) {
		for (b = 0; b < n.nhosts; b++) {
			uint64_t want = a == b ? 0 :
					a / h == b / h ? 1 :
					a / (h * h) == b / (h * h) ? h : h * h;

			if (a != b && topo_paths(&n, a, b) != want)
				good = false;
		}
	}
	ea = topo_find_link(&n, "edge0>agg1");
	ac = topo_find_link(&n, "core1>agg0");
	*rate_ea = ea ? ea->rate_mbps : 0;
	*rate_ac = ac ? ac->rate_mbps : 0;
	topo_free(&n);
out_sim:
	sim_fini(&n.sim);
	cfg_free(&c);
out:
	kv_free(&merged);
	return good;
}

/* A permutation (cross-pod, streaming 256 KiB messages): its goodput. */
static double fattree_perm(uint32_t k, const char *os_edge,
			   const char *os_agg)
{
	char ks[8];
	const char *kv[] = {
		"topology", "fattree", "ft.k", ks, "ft.os_edge", os_edge,
		"ft.os_agg", os_agg, "app", "permutation",
		"msg_size", "256K", "outstanding", "4", "duration", "250us",
		"warmup", "50us", "sw.buffer", "512K", "sw.ecn", "64K",
		"sw.prio_ctrl", "1", "rate", "100", NULL,
	};
	struct kvlist merged = { 0 };
	struct run_out out = { 0 };
	struct cfg c;
	int r;

	snprintf(ks, sizeof(ks), "%u", k);
	r = cfg_from(&c, &merged, kv) ||
	    run_one("fattree", &c, &merged, NULL, NULL, NULL, &out);
	cfg_free(&c);
	kv_free(&merged);
	return !r && out.ok ? out.frac : -1;
}

static void test_fattree(void)
{
	uint32_t h4, h8, ea, ac, ea1, ac1;
	bool s4 = fattree_shape(4, "2", "3", &h4, &ea, &ac);
	bool s8 = fattree_shape(8, "1", "1", &h8, &ea1, &ac1);
	double full, os2, os4;

	ok(s4 && s8 && h4 == 16 && h8 == 128 && ea == 50000 &&
	   ac == 16667 && ea1 == 100000 && ac1 == 100000,
	   "fattree: k=4 %u hosts, k=8 %u (want 16, 128), paths 1 / k/2 / "
	   "(k/2)^2 for every pair: %s; 2:1 then 3:1 tiers at %u / %u Mb/s "
	   "(want 50000 / 16667)", h4, h8, s4 && s8 ? "yes" : "no", ea, ac);
	full = fattree_perm(8, "1", "1");
	os2 = fattree_perm(4, "2", "1");
	os4 = fattree_perm(4, "2", "2");
	ok(full >= 0.75 && os2 > 0.4 && os2 <= 0.5 && os4 > 0.2 &&
	   os4 <= 0.25,
	   "fattree: permutation at %.3f of the wire limit on k=8 1:1 (want "
	   ">= 0.75), k=4 %.3f at 2:1 (want 0.4..0.5), %.3f at 2:1 + 2:1 "
	   "(want 0.2..0.25)", full, os2, os4);
}

/*
 * htsim's files (htsim.c): its topology format builds the tree its
 * numbers say, and a connection matrix replays unchanged.  @dir holds
 * the test files.
 */
static bool ht_shape(const char *topo, uint32_t *hosts, uint32_t *nsw,
		     uint64_t *paths, uint32_t *rates, uint64_t *delays)
{
	const char *kv[] = { "topology", "htsim", "htsim.topo", topo,
			     "msgs", "1", NULL };
	static const char *const names[] = {
		"host0>tor0", "tor1>agg3", "agg2>core6/1", "core6>agg2/0",
	};
	struct kvlist merged = { 0 };
	struct net n = { 0 };
	struct cfg c;
	bool good = false;

	if (cfg_from(&c, &merged, kv))
		goto out;
	sim_init(&n.sim);
	n.cfg = &c;
	rng_seed(&n.rng, c.seed, 0);
	if (topo_build(&n))
		goto out_sim;
	*hosts = n.nhosts;
	*nsw = n.nsw;
	/* Same ToR, same pod, another pod. */
	paths[0] = topo_paths(&n, 0, 1);
	paths[1] = topo_paths(&n, 0, 4);
	paths[2] = topo_paths(&n, 0, 31);
	good = true;
	for (int i = 0; i < 4; i++) {
		struct link *l = topo_find_link(&n, names[i]);

		rates[i] = l ? l->rate_mbps : 0;
		delays[i] = l ? l->prop_ps : 0;
		good &= l != NULL;
	}
	/* Every pair reaches its destination. */
	for (uint32_t a = 0; a < n.nhosts; a++)
		for (uint32_t b = 0; b < n.nhosts; b++)
			if (a != b && !topo_paths(&n, a, b))
				good = false;
	good &= n.sws[0].ports[0].buffer == 256000 &&
		n.sws[0].ports[4].buffer == 0;
	topo_free(&n);
out_sim:
	sim_fini(&n.sim);
	cfg_free(&c);
out:
	kv_free(&merged);
	return good;
}

static int ht_run(const char *topo, const char *cm, struct run_out *out)
{
	const char *kv[] = {
		"topology", "htsim", "htsim.topo", topo, "app", "matrix",
		"htsim.cm", cm, "sw.buffer", "512K", "sw.ecn", "64K",
		"sw.prio_ctrl", "1", "max_time", "20ms", NULL,
	};
	struct kvlist merged = { 0 };
	struct cfg c;
	int r;

	*out = (struct run_out){ 0 };
	r = cfg_from(&c, &merged, kv) ||
	    run_one("htsim", &c, &merged, NULL, NULL, NULL, out);
	cfg_free(&c);
	kv_free(&merged);
	return r || !out->ok ? -1 : 0;
}

static void test_htsim(const char *dir)
{
	char ft[512], ls[512], perm[512], trig[512], fails[512], bad[512];
	uint32_t hosts = 0, nsw = 0, rates[4];
	uint64_t paths[3] = { 0 }, delays[4], lo = UINT64_MAX, hi = 0;
	struct run_out o;
	bool shape, order;
	int r;
	FILE *f;

	snprintf(ft, sizeof(ft), "%s/htsim_ft32.topo", dir);
	snprintf(ls, sizeof(ls), "%s/htsim_ls16.topo", dir);
	snprintf(perm, sizeof(perm), "%s/htsim_perm16.cm", dir);
	snprintf(trig, sizeof(trig), "%s/htsim_trig.cm", dir);
	snprintf(fails, sizeof(fails), "%s/htsim_fail.cm", dir);
	shape = ht_shape(ft, &hosts, &nsw, paths, rates, delays);
	ok(shape && hosts == 32 && nsw == 8 + 16 + 8 && paths[0] == 1 &&
	   paths[1] == 4 && paths[2] == 32 && rates[0] == 100000 &&
	   rates[1] == 100000 && rates[2] == 50000 && rates[3] == 50000 &&
	   delays[0] == 500000 && delays[1] == 600000 &&
	   delays[2] == 800000 && delays[3] == 700000,
	   "htsim topology: %u hosts, %u switches (want 32, 32), paths %llu "
	   "/ %llu / %llu (want 1 / 4 / 32), tier rates and latencies, "
	   "bundles, queue sizes as the file says", hosts, nsw,
	   (unsigned long long)paths[0], (unsigned long long)paths[1],
	   (unsigned long long)paths[2]);

	r = ht_run(ls, perm, &o);
	for (uint32_t i = 0; i < o.mx_n; i++) {
		uint64_t fct = o.mx_done_ps[i] - o.mx_post_ps[i];

		lo = fct < lo ? fct : lo;
		hi = fct > hi ? fct : hi;
	}
	/* 500,000 bytes at the wire limit of 100 Gb/s: about 41 us. */
	ok(!r && o.mx_n == 16 && lo > 40000000 && hi < 1.2 * lo,
	   "htsim matrix: a 16-flow permutation of 500 KB replays: every "
	   "flow done, FCT %.1f to %.1f us", lo / 1e6, hi / 1e6);

	r = ht_run(ls, trig, &o);
	order = o.mx_n == 6 && o.mx_post_ps[0] == 10000000 &&
		o.mx_post_ps[1] == o.mx_done_ps[0] &&
		o.mx_post_ps[2] == o.mx_done_ps[0] &&
		o.mx_post_ps[3] > o.mx_post_ps[1] &&
		o.mx_post_ps[3] > o.mx_post_ps[2] &&
		o.mx_post_ps[4] == o.mx_done_ps[3] &&
		o.mx_post_ps[5] == o.mx_done_ps[4];
	ok(!r && order, "htsim matrix: start time, oneshot, barrier and "
	   "multishot triggers start each flow in turn");

	/*
	 * A failed link is gone both ways: nothing crosses it, the frames
	 * ECMP hashed onto it take the other links, every flow ends.
	 */
	r = ht_run(ft, fails, &o);
	ok(!r && o.mx_n == 16 && o.sw_failed == 2 && !o.sw_failed_tx &&
	   o.sw_rerouted > 0,
	   "htsim matrix: a failed link (agg1>core5/0, core5>agg1/0) carries "
	   "nothing, %llu frames hashed onto it went elsewhere, every flow "
	   "done", (unsigned long long)o.sw_rerouted);

	/* A file htsim refuses is refused, with its line. */
	snprintf(bad, sizeof(bad), "%s/htsim_bad.topo.tmp",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	f = fopen(bad, "w");
	if (f) {
		fprintf(f, "Nodes 16\nTiers 2\nPodsize 16\nTier 0\n"
			"Downlink_speed_Gbps 100\nRadix_Down 4\nRadix_Up 3\n"
			"Downlink_Latency_ns 500\nTier 1\n"
			"Downlink_speed_Gbps 100\nRadix_Down 4\n"
			"Downlink_Latency_ns 500\n");
		fclose(f);
	}
	fprintf(stderr, "# the error below is expected:\n");
	{
		struct ht_topo t;

		ok(f && ht_topo_load(bad, &t) < 0,
		   "htsim topology: radices that do not add up are refused");
	}
	unlink(bad);
}

static void test_scenario_errors(void)
{
	const char *bad_key[] = { "no_such_key", "1", "msgs", "1", NULL };
	const char *bad_val[] = { "loss", "1.5", "msgs", "1", NULL };
	const char *bad_enum[] = { "app", "nope", "msgs", "1", NULL };
	const char *good[] = { "msgs", "1", "link.host0>host1.loss", "0.1",
			       "delay", "2us", "msg_size", "4KiB", NULL };
	struct kvlist m = { 0 };
	struct cfg c;
	int r1, r2, r3, r4;

	fprintf(stderr, "# the three errors below are expected:\n");
	r1 = cfg_from(&c, &m, bad_key);
	cfg_free(&c);
	kv_free(&m);
	r2 = cfg_from(&c, &m, bad_val);
	cfg_free(&c);
	kv_free(&m);
	r3 = cfg_from(&c, &m, bad_enum);
	cfg_free(&c);
	kv_free(&m);
	r4 = cfg_from(&c, &m, good);
	ok(r1 < 0 && r2 < 0 && r3 < 0 && r4 == 0 && c.delay_ps == 2000000 &&
	   c.msg_size == 4096 && c.nlo == 1 && c.lo[0].imp.loss == 0.1,
	   "scenario: bad key, value and choice refused; units parsed");
	cfg_free(&c);
	kv_free(&m);
}

/* The JSON of every run of @path with @seed, into a string. */
static char *report_of(const char *path, const char *seed, bool *all_ok)
{
	struct kvlist sets = { 0 };
	struct scenario sc;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	struct jw w;
	uint32_t i;

	*all_ok = false;
	if (scenario_load(&sc, path))
		return NULL;
	kv_set(&sets, "seed", seed, "selftest");
	f = open_memstream(&buf, &len);
	jw_open(&w, f);
	jw_arr(&w, NULL);
	*all_ok = true;
	for (i = 0; i < sc.nruns; i++) {
		struct kvlist merged = { 0 };
		struct run_out out = { 0 };
		struct cfg c;

		if (cfg_build(&c, &sc.base, &sc.runs[i], &sets, &merged) ||
		    run_one(sc.run_names[i], &c, &merged, &w, NULL, NULL,
			    &out) || !out.ok)
			*all_ok = false;
		cfg_free(&c);
		kv_free(&merged);
	}
	jw_end(&w, ']');
	fclose(f);
	kv_free(&sets);
	scenario_free(&sc);
	return buf;
}

static void test_determinism(const char *path)
{
	bool ok1, ok2, ok3;
	char *a = report_of(path, "7", &ok1);
	char *b = report_of(path, "7", &ok2);
	char *c = report_of(path, "8", &ok3);

	ok(a && b && c && ok1 && ok2 && ok3,
	   "determinism: every run of %s completes intact", path);
	ok(a && b && !strcmp(a, b), "determinism: seed 7 twice, identical "
	   "reports (%zu bytes)", a ? strlen(a) : 0);
	ok(a && c && strcmp(a, c), "determinism: seeds 7 and 8 differ");
	free(a);
	free(b);
	free(c);
}

/* The binary itself: exit status and the separate wall-clock key. */
static void test_cli(const char *netsim, const char *path)
{
	char cmd[1024];
	int st;

	snprintf(cmd, sizeof(cmd), "%s --quiet --run gbn --json - %s | "
		 "grep -q '\"wall\"'", netsim, path);
	st = system(cmd);
	ok(st == 0, "cli: %s --run gbn writes JSON with a wall key", netsim);
	snprintf(cmd, sizeof(cmd), "%s --quiet --set nope=1 %s 2>/dev/null",
		 netsim, path);
	st = system(cmd);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 2,
	   "cli: an unknown --set key exits 2");
}

int main(int argc, char **argv)
{
	char dir[1024];

	if (argc != 3) {
		fprintf(stderr, "usage: selftest NETSIM DETERMINISM.ini\n");
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s", argv[2]);
	printf("TAP version 13\n");
	test_timing();
	test_link_rate();
	test_ecmp();
	test_impairments();
	test_prio_ctrl();
	test_prio_data();
	test_dcqcn();
	test_pfc();
	test_irn();
	test_ndp();
	test_uet_loss();
	test_uet_spray();
	test_uet_credits();
	test_swift();
	test_openloop();
	test_incast_fair();
	test_fattree();
	test_htsim(dirname(dir));
	test_scenario_errors();
	test_determinism(argv[2]);
	test_cli(argv[1], argv[2]);
	printf("1..%d\n", tap_tests);
	return tap_done();
}
