// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The counters, as one JSON document (--stats, at exit and on SIGUSR1)
 * and one line per path on stderr at exit.  Every port and every path is
 * one line of the document, so grep and sed can read it as well as a
 * JSON parser.  The file is written aside and renamed: a reader never
 * sees half of it.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fabric.h"
#include "wren_compat.h"
#include <linux/wren/wren_wire.h>

/* The keys of port_stats.rx_wren_type, after enum wren_wire_type. */
static const char *const wren_type_key[] = {
	[WREN_WIRE_DATA] = "rx_wren_data",
	[WREN_WIRE_ACK] = "rx_wren_ack",
	[WREN_WIRE_NACK] = "rx_wren_nack",
	[WREN_WIRE_CONNECT] = "rx_wren_connect",
	[WREN_WIRE_CONNECT_ACK] = "rx_wren_connect_ack",
	[WREN_WIRE_CLOSE] = "rx_wren_close",
	[WREN_WIRE_GRANT] = "rx_wren_grant",
	[WREN_WIRE_UD] = "rx_wren_ud",
};

static void port_json(FILE *f, const struct port *pt, bool last)
{
	const struct port_stats *s = &pt->st;
	uint64_t other = s->rx_wren;
	size_t t;

	fprintf(f, "    {\"id\": %u, \"listen\": %u, \"peer\": %u, "
		"\"rx_frames\": %llu, \"rx_bytes\": %llu, "
		"\"tx_frames\": %llu, \"tx_bytes\": %llu, "
		"\"rx_wren\": %llu, \"flooded\": %llu, \"unrouted\": %llu, "
		"\"rx_oversize\": %llu, \"rx_sock_drops\": %llu, "
		"\"tx_errors\": %llu, \"tx_no_peer\": %llu, ",
		pt->id, ntohs(pt->local.sin_port),
		pt->peer_known ? ntohs(pt->peer.sin_port) : 0,
		(unsigned long long)s->rx_frames,
		(unsigned long long)s->rx_bytes,
		(unsigned long long)s->tx_frames,
		(unsigned long long)s->tx_bytes,
		(unsigned long long)s->rx_wren,
		(unsigned long long)s->flooded,
		(unsigned long long)s->unrouted,
		(unsigned long long)s->rx_oversize,
		(unsigned long long)port_sock_drops(pt),
		(unsigned long long)s->tx_errors,
		(unsigned long long)s->tx_no_peer);
	for (t = 1; t < sizeof(wren_type_key) / sizeof(*wren_type_key); t++) {
		fprintf(f, "\"%s\": %llu, ", wren_type_key[t],
			(unsigned long long)s->rx_wren_type[t]);
		other -= s->rx_wren_type[t];
	}
	/* Not version 1, or a type the header does not define. */
	fprintf(f, "\"rx_wren_other\": %llu, \"rx_wren_retx\": %llu}%s\n",
		(unsigned long long)other,
		(unsigned long long)s->rx_wren_retx, last ? "" : ",");
}

static void path_json(FILE *f, const struct path *p, uint32_t i, bool last)
{
	const struct path_stats *s = &p->st;
	const struct path_cfg *c = &p->c;

	fprintf(f, "    {\"path\": %u, \"delay_us\": %.3f, \"loss\": %g, "
		"\"burst_loss\": [%g, %g, %g], \"dup\": %g, "
		"\"reorder\": [%g, %.3f], "
		"\"in_frames\": %llu, \"in_bytes\": %llu, "
		"\"out_frames\": %llu, \"out_bytes\": %llu, "
		"\"drop_loss\": %llu, \"drop_burst\": %llu, "
		"\"drop_blackhole\": %llu, \"drop_overflow\": %llu, "
		"\"duplicated\": %llu, \"reordered\": %llu, "
		"\"held\": %llu}%s\n",
		i, c->delay_ns / 1e3, c->loss, c->ge_enter, c->ge_exit,
		c->ge_loss, c->dup, c->reorder, c->reorder_ns / 1e3,
		(unsigned long long)s->in_frames,
		(unsigned long long)s->in_bytes,
		(unsigned long long)s->out_frames,
		(unsigned long long)s->out_bytes,
		(unsigned long long)s->drop_loss,
		(unsigned long long)s->drop_burst,
		(unsigned long long)s->drop_blackhole,
		(unsigned long long)s->drop_overflow,
		(unsigned long long)s->duplicated,
		(unsigned long long)s->reordered,
		(unsigned long long)s->held, last ? "" : ",");
}

