// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: arbitrary bytes as a frame from the wire.
 *
 * Each input is cut into frames (a 2-byte length, then that many bytes)
 * and handed to one transport that has messages of its own in flight, so
 * that hostile frames meet live initiator and target state.  The first
 * frame is patched to this adapter's address and port, so the fuzzer
 * reaches past the address check.  AddressSanitizer and UBSan do the
 * judging; the transport must neither crash nor leak.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tp_internal.h"

static uint64_t now = 1000000000ULL;
static uint32_t rnd = 1;

static uint64_t env_now(void *o)
{
	(void)o;
	return now;
}

static void *env_timer_new(void *o, void (*cb)(void *), void *arg)
{
	(void)o;
	(void)cb;
	(void)arg;
	return &now;
}

static void env_timer_nop(void *t)
{
	(void)t;
}

static void env_timer_arm(void *t, uint64_t at)
{
	(void)t;
	(void)at;
}

static void env_kick(void *o)
{
	(void)o;
}

static uint32_t env_random(void *o)
{
	(void)o;
	return rnd = rnd * 1103515245 + 12345;
}

static const struct wren_tp_env_ops env = {
	.now_ns = env_now,
	.timer_new = env_timer_new,
	.timer_arm = env_timer_arm,
	.timer_cancel = env_timer_nop,
	.timer_free = env_timer_nop,
	.tx_kick = env_kick,
	.random = env_random,
};

static int tx_read(void *u, uint64_t c, uint32_t off, void *buf, uint32_t len)
{
	(void)u;
	(void)c;
	memset(buf, off, len);
	return 0;
}

static void tx_done(void *u, uint64_t c, enum wren_tp_status st)
{
	(void)u;
	(void)c;
	(void)st;
}

static enum wren_tp_status rx_begin(void *u, const struct wren_tp_peer *p,
				    const struct wren_tp_msg *m, uint64_t *c)
{
	(void)u;
	(void)p;
	*c = m->len;
	return m->dst_qpn & 1 ? WREN_TP_BAD_DEST_QP : WREN_TP_OK;
}

static int rx_write(void *u, uint64_t c, uint32_t off, const void *b,
		    uint32_t len)
{
	(void)u;
	(void)b;
	/* The transport promises to stay inside the message. */
	if (off > c || len > c - off)
		abort();
	return off == 77 ? -1 : 0;
}

static void rx_done(void *u, uint64_t c, enum wren_tp_status st)
{
	(void)u;
	(void)c;
	(void)st;
}

static const struct wren_tp_ulp_ops ulp = {
	.tx_read = tx_read, .tx_done = tx_done, .rx_begin = rx_begin,
	.rx_write = rx_write, .rx_done = rx_done,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wren_tp_config cfg;
	struct wren_tp_dest d = { .ipv4 = htobe32(0xc6120002) };
	struct wren_tp_msg m = { .len = 9000, .opcode = WREN_WIRE_OP_SEND };
	static uint8_t out[16384], in[16384];
	struct wren_tp *tp;
	bool first = true;

	wren_tp_config_defaults(&cfg);
	cfg.ipv4 = htobe32(0xc6120001);
	cfg.window = 64;
	cfg.max_ctx = 4;
	cfg.max_rx_ctx = 4;
	cfg.max_msgs = 16;
	cfg.mtu = 1024;
	cfg.grant_threshold = 4096;
	tp = wren_tp_create(&cfg, &env, NULL, &ulp, NULL);
	if (!tp)
		abort();
	wren_tp_send(tp, &d, &m, 1);
	m.len = 10;
	wren_tp_send(tp, &d, &m, 2);
	while (wren_tp_tx_pull(tp, out, sizeof(out)))
		;
	while (size >= 2) {
		size_t len = (size_t)(data[0] << 8 | data[1]) % sizeof(in);

		data += 2;
		size -= 2;
		if (len > size)
			len = size;
		memcpy(in, data, len);
		if (first && len >= WREN_WIRE_L2L4_LEN) {
			/* To us, on our port, with a valid IPv4 checksum. */
			uint8_t *ip = in + WREN_WIRE_ETH_LEN;
			uint32_t sum = 0;

			wren_wire_put32(ip + 16, 0xc6120001);
			wren_wire_put16(ip + 22, WREN_WIRE_UDP_PORT);
			wren_wire_put16(ip + 10, 0);
			for (int i = 0; i < 20; i += 2)
				sum += wren_wire_get16(ip + i);
			while (sum >> 16)
				sum = (sum & 0xffff) + (sum >> 16);
			wren_wire_put16(ip + 10, ~sum);
			first = false;
		}
		wren_tp_rx(tp, in, len);
		now += 1000;
		while (wren_tp_tx_pull(tp, out, sizeof(out)))
			;
		data += len;
		size -= len;
	}
	wren_tp_destroy(tp);
	return 0;
}
