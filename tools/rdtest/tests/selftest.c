// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The host self-test of wren_rd_stress's parts that need no device: the
 * message generator (sizes, their distribution and mean, the payload and
 * its check) and the TCP rendezvous (with the one-sided windows and the
 * RC QP numbers it hands out), played by forked participants on
 * loopback.  wren_rc_stress's operations: tests/rcgen_test.c.  TAP, then "N passed,
 * N failed"; exit 1 if any failed.
 */
#define _GNU_SOURCE
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rdtest.h"
#include "tap.h"

const char *rd_prog = "rdtest_selftest";

/* ------------------------------------------------------------------ */
/* The generator                                                        */
/* ------------------------------------------------------------------ */

static void test_classes(void)
{
	uint32_t sum = 0;
	unsigned int c;

	for (c = 0; c < RD_NCLASSES; c++)
		sum += rd_classes[c].weight;
	ok(sum == RD_WEIGHT_TOTAL, "class weights sum to %u", sum);
	ok(rd_imm(3, 0xabcdef) == 0x03abcdef && rd_imm(255, RD_IMM_K_MASK) ==
	   0xffffffffU, "immediate data is s << 24 | k");
}

/* The closed-form mean against the sum of n P(n) over a class. */
static void test_mean_formula(void)
{
	static const uint32_t max_sizes[] = { 1U << 20, 300, 4096 };
	unsigned int i, c;

	for (i = 0; i < sizeof(max_sizes) / sizeof(max_sizes[0]); i++) {
		for (c = 1; c < RD_NCLASSES; c++) {
			uint32_t lo, hi, n;
			double sum = 0, z, m;

			rd_class_range(c, max_sizes[i], &lo, &hi);
			if (lo == hi || hi - lo > 300000)
				continue;
			z = log((hi + 1.0) / lo);
			for (n = lo; n <= hi; n++)
				sum += n * log((n + 1.0) / n) / z;
			m = rd_class_mean(c, max_sizes[i]);
			ok(fabs(m - sum) < 1e-6 * sum,
			   "max %u class %u [%u, %u]: mean %.6f, sum %.6f",
			   max_sizes[i], c, lo, hi, m, sum);
		}
	}
}

static void test_distribution(uint32_t max_size, uint32_t draws,
			      double tolerance)
{
	uint64_t count[RD_NCLASSES] = { 0 }, total = 0, key;
	bool bounds = true, same = true;
	double mean, want = rd_expected_mean(max_size);
	unsigned int c, cls;
	uint32_t k, n, lo, hi;

	for (k = 0; k < draws; k++) {
		key = rd_msg_key(7, k % 4, (k + 1) % 4, k);
		n = rd_msg_size(key, max_size, &cls);
		rd_class_range(cls, max_size, &lo, &hi);
		bounds &= n >= lo && n <= hi && n <= max_size;
		same &= n == rd_msg_size(key, max_size, NULL);
		count[cls]++;
		total += n;
	}
	ok(bounds, "max %u: every size within its class and max-size",
	   max_size);
	ok(same, "max %u: the same key draws the same size", max_size);
	for (c = 0; c < RD_NCLASSES; c++) {
		double p = (double)rd_classes[c].weight / RD_WEIGHT_TOTAL;
		double got = (double)count[c] / draws;
		double sd = sqrt(p * (1 - p) / draws);

		ok(fabs(got - p) < 5 * sd + 1e-9,
		   "max %u class %u: share %.5f, expected %.5f", max_size, c,
		   got, p);
	}
	mean = (double)total / draws;
	ok(fabs(mean - want) < tolerance * want,
	   "max %u: mean of %u draws %.1f B, expected %.1f B", max_size, draws,
	   mean, want);
}

