// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * wren_capture PCAP COUNTS BAD: a capture of every Wren packet type, made
 * by the transport itself, for the dissector's test
 * (tools/wireshark/tests/dissector_test.py), and one of malformed packets.
 *
 * Three transports of device/transport talk over the unit tests' simulated
 * wire (device/transport/tests/tp_net.c) with loss, duplication, trimming
 * and ECN marking, through every way of opening, using and closing a
 * context, every opcode and every refusal.  Every frame that leaves the
 * wire is written to PCAP (nanosecond pcap, link type Ethernet), as the
 * fabric's --pcap writes what leaves it.  COUNTS gets what this program
 * counted in those frames, read with the C header's own accessors, one
 * "NAME N" per line, for the test to hold tshark's counts against.
 *
 * The program also checks its own counting against the transports'
 * counters (frames put on the wire, before the loss), and exits 1 if they
 * disagree or a packet type is missing from the capture.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wren_compat.h"
#include "linux/wren/wren_wire.h"
#include "tp_net.h"

#define MS			1000000ULL
#define NODES			3

static FILE *pcap;

/* Of the frames written to the capture. */
static unsigned long cap_type[16], cap_frames, cap_retx, cap_trimmed,
	cap_ce, cap_rdma, cap_sack_words;
/* Of the frames the transports put on the wire, lost ones included. */
static unsigned long sent_type[16], sent_retx;

static void put_u32(uint32_t v)
{
	fwrite(&v, 4, 1, pcap);
}

static void pcap_open(const char *path)
{
	pcap = fopen(path, "wb");
	if (!pcap) {
		perror(path);
		exit(2);
	}
	/*
	 * The classic pcap header in host order, nanosecond magic: the
	 * simulated clock has nanoseconds and the readers swap as needed.
	 */
	put_u32(0xa1b23c4d);
	fwrite("\x02\x00\x04\x00", 4, 1, pcap);	/* version 2.4, LE */
	put_u32(0);				/* thiszone */
	put_u32(0);				/* sigfigs */
	put_u32(65535);				/* snaplen */
	put_u32(1);				/* LINKTYPE_ETHERNET */
}

/* Write one frame as it leaves the wire at @now, and count it. */
static void capture(uint64_t now, const uint8_t *f, uint32_t len)
{
	uint8_t type = wren_wire_type(f, len);
	const uint8_t *w = f + WREN_WIRE_HDR;

	put_u32((uint32_t)(now / 1000000000ULL));
	put_u32((uint32_t)(now % 1000000000ULL));
	put_u32(len);
	put_u32(len);
	fwrite(f, 1, len, pcap);

	cap_frames++;
	cap_type[type & 15]++;
	if (type == WREN_WIRE_DATA && w[1] & WREN_WIRE_F_RETX)
		cap_retx++;
	if (type == WREN_WIRE_DATA && w[1] & WREN_WIRE_F_TRIMMED)
		cap_trimmed++;
	if ((f[WREN_WIRE_IP_TOS] & WREN_WIRE_ECN_MASK) == WREN_WIRE_ECN_CE)
		cap_ce++;
	if (type == WREN_WIRE_DATA &&
	    wren_wire_op_has_rdma(w[sizeof(struct wren_wire_hdr) +
				    offsetof(struct wren_wire_data, opcode)]) &&
	    len >= WREN_WIRE_DATA_HDRS_LEN + sizeof(struct wren_wire_rdma))
		cap_rdma++;
	if (type == WREN_WIRE_ACK)
		cap_sack_words += w[sizeof(struct wren_wire_hdr) +
				    offsetof(struct wren_wire_ack, bitmap_words)];
}

/*
 * A frame of @type with a UDP payload of @wlen bytes (zeroes but for the
 * version and type), for the malformed packets the dissector must flag.
 */
static uint32_t bad_frame(uint8_t *f, uint8_t ver, uint8_t type,
			  uint32_t wlen)
{
	struct wren_wire_l2l4 h = {
		.dst_mac = { 2, 0, 0, 0, 0, 2 }, .src_mac = { 2, 0, 0, 0, 0, 1 },
		.saddr = 0xc6120001, .daddr = 0xc6120002, .sport = 0xc000,
		.dport = WREN_WIRE_UDP_PORT, .proto = WREN_WIRE_IPPROTO_UDP,
	};
	uint32_t len = WREN_WIRE_L2L4_LEN + wlen;

	memset(f, 0, len);
	wren_wire_put_l2l4(f, len, &h);
	f[WREN_WIRE_HDR] = ver << 4 | type;
	return len;
}

static unsigned int nbad;

static void put_bad(const uint8_t *f, uint32_t len)
{
	capture(0, f, len);
	nbad++;
}