static void routes_json(FILE *f, const struct fabric *fab)
{
	const struct fwd_table *t = &fab->fwd;
	char ip[INET_ADDRSTRLEN];
	bool first = true;
	uint32_t i;

	fprintf(f, "  \"routes\": [");
	for (i = 0; i < FWD_SLOTS; i++) {
		const struct fwd_entry *e = &t->slot[i];
		struct in_addr a = { .s_addr = htonl(e->ip) };

		if (!e->used)
			continue;
		fprintf(f, "%s\n    {\"ip\": \"%s\", \"port\": %u, "
			"\"static\": %s}", first ? "" : ",",
			inet_ntop(AF_INET, &a, ip, sizeof(ip)),
			fab->ports[e->port].id, e->is_static ? "true" : "false");
		first = false;
	}
	fprintf(f, "%s],\n", first ? "" : "\n  ");
}

int stats_write(const struct fabric *fab, uint64_t now_ns)
{
	const struct fab_cfg *cfg = &fab->cfg;
	char tmp[4096];
	uint32_t i;
	FILE *f;

	if (!cfg->stats)
		return 0;
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", cfg->stats) >=
	    (int)sizeof(tmp))
		return -1;
	f = fopen(tmp, "w");
	if (!f) {
		perror("fabric: stats");
		return -1;
	}
	fprintf(f, "{\n  \"seed\": %llu,\n  \"ecmp_salt\": %llu,\n"
		"  \"uptime_s\": %.6f,\n  \"npaths\": %u,\n",
		(unsigned long long)cfg->seed, (unsigned long long)cfg->salt,
		(now_ns - fab->start_ns) / 1e9, cfg->npaths);
	fprintf(f, "  \"queue\": {\"held\": %u, \"held_bytes\": %llu, "
		"\"held_max\": %u, \"limit_frames\": %u, "
		"\"limit_bytes\": %llu},\n",
		fab->heap.n, (unsigned long long)fab->heap.bytes,
		fab->held_max, cfg->queue_frames,
		(unsigned long long)cfg->queue_bytes);
	fprintf(f, "  \"ports\": [\n");
	for (i = 0; i < fab->nports; i++)
		port_json(f, &fab->ports[i], i + 1 == fab->nports);
	fprintf(f, "  ],\n  \"paths\": [\n");
	for (i = 0; i < cfg->npaths; i++)
		path_json(f, &fab->paths[i], i, i + 1 == cfg->npaths);
	fprintf(f, "  ],\n");
	routes_json(f, fab);
	fprintf(f, "  \"learnt\": %llu,\n  \"learn_table_full\": %llu\n}\n",
		(unsigned long long)fab->fwd.learnt,
		(unsigned long long)fab->fwd.full);
	if (fclose(f) || rename(tmp, cfg->stats)) {
		perror("fabric: stats");
		unlink(tmp);
		return -1;
	}
	return 0;
}

void stats_summary(const struct fabric *fab)
{
	uint32_t i;

	for (i = 0; i < fab->cfg.npaths; i++) {
		const struct path_stats *s = &fab->paths[i].st;

		fprintf(stderr, "fabric: path %u: in %llu out %llu "
			"drop loss %llu burst %llu blackhole %llu overflow %llu "
			"dup %llu reorder %llu held %llu\n", i,
			(unsigned long long)s->in_frames,
			(unsigned long long)s->out_frames,
			(unsigned long long)s->drop_loss,
			(unsigned long long)s->drop_burst,
			(unsigned long long)s->drop_blackhole,
			(unsigned long long)s->drop_overflow,
			(unsigned long long)s->duplicated,
			(unsigned long long)s->reordered,
			(unsigned long long)s->held);
	}
}