static void test_pattern(void)
{
	static uint8_t buf[70000], ref[70000];
	struct rd_mismatch m;
	bool all = true, detect = true;
	uint32_t len, off;
	uint64_t key;

	for (len = 0; len <= 80; len++) {
		key = rd_msg_key(1, 0, 1, len);
		memset(buf, 0xa5, sizeof(buf));
		rd_fill(buf, len, key);
		all &= !rd_check(buf, len, key, NULL);
		all &= buf[len] == 0xa5;	/* nothing past the end */
		for (off = 0; off < len; off++) {
			buf[off] ^= 0x40;
			detect &= rd_check(buf, len, key, &m) == 1 &&
				  m.offset == off &&
				  (m.got ^ m.want) == 0x40;
			buf[off] ^= 0x40;
		}
	}
	ok(all, "fill then check agree for 0 to 80 bytes, nothing written "
	   "past the end");
	ok(detect, "a flipped bit is found at its offset, 1 to 80 bytes");

	key = rd_msg_key(1, 2, 3, 4);
	rd_fill(buf, sizeof(buf), key);
	memcpy(ref, buf, sizeof(ref));
	buf[sizeof(buf) - 1] ^= 1;
	ok(rd_check(buf, sizeof(buf), key, &m) == 1 &&
	   m.offset == sizeof(buf) - 1, "the last byte of 70000 is checked");
	ok(rd_check(ref, sizeof(ref), rd_msg_key(1, 2, 3, 5), NULL) == 1,
	   "the next message's pattern differs");
	ok(rd_check(ref, sizeof(ref), rd_msg_key(1, 3, 2, 4), NULL) == 1,
	   "the reverse direction's pattern differs");
	ok(rd_check(ref, sizeof(ref), rd_msg_key(2, 2, 3, 4), NULL) == 1,
	   "another seed's pattern differs");
	ok(rd_check(ref, sizeof(ref), rd_rdma_key(1, 2, 3, 4), NULL) == 1,
	   "transaction 4's pattern differs from message 4's");
	ok(rd_gen_digest(1, 1U << 20) == rd_gen_digest(1, 1U << 20) &&
	   rd_gen_digest(1, 1U << 20) != rd_gen_digest(2, 1U << 20) &&
	   rd_gen_digest(1, 1U << 20) != rd_gen_digest(1, 1U << 19),
	   "the digest follows the seed and the max size");
}

/* ------------------------------------------------------------------ */
/* The rendezvous                                                       */
/* ------------------------------------------------------------------ */

enum role_fault {
	FAULT_NONE,
	FAULT_SEED,		/* says another --seed */
	FAULT_RDMA_OPS,		/* says another --rdma-ops */
	FAULT_RDMA_MAX,		/* has another largest transaction */
	FAULT_FAIL,		/* fails after the table */
	FAULT_HANGUP,		/* exits after the table, saying nothing */
	FAULT_ABSENT,		/* never connects */
	FAULT_HUB_FAIL,		/* the hub fails before the table */
	FAULT_QPS,		/* says another --qps */
	FAULT_PROGRAM,		/* runs wren_rd_stress among RC ones */
};

/* RC QPs per peer in every HELLO: the table must carry their numbers. */
#define QPS		2
#define MAX_P		8

static uint32_t qpn_store[MAX_P][MAX_P * QPS];

/* Participant @i's QP @q to @p, as its HELLO says and the table must. */
static uint32_t rc_qpn(unsigned int i, unsigned int p, unsigned int q)
{
	return p == i ? 0 : 5000 + 100 * i + QPS * p + q;
}

/* Room in @table for every row's QP numbers, from @rows. */
static void table_room(struct rd_peer *table, uint32_t (*rows)[MAX_P * QPS])
{
	unsigned int p;

	for (p = 0; p < MAX_P; p++)
		table[p].qpns = rows[p];
}

static bool qpns_right(const struct rd_peer *table, unsigned int peers)
{
	unsigned int p, d, q;

	for (p = 0; p < peers; p++)
		for (d = 0; d < peers; d++)
			for (q = 0; q < QPS; q++)
				if (table[p].qpns[d * QPS + q] !=
				    rc_qpn(p, d, q))
					return false;
	return true;
}