/*
 * BAD: one malformed packet per rule the dissector checks, each of which
 * must raise an error; their number goes to COUNTS as BAD.
 */
static unsigned int write_bad(const char *path)
{
	const uint32_t H = sizeof(struct wren_wire_hdr);
	const uint32_t D = H + sizeof(struct wren_wire_data);
	const uint32_t A = H + sizeof(struct wren_wire_ack);
	uint8_t f[256], *w = f + WREN_WIRE_HDR;
	uint32_t len;

	pcap_open(path);
	/* Shorter than the transport header. */
	put_bad(f, bad_frame(f, WREN_WIRE_VERSION, WREN_WIRE_DATA, 20));
	/* Version 2. */
	put_bad(f, bad_frame(f, 2, WREN_WIRE_CLOSE, H));
	/* No such type. */
	put_bad(f, bad_frame(f, WREN_WIRE_VERSION, 9, H));
	/* A type of fixed length, with another. */
	put_bad(f, bad_frame(f, WREN_WIRE_VERSION, WREN_WIRE_NACK, H + 4));
	put_bad(f, bad_frame(f, WREN_WIRE_VERSION, WREN_WIRE_CLOSE, H + 8));
	/* DATA shorter than its message header. */
	put_bad(f, bad_frame(f, WREN_WIRE_VERSION, WREN_WIRE_DATA, D - 1));
	/* A WRITE without its RDMA header, not trimmed. */
	len = bad_frame(f, WREN_WIRE_VERSION, WREN_WIRE_DATA, D);
	w[H + offsetof(struct wren_wire_data, opcode)] = WREN_WIRE_OP_WRITE;
	put_bad(f, len);
	/* An unknown opcode. */
	len = bad_frame(f, WREN_WIRE_VERSION, WREN_WIRE_DATA, D);
	w[H + offsetof(struct wren_wire_data, opcode)] = 42;
	put_bad(f, len);
	/* A payload beyond msg_len (0). */
	len = bad_frame(f, WREN_WIRE_VERSION, WREN_WIRE_DATA, D + 8);
	w[H + offsetof(struct wren_wire_data, opcode)] = WREN_WIRE_OP_SEND;
	put_bad(f, len);
	/* An ACK whose length is not its bitmap's, and one of 9 words. */
	len = bad_frame(f, WREN_WIRE_VERSION, WREN_WIRE_ACK, A + 8);
	w[H + offsetof(struct wren_wire_ack, bitmap_words)] = 2;
	put_bad(f, len);
	len = bad_frame(f, WREN_WIRE_VERSION, WREN_WIRE_ACK, A + 72);
	w[H + offsetof(struct wren_wire_ack, bitmap_words)] = 9;
	put_bad(f, len);
	/* A NACK of no reason; a CONNECT of no mode and window 0. */
	put_bad(f, bad_frame(f, WREN_WIRE_VERSION, WREN_WIRE_NACK,
			     H + sizeof(struct wren_wire_nack)));
	put_bad(f, bad_frame(f, WREN_WIRE_VERSION, WREN_WIRE_CONNECT,
			     H + sizeof(struct wren_wire_connect)));
	fclose(pcap);
	return nbad;
}

static bool calm;		/* the switch passes everything */
static const unsigned int loss_pct = 3;

/*
 * The lossy switch: drop 3 % of everything, duplicate 1 %, trim 2 % of
 * the DATA packets with payload (not one-sided ones: the trimmed frame
 * must still parse at the target), mark 5 % of the rest CE.
 */
static enum net_verdict lossy(struct net *net, struct net_filter_ctx *f)
{
	uint32_t r = net_rand(net) % 100;
	uint8_t *fr = (uint8_t *)f->frame;	/* emit()'s own buffer */
	const uint8_t *x = f->frame + WREN_WIRE_HDR +
			   sizeof(struct wren_wire_hdr);
	static uint8_t cut[NET_MAX_FRAME];

	sent_type[f->type & 15]++;
	if (f->type == WREN_WIRE_DATA && f->flags & WREN_WIRE_F_RETX)
		sent_retx++;
	if (calm)
		r = 99;
	if (r < loss_pct)
		return NET_DROP;
	if (r < loss_pct + 1) {
		capture(net->now, f->frame, f->len);
		capture(net->now, f->frame, f->len);
		return NET_DUP;
	}
	if (f->type == WREN_WIRE_DATA && r < loss_pct + 3 &&
	    f->len > WREN_WIRE_DATA_HDRS_LEN &&
	    !wren_wire_op_has_rdma(x[offsetof(struct wren_wire_data, opcode)])) {
		memcpy(cut, f->frame, f->len);
		capture(net->now, cut, wren_wire_trim(cut, f->len));
		return NET_TRIM;
	}
	if (f->type == WREN_WIRE_DATA && r < loss_pct + 8)
		wren_wire_mark_ce(fr);
	capture(net->now, f->frame, f->len);
	return NET_PASS;
}

