// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fabric: the event loop.
 *
 * One thread, one ppoll(): it waits for a datagram on any port or for
 * the release time of the earliest frame in flight, whichever comes
 * first, so an idle fabric sleeps and a held frame leaves on time (the
 * timer slack is lowered to a microsecond for that).  Signals are
 * blocked except inside ppoll(), so a SIGTERM or SIGUSR1 is seen at once
 * and never in the middle of a frame.
 *
 * See fabric --help and README.rst for what it does.
 */
#define _GNU_SOURCE		/* ppoll() */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "fabric.h"

/* Datagrams read from one port before the others get a turn. */
#define RX_BUDGET	64
/* Frames released before new arrivals get a look. */
#define TX_BUDGET	1024

static volatile sig_atomic_t got_stop, got_usr1;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		got_usr1 = 1;
	else
		got_stop = 1;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static void hold(struct fabric *fab, const uint8_t *f, size_t len,
		 uint16_t egress, uint32_t pidx, uint64_t due)
{
	struct path *p = &fab->paths[pidx];
	struct held *h = NULL;

	if (fab->heap.n < fab->cfg.queue_frames &&
	    fab->heap.bytes + len <= fab->cfg.queue_bytes)
		h = malloc(sizeof(*h) + len);
	if (!h) {
		p->st.drop_overflow++;
		return;
	}
	h->due_ns = due;
	h->seq = fab->seq++;
	h->port = egress;
	h->path = (uint16_t)pidx;
	h->len = (uint32_t)len;
	memcpy(h->data, f, len);
	heap_push(&fab->heap, h);
	p->st.held++;
	if (fab->heap.n > fab->held_max)
		fab->held_max = fab->heap.n;
}

/* One copy of a frame onto path @pidx towards port @egress. */
static void to_path(struct fabric *fab, const uint8_t *f, size_t len,
		    uint16_t egress, uint32_t pidx, uint64_t now)
{
	struct path *p = &fab->paths[pidx];
	struct verdict v;

	p->st.in_frames++;
	p->st.in_bytes += len;
	impair_decide(p, pidx, &fab->cfg, now - fab->start_ns, &v);
	switch (v.drop) {
	case DROP_BLACKHOLE:
		p->st.drop_blackhole++;
		return;
	case DROP_LOSS:
		p->st.drop_loss++;
		return;
	case DROP_BURST:
		p->st.drop_burst++;
		return;
	case DROP_NONE:
		break;
	}
	if (v.reordered)
		p->st.reordered++;
	hold(fab, f, len, egress, pidx, now + v.delay_ns);
	if (v.dup) {
		p->st.duplicated++;
		hold(fab, f, len, egress, pidx, now + v.delay_ns);
	}
}

static void ingress(struct fabric *fab, uint16_t in, const uint8_t *f,
		    size_t len, uint64_t now)
{
	struct port *pt = &fab->ports[in];
	struct frame_info fi;
	uint32_t pidx;
	uint16_t e;
	int owner;

	pt->st.rx_frames++;
	pt->st.rx_bytes += len;
	pcap_write(fab->pcap_in, f, len);
	frame_parse(f, len, &fi);
	if (fi.wren) {
		pt->st.rx_wren++;
		pt->st.rx_wren_type[fi.wren_type & 15]++;
		pt->st.rx_wren_retx += fi.wren_retx;
	}
	if (fi.ipv4 && fi.sip_unicast)
		fwd_learn(&fab->fwd, fi.sip, in);
	pidx = frame_path(&fi, f, len, fab->cfg.salt, fab->cfg.npaths);

	if (!fi.flood) {
		owner = fwd_lookup(&fab->fwd, fi.dip);
		if (owner == in) {
			/* Never back out of the port it came in by. */
			pt->st.unrouted++;
			return;
		}
		if (owner >= 0) {
			to_path(fab, f, len, (uint16_t)owner, pidx, now);
			return;
		}
	}
	pt->st.flooded++;
	for (e = 0; e < fab->nports; e++)
		if (e != in)
			to_path(fab, f, len, e, pidx, now);
}

/* Send what is due; true if more is due than one turn may send. */
static bool release_due(struct fabric *fab, uint64_t now)
{
	struct held *h;
	int n = 0;

	while ((h = heap_top(&fab->heap)) && h->due_ns <= now) {
		struct path_stats *s = &fab->paths[h->path].st;

		if (n++ == TX_BUDGET)
			return true;
		heap_pop(&fab->heap);
		s->held--;
		s->out_frames++;
		s->out_bytes += h->len;
		pcap_write(fab->pcap_out, h->data, h->len);
		port_send(&fab->ports[h->port], h->data, h->len);
		free(h);
	}
	return false;
}

static void on_usr1(struct fabric *fab)
{
	stats_write(fab, mono_ns());
	pcap_flush(fab->pcap_out);
	pcap_flush(fab->pcap_in);
}