static struct rd_hello hello_of(unsigned int peers, unsigned int i,
				uint64_t seed)
{
	struct rd_hello h = {
		.peers = peers,
		.index = i,
		.qpn = 100 + i,
		.ipv4 = 0x0a000001 + i,
		.messages = 1000 + i,
		.max_size = 4096,
		.rdma_ops = 10,
		.rdma_max = 4096,
		.win_rkey = 0x300 + i,
		.win_addr = 0x7f0000000000ULL + ((uint64_t)i << 32),
		.seed = seed,
		.digest = rd_gen_digest(seed, 4096),
		.flags = RD_HELLO_RC,
		.qps = QPS,
		.qp_window = 8,
		.qpns = qpn_store[i],
	};
	unsigned int p, q;

	for (p = 0; p < peers; p++)
		for (q = 0; q < QPS; q++)
			qpn_store[i][p * QPS + q] = rc_qpn(i, p, q);
	memset(h.gid, 0, sizeof(h.gid));
	h.gid[10] = h.gid[11] = 0xff;
	h.gid[15] = (uint8_t)(i + 1);
	return h;
}

/* The faults that the hub refuses in the HELLO, aborting everybody. */
static bool refused_hello(enum role_fault fault)
{
	return fault == FAULT_SEED || fault == FAULT_RDMA_OPS ||
	       fault == FAULT_RDMA_MAX || fault == FAULT_QPS ||
	       fault == FAULT_PROGRAM;
}

/*
 * One participant, in a child: exit 0 when everything it saw was right,
 * 10 + n when check n failed; an expected abort exits 0 when its reason
 * contains @expect.
 */
static int participant(unsigned int peers, unsigned int i, uint16_t port,
		       enum role_fault fault, const char *expect)
{
	static uint32_t rows[MAX_P][MAX_P * QPS];
	struct rd_peer table[MAX_P];
	struct rd_hello me = hello_of(peers, i, fault == FAULT_SEED ? 99 : 1);
	struct rd_pair resent[2] = { { (i + 1) % peers, 7 },
				     { (i + 2) % peers, 8 } };
	struct rd_report rep = { 10 * i, 20 * i, i == 2 };
	struct ctl c;
	enum ctl_state st;
	unsigned int p;
	int ret;