static int failures;

static void expect(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "wren_capture: %s\n", what);
		failures++;
	}
}

/* Add @node's counters to @sum: before a restart loses them, and at the end. */
static void add_stats(struct net *net, int node, struct wren_tp_stats *sum)
{
	struct wren_tp_stats st;

	net_stats(net, node, &st);
	sum->tx_pkts += st.tx_pkts;
	sum->tx_data_pkts += st.tx_data_pkts;
	sum->tx_acks += st.tx_acks;
	sum->tx_nacks += st.tx_nacks;
	sum->tx_grants += st.tx_grants;
	sum->tx_ud += st.tx_ud;
	sum->retx_timeout += st.retx_timeout;
	sum->retx_fast += st.retx_fast;
	sum->retx_nack += st.retx_nack;
	sum->retx_reconnect += st.retx_reconnect;
}

static void send_op(struct net *net, int from, int to, uint8_t opcode,
		    uint32_t len, uint32_t flags)
{
	struct wren_tp_msg m = {
		.len = len, .opcode = opcode, .flags = flags, .dst_qpn = 1,
		.src_qpn = 2, .qkey = 0x11111111,
	};
	int rc;

	if (wren_wire_op_has_rdma(opcode)) {
		m.raddr = 0x7f0012345000ULL + len;
		m.rkey = 0x1234;
	}
	if (opcode == WREN_WIRE_OP_READ_REQ) {
		m.rlen = len;
		m.len = 0;
	} else if (opcode == WREN_WIRE_OP_CMP_SWP ||
		   opcode == WREN_WIRE_OP_FETCH_ADD) {
		m.len = WREN_WIRE_ATOMIC_LEN;
		m.rlen = WREN_WIRE_ATOMIC_RESP_LEN;
	}
	if (flags & WREN_TP_MSG_CONNECTED)
		m.qkey = 100 + opcode;		/* the stream PSN */
	rc = net_send_msg(net, from, to, &m);
	if (rc < 0)
		fprintf(stderr, "wren_capture: opcode %u refused: %d\n",
			opcode, rc);
}