static int run(struct fabric *fab, const sigset_t *waitmask)
{
	static uint8_t buf[FAB_MAX_FRAME];
	struct pollfd pfd[FAB_MAX_PORTS];
	uint32_t i;

	for (i = 0; i < fab->nports; i++) {
		pfd[i].fd = fab->ports[i].fd;
		pfd[i].events = POLLIN;
	}
	while (!got_stop) {
		struct timespec ts, *tsp = NULL;
		struct held *top;
		uint64_t now;
		int n;

		if (got_usr1) {
			got_usr1 = 0;
			on_usr1(fab);
		}
		if (release_due(fab, mono_ns())) {
			ts.tv_sec = ts.tv_nsec = 0;
			tsp = &ts;
		} else if ((top = heap_top(&fab->heap))) {
			now = mono_ns();
			now = top->due_ns > now ? top->due_ns - now : 0;
			ts.tv_sec = (time_t)(now / NSEC_PER_SEC);
			ts.tv_nsec = (long)(now % NSEC_PER_SEC);
			tsp = &ts;
		}
		n = ppoll(pfd, fab->nports, tsp, waitmask);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("fabric: ppoll");
			return -1;
		}
		for (i = 0; n > 0 && i < fab->nports; i++) {
			int k;

			if (!(pfd[i].revents & POLLIN))
				continue;
			for (k = 0; k < RX_BUDGET; k++) {
				ssize_t len = port_recv(&fab->ports[i], buf,
							sizeof(buf));

				if (len < 0)
					break;
				ingress(fab, (uint16_t)i, buf, (size_t)len,
					mono_ns());
			}
		}
	}
	return 0;
}

static int setup(struct fabric *fab)
{
	const struct fab_cfg *cfg = &fab->cfg;
	uint32_t i, j;

	/* Ports in ID order: flooding and the stats list them so. */
	for (i = 0; i < cfg->nports; i++) {
		uint32_t at = 0;

		for (j = 0; j < cfg->nports; j++)
			at += cfg->ports[j].id < cfg->ports[i].id;
		if (port_open(&fab->ports[at], &cfg->ports[i], cfg->addr))
			return -1;
	}
	fab->nports = cfg->nports;
	for (i = 0; i < cfg->nroutes; i++) {
		for (j = 0; fab->ports[j].id != cfg->routes[i].port_id; j++)
			;
		if (fwd_add_static(&fab->fwd, cfg->routes[i].ip, (uint16_t)j))
			return -1;
	}
	for (i = 0; i < cfg->npaths; i++)
		impair_init(&fab->paths[i], &cfg->path[i], cfg->seed, i);
	if (heap_init(&fab->heap, cfg->queue_frames)) {
		fprintf(stderr, "fabric: out of memory\n");
		return -1;
	}
	if (cfg->pcap_out && !(fab->pcap_out = pcap_open(cfg->pcap_out))) {
		perror(cfg->pcap_out);
		return -1;
	}
	if (cfg->pcap_in && !(fab->pcap_in = pcap_open(cfg->pcap_in))) {
		perror(cfg->pcap_in);
		return -1;
	}
	return 0;
}

static void banner(const struct fabric *fab)
{
	uint32_t i;

	for (i = 0; i < fab->nports; i++) {
		const struct port *pt = &fab->ports[i];

		if (pt->peer_known)
			fprintf(stderr, "fabric: port %u: listening on %u, "
				"guest at %u\n", pt->id,
				ntohs(pt->local.sin_port),
				ntohs(pt->peer.sin_port));
		else
			fprintf(stderr, "fabric: port %u: listening on %u, "
				"guest learnt from its first frame\n", pt->id,
				ntohs(pt->local.sin_port));
	}
	for (i = 0; i < fab->cfg.npaths; i++) {
		const struct path_cfg *c = &fab->paths[i].c;

		fprintf(stderr, "fabric: path %u: delay %.3f us loss %g "
			"burst %g,%g,%g dup %g reorder %g,%.3f us\n", i,
			c->delay_ns / 1e3, c->loss, c->ge_enter, c->ge_exit,
			c->ge_loss, c->dup, c->reorder, c->reorder_ns / 1e3);
	}
}

int main(int argc, char **argv)
{
	static struct fabric fab;
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block, waitmask;
	int ret;

	opts_parse(&fab.cfg, argc, argv);

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &waitmask);
	sigdelset(&waitmask, SIGINT);
	sigdelset(&waitmask, SIGTERM);
	sigdelset(&waitmask, SIGUSR1);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	/* A held frame should leave within a microsecond of its time. */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);

	if (setup(&fab))
		return 1;
	fab.start_ns = mono_ns();
	if (fab.cfg.ports_file &&
	    ports_file_write(fab.cfg.ports_file, fab.ports, fab.nports)) {
		perror(fab.cfg.ports_file);
		return 1;
	}
	if (!fab.cfg.quiet)
		banner(&fab);

	ret = run(&fab, &waitmask);

	stats_write(&fab, mono_ns());
	stats_summary(&fab);
	pcap_close(fab.pcap_out);
	pcap_close(fab.pcap_in);
	heap_free(&fab.heap);
	return ret ? 1 : 0;
}