	if (fault == FAULT_RDMA_OPS)
		me.rdma_ops = 11;
	if (fault == FAULT_RDMA_MAX)
		me.rdma_max = 2048;
	if (fault == FAULT_QPS) {
		/* Its numbers for 3 QPs per peer: the hub must not read on. */
		me.qps = 3;
	}
	if (fault == FAULT_PROGRAM) {
		me.flags &= ~RD_HELLO_RC;
		me.qps = 0;
	}
	table_room(table, rows);
	alarm(20);
	ret = ctl_open(&c, peers, i, "127.0.0.1", port, 10,
		       rd_now() + 15000000000ULL);
	if (ret) {
		fprintf(stderr, "participant %u: %s\n", i, c.why);
		return 11;
	}
	ret = ctl_start(&c, &me, table);
	if (ret) {
		ret = expect && strstr(c.why, expect) ? 0 : 12;
		if (ret)
			fprintf(stderr, "participant %u: %s\n", i, c.why);
		ctl_close(&c);
		return ret;
	}
	for (p = 0; p < peers; p++) {
		struct rd_hello h = hello_of(peers, p, 1);

		if (table[p].qpn != h.qpn || table[p].ipv4 != h.ipv4 ||
		    table[p].messages != h.messages ||
		    table[p].win_addr != h.win_addr ||
		    table[p].win_rkey != h.win_rkey ||
		    memcmp(table[p].gid, h.gid, sizeof(h.gid)))
			return 13;
	}
	if (!qpns_right(table, peers))
		return 20;
	if (fault == FAULT_FAIL) {
		ctl_fail(&c, "a deliberate failure");
		ctl_close(&c);
		return 0;
	}
	if (fault == FAULT_HANGUP)
		_exit(0);
	usleep(20000 * i);	/* not all at once */
	if (ctl_done(&c, &rep, resent, peers > 2 ? 2 : 1))
		return 14;
	do
		st = ctl_poll(&c, 100);
	while (st == CTL_RUNNING);
	if (st == CTL_ABORTED) {
		ret = expect && strstr(c.why, expect) ? 0 : 15;
		if (ret)
			fprintf(stderr, "participant %u: %s\n", i, c.why);
		ctl_close(&c);
		return ret;
	}
	if (expect)
		return 16;
	for (p = 0; p < peers; p++)
		if (c.reports[p].sent != 10 * p ||
		    c.reports[p].received != 20 * p ||
		    c.reports[p].errors != (p == 2))
			return 17;
	/* The resends addressed to us: from i-1 (k 7) and i-2 (k 8). */
	{
		uint32_t want = peers > 2 ? 2 : 1, j, seen = 0;

		if (c.nto_me != want)
			return 18;
		for (j = 0; j < c.nto_me; j++) {
			const struct rd_pair *q = &c.to_me[j];

			if (q->peer == (i + peers - 1) % peers && q->k == 7)
				seen |= 1;
			else if (peers > 2 &&
				 q->peer == (i + peers - 2) % peers && q->k == 8)
				seen |= 2;
		}
		if (seen != (peers > 2 ? 3U : 1U))
			return 19;
	}
	ctl_close(&c);
	return 0;
}

/*
 * A rendezvous of @peers with participant @who playing @fault; the
 * others expect @expect in their abort reason (NULL: success).  The hub
 * runs in a child too, on the port it reports through a pipe.
 */