int main(int argc, char **argv)
{
	static const char *const names[] = {
		[WREN_WIRE_DATA] = "DATA", [WREN_WIRE_ACK] = "ACK",
		[WREN_WIRE_NACK] = "NACK", [WREN_WIRE_CONNECT] = "CONNECT",
		[WREN_WIRE_CONNECT_ACK] = "CONNECT_ACK",
		[WREN_WIRE_CLOSE] = "CLOSE", [WREN_WIRE_GRANT] = "GRANT",
		[WREN_WIRE_UD] = "UD",
	};
	struct wren_tp_config cfg;
	struct wren_tp_stats sum = { 0 };
	static struct net net;
	unsigned int bad;
	FILE *out;

	if (argc != 4) {
		fprintf(stderr, "usage: wren_capture PCAP COUNTS BAD\n");
		return 2;
	}
	bad = write_bad(argv[3]);
	memset(cap_type, 0, sizeof(cap_type));
	cap_frames = cap_retx = cap_trimmed = cap_ce = cap_rdma = 0;
	cap_sack_words = 0;
	pcap_open(argv[1]);

	wren_tp_config_defaults(&cfg);
	cfg.grant_threshold = 16384;	/* some messages ask for grants */
	cfg.grant_chunk = 8192;
	cfg.idle_ns = 2 * MS;		/* contexts close within the run */
	cfg.mpl_ns = 1 * MS;
	net_init(&net, NODES, &cfg, 16);
	if (!net_start(&net)) {
		fprintf(stderr, "wren_capture: the transports refused\n");
		return 2;
	}
	net.filter = lossy;

	/* Optimistic mode (SYN), SENDs of every size class, grants. */
	for (int i = 0; i < 60; i++)
		net_send(&net, 0, 1, net_rand(&net) % 40000, i & 1, 0, 0);
	/* Handshake mode: CONNECT and CONNECT_ACK. */
	for (int i = 0; i < 10; i++)
		net_send(&net, 1, 2, 100 + 1000 * i, false, 0,
			 WREN_TP_MODE_HANDSHAKE);
	/* One-sided operations, an RC QP's stream, a failed read. */
	send_op(&net, 2, 0, WREN_WIRE_OP_WRITE, 9000, 0);
	send_op(&net, 2, 0, WREN_WIRE_OP_WRITE_IMM, 300, 0);
	send_op(&net, 2, 0, WREN_WIRE_OP_READ_REQ, 65536, 0);
	send_op(&net, 0, 2, WREN_WIRE_OP_READ_RESP, 5000, 0);
	send_op(&net, 0, 2, WREN_WIRE_OP_READ_RESP, 0, WREN_TP_MSG_FAILED);
	send_op(&net, 2, 0, WREN_WIRE_OP_CMP_SWP, 0, WREN_TP_MSG_CONNECTED);
	send_op(&net, 2, 0, WREN_WIRE_OP_FETCH_ADD, 0, WREN_TP_MSG_CONNECTED);
	send_op(&net, 2, 0, WREN_WIRE_OP_SEND_INV, 700,
		WREN_TP_MSG_CONNECTED | WREN_TP_MSG_SOLICITED);
	/* Unreliable datagrams. */
	for (int i = 0; i < 8; i++)
		net_send_ud(&net, 1, 0, 64 * i);
	net_run(&net, 200 * MS);

	/* A refusal: NACK STATUS RNR, every packet of the message. */
	net.node[1].refuse = WREN_TP_RNR;
	net_send(&net, 0, 1, 10000, false, 0, 0);
	net_run(&net, 20 * MS);
	net.node[1].refuse = WREN_TP_OK;

	/*
	 * The target forgets its sessions: a context still open at the
	 * initiator gets NACK UNKNOWN_CTX and opens again.
	 */
	calm = true;
	net_send(&net, 2, 1, 3000, false, 0, 0);
	net_run(&net, MS / 10);
	calm = false;
	add_stats(&net, 1, &sum);
	if (!net_restart(&net, 1)) {
		fprintf(stderr, "wren_capture: restart refused\n");
		return 2;
	}
	for (int i = 0; i < 10; i++)
		net_send(&net, 2, 1, 3000, false, 0, 0);
	/* Long enough for every context to go idle and CLOSE. */
	net_run(&net, 200 * MS);
	fclose(pcap);

	for (int i = 0; i < NODES; i++)
		add_stats(&net, i, &sum);
	/*
	 * What the wire saw sent against what the transports say they
	 * sent: a check of this program's counting, not of the dissector.
	 */
	expect(net.frames_sent == sum.tx_pkts, "frames sent != tx_pkts");
	expect(sent_type[WREN_WIRE_DATA] == sum.tx_data_pkts,
	       "DATA != tx_data_pkts");
	expect(sent_type[WREN_WIRE_ACK] == sum.tx_acks, "ACK != tx_acks");
	expect(sent_type[WREN_WIRE_NACK] == sum.tx_nacks, "NACK != tx_nacks");
	expect(sent_retx == sum.retx_timeout + sum.retx_fast + sum.retx_nack,
	       "RETX != retx_timeout + retx_fast + retx_nack");
	expect(sent_type[WREN_WIRE_UD] == sum.tx_ud, "UD != tx_ud");
	expect(sent_type[WREN_WIRE_GRANT] == sum.tx_grants,
	       "GRANT != tx_grants");
	for (int t = WREN_WIRE_DATA; t <= WREN_WIRE_UD; t++)
		if (!cap_type[t]) {
			fprintf(stderr, "wren_capture: no %s in the capture\n",
				names[t]);
			failures++;
		}
	expect(cap_retx && cap_trimmed && cap_ce && cap_rdma &&
	       cap_sack_words, "a feature is missing from the capture");

	out = fopen(argv[2], "w");
	if (!out) {
		perror(argv[2]);
		return 2;
	}
	fprintf(out, "BAD %u\nframes %lu\n", bad, cap_frames);
	for (int t = WREN_WIRE_DATA; t <= WREN_WIRE_UD; t++)
		fprintf(out, "%s %lu\n", names[t], cap_type[t]);
	fprintf(out, "RETX %lu\nTRIMMED %lu\nCE %lu\nRDMA %lu\n"
		"SACK_WORDS %lu\n", cap_retx, cap_trimmed, cap_ce, cap_rdma,
		cap_sack_words);
	fclose(out);
	fprintf(stderr, "# wren_capture: %lu frames sent, %lu captured; "
		"transports: tx_data %llu retx %llu (timeout %llu fast %llu "
		"nack %llu), acks %llu, nacks %llu; wire: data %lu retx %lu "
		"acks %lu nacks %lu\n",
		net.frames_sent, cap_frames,
		(unsigned long long)sum.tx_data_pkts,
		(unsigned long long)(sum.retx_timeout + sum.retx_fast +
				     sum.retx_nack),
		(unsigned long long)sum.retx_timeout,
		(unsigned long long)sum.retx_fast,
		(unsigned long long)sum.retx_nack,
		(unsigned long long)sum.tx_acks,
		(unsigned long long)sum.tx_nacks,
		sent_type[WREN_WIRE_DATA], sent_retx, sent_type[WREN_WIRE_ACK],
		sent_type[WREN_WIRE_NACK]);
	net_fini(&net);
	return failures ? 1 : 0;
}