static void scenario(const char *name, unsigned int peers, unsigned int who,
		     enum role_fault fault, const char *expect,
		     bool client_first)
{
	pid_t pid[8];
	int st, pfd[2], status[8];
	unsigned int i;
	uint16_t port = 0;
	bool good = true;
	char detail[128] = "";

	if (pipe(pfd))
		abort();
	pid[0] = fork();
	if (pid[0] == 0) {
		/* The hub: listen, tell the port, then play participant 0. */
		struct ctl c;

		close(pfd[0]);
		if (client_first) {
			/* A fixed port, opened late: the others must retry. */
			port = (uint16_t)(20000 + getpid() % 20000);
			if (write(pfd[1], &port, sizeof(port)) != sizeof(port))
				_exit(30);
			sleep(1);
		}
		if (ctl_open(&c, peers, 0, NULL, port, 10,
			     rd_now() + (fault == FAULT_ABSENT ? 2 : 15) *
					1000000000ULL)) {
			fprintf(stderr, "hub: %s\n", c.why);
			_exit(31);
		}
		if (!client_first &&
		    write(pfd[1], &c.port, sizeof(c.port)) != sizeof(c.port))
			_exit(32);
		close(pfd[1]);
		/* Re-enter through the common path with the socket open. */
		{
			static uint32_t rows[MAX_P][MAX_P * QPS];
			struct rd_peer table[MAX_P];
			struct rd_hello me = hello_of(peers, 0, 1);
			struct rd_pair resent[2] = { { 1, 7 },
						     { 2 % peers, 8 } };
			struct rd_report rep = { 0, 0, 0 };
			enum ctl_state s;
			unsigned int p;

			table_room(table, rows);
			alarm(20);
			if (fault == FAULT_HUB_FAIL) {
				usleep(300000);	/* let them queue up */
				ctl_fail(&c, "a deliberate failure");
				ctl_close(&c);
				_exit(0);
			}
			if (ctl_start(&c, &me, table)) {
				if (expect && strstr(c.why, expect))
					_exit(0);
				fprintf(stderr, "hub: %s\n", c.why);
				_exit(33);
			}
			for (p = 0; p < peers; p++) {
				struct rd_hello h = hello_of(peers, p, 1);

				if (table[p].qpn != h.qpn ||
				    table[p].win_addr != h.win_addr ||
				    table[p].win_rkey != h.win_rkey)
					_exit(34);
			}
			if (!qpns_right(table, peers))
				_exit(38);
			if (ctl_done(&c, &rep, resent, peers > 2 ? 2 : 1))
				_exit(35);
			do
				s = ctl_poll(&c, 100);
			while (s == CTL_RUNNING);
			if (s == CTL_ABORTED) {
				if (expect && strstr(c.why, expect))
					_exit(0);
				fprintf(stderr, "hub: %s\n", c.why);
				_exit(36);
			}
			if (expect)
				_exit(37);
			ctl_close(&c);
			_exit(0);
		}
	}
	close(pfd[1]);
	if (read(pfd[0], &port, sizeof(port)) != sizeof(port)) {
		ok(false, "%s: the hub told no port", name);
		waitpid(pid[0], &st, 0);
		return;
	}
	close(pfd[0]);
	for (i = 1; i < peers; i++) {
		if (i == who && fault == FAULT_ABSENT) {
			pid[i] = -1;
			continue;
		}
		pid[i] = fork();
		if (pid[i] == 0)
			_exit(participant(peers, i, port,
					  i == who ? fault : FAULT_NONE,
					  i == who && !refused_hello(fault) ?
					  NULL : expect));
	}
	for (i = 0; i < peers; i++) {
		status[i] = -1;
		if (pid[i] < 0)
			continue;
		if (waitpid(pid[i], &st, 0) == pid[i] && WIFEXITED(st))
			status[i] = WEXITSTATUS(st);
		if (status[i] != 0) {
			good = false;
			snprintf(detail + strlen(detail),
				 sizeof(detail) - strlen(detail),
				 " participant %u exit %d", i, status[i]);
		}
	}
	ok(good, "rendezvous: %s%s", name, detail);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	test_classes();
	test_mean_formula();
	test_distribution(1U << 20, 2000000, 0.04);
	test_distribution(4096, 500000, 0.01);
	test_distribution(300, 500000, 0.01);
	test_distribution(1, 100000, 0.002);
	test_pattern();

	scenario("2 participants", 2, 0, FAULT_NONE, NULL, false);
	scenario("4 participants, resends relayed", 4, 0, FAULT_NONE, NULL,
		 false);
	scenario("the hub opens a second late, the others retry", 3, 0,
		 FAULT_NONE, NULL, true);
	scenario("a --seed mismatch aborts everybody", 3, 2, FAULT_SEED,
		 "--seed", false);
	scenario("an --rdma-ops mismatch aborts everybody", 3, 1,
		 FAULT_RDMA_OPS, "says --rdma-ops 11, the hub 10", false);
	scenario("another largest transaction aborts everybody", 3, 2,
		 FAULT_RDMA_MAX, "writes and reads 2048 bytes at most", false);
	scenario("a --qps mismatch aborts everybody", 3, 2, FAULT_QPS,
		 "says --qps 3, the hub 2", false);
	scenario("wren_rd_stress among wren_rc_stress aborts everybody", 3, 1,
		 FAULT_PROGRAM, "participant 1 runs wren_rd_stress", false);
	scenario("a participant's failure aborts everybody", 3, 1, FAULT_FAIL,
		 "participant 1 failed: a deliberate failure", false);
	scenario("a participant hanging up aborts everybody", 3, 2,
		 FAULT_HANGUP, "participant 2 hung up", false);
	scenario("a participant that never comes times the hub out", 3, 2,
		 FAULT_ABSENT, "2 never did", false);
	scenario("the hub failing before the table tells those waiting", 3, 0,
		 FAULT_HUB_FAIL,
		 "participant 0 (the hub) failed: a deliberate failure", false);

	return tap_done();
}
