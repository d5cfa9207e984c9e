/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fabric: a user-space switch between the guests' wire ports.
 *
 * Each guest's adapter is a QEMU "dgram" netdev: one Ethernet frame per
 * UDP datagram.  The fabric owns one UDP socket per guest port, forwards
 * each frame by its destination IPv4 address, spreads the frames over K
 * paths by a hash of the 5-tuple and holds each for its path's delay,
 * after the path's impairments have had their say.
 *
 * The structures every file shares are here; each .c file does one job
 * (opts: the command line, frame: parsing, fwd: the address table,
 * impair: the per-path decisions, heap: frames in flight, port: sockets,
 * pcap and stats: output, main: the event loop).
 */
#ifndef FABRIC_H
#define FABRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <netinet/in.h>

#include "rng.h"

#define FAB_MAX_PORTS		64
#define FAB_MAX_PATHS		64
#define FAB_MAX_BLACKHOLES	64
#define FAB_MAX_ROUTES		1024
/* The largest UDP payload over IPv4: no guest frame is longer. */
#define FAB_MAX_FRAME		65507
#define FAB_FOREVER		UINT64_MAX

#define NSEC_PER_USEC		1000ULL
#define NSEC_PER_SEC		1000000000ULL

/* What a path does to the frames that take it. */
struct path_cfg {
	uint64_t delay_ns;	/* one way */
	double loss;		/* iid */
	double ge_enter;	/* Gilbert-Elliott: good -> bad per frame */
	double ge_exit;		/* bad -> good per frame */
	double ge_loss;		/* loss probability in the bad state */
	double dup;
	double reorder;		/* fraction of frames held back ... */
	uint64_t reorder_ns;	/* ... by this much more */
};

/* Fields of struct path_cfg that --path N:... set; they win over globals. */
enum {
	PCF_DELAY	= 1 << 0,
	PCF_LOSS	= 1 << 1,
	PCF_BURST	= 1 << 2,
	PCF_DUP		= 1 << 3,
	PCF_REORDER	= 1 << 4,
};

/* A path that swallows every frame entering it in [from, until). */
struct blackhole {
	uint32_t path;
	uint64_t from_ns;	/* since the fabric started */
	uint64_t until_ns;	/* FAB_FOREVER: never comes back */
};

struct port_cfg {
	uint32_t id;
	uint16_t listen_port;	/* 0: any free port (see --ports-file) */
	uint16_t peer_port;	/* 0: learnt from the first datagram */
};

struct route_cfg {
	uint32_t ip;		/* host byte order */
	uint32_t port_id;
};

struct fab_cfg {
	struct port_cfg ports[FAB_MAX_PORTS];
	uint32_t nports;
	struct in_addr addr;	/* of every socket, ours and the guests' */

	uint32_t npaths;
	struct path_cfg path[FAB_MAX_PATHS];	/* resolved, per path */

	struct blackhole bh[FAB_MAX_BLACKHOLES];
	uint32_t nbh;
	struct route_cfg routes[FAB_MAX_ROUTES];
	uint32_t nroutes;

	uint64_t seed;
	uint64_t salt;		/* of the ECMP hash */
	uint32_t queue_frames;	/* frames in flight at most ... */
	uint64_t queue_bytes;	/* ... and bytes */

	const char *pcap_out;
	const char *pcap_in;
	const char *stats;
	const char *ports_file;
	bool quiet;
};

/* opts.c */
int opts_parse(struct fab_cfg *cfg, int argc, char **argv);

/* frame.c: what forwarding and ECMP need to know of a frame. */
struct frame_info {
	bool ipv4;		/* an IPv4 header we could read */
	bool flood;		/* broadcast, multicast, ARP, not IPv4, short */
	bool wren;		/* UDP to WREN_WIRE_UDP_PORT */
	uint8_t wren_type;	/* its enum wren_wire_type; 0: no v1 header */
	bool wren_retx;		/* a DATA packet with WREN_WIRE_F_RETX */
	bool sip_unicast;	/* a source address worth learning */
	uint32_t sip, dip;	/* host byte order */
	uint8_t proto;
	uint16_t sport, dport;
};

void frame_parse(const uint8_t *f, size_t len, struct frame_info *fi);
uint32_t frame_path(const struct frame_info *fi, const uint8_t *f,
		    size_t len, uint64_t salt, uint32_t npaths);

/* fwd.c: which port owns an IPv4 address. */
struct fwd_entry {
	uint32_t ip;
	uint16_t port;		/* index into the fabric's ports */
	bool used;
	bool is_static;
};

#define FWD_SLOTS		4096	/* a power of two */

struct fwd_table {
	struct fwd_entry slot[FWD_SLOTS];
	uint32_t n;
	uint64_t learnt;	/* addresses learnt or moved */
	uint64_t full;		/* addresses not learnt: table full */
};

int fwd_add_static(struct fwd_table *t, uint32_t ip, uint16_t port);
void fwd_learn(struct fwd_table *t, uint32_t ip, uint16_t port);
int fwd_lookup(const struct fwd_table *t, uint32_t ip);

/* impair.c */
enum drop_cause {
	DROP_NONE,
	DROP_LOSS,
	DROP_BURST,
	DROP_BLACKHOLE,
};

struct path_stats {
	uint64_t in_frames, in_bytes;
	uint64_t out_frames, out_bytes;
	uint64_t drop_loss, drop_burst, drop_blackhole, drop_overflow;
	uint64_t duplicated, reordered;
	uint64_t held;		/* in flight now */
};

struct path {
	struct path_cfg c;
	struct rng r_loss, r_burst, r_dup, r_reorder;
	bool ge_bad;
	struct path_stats st;
};

struct verdict {
	enum drop_cause drop;
	bool dup;
	uint64_t delay_ns;	/* the path's, plus any reordering */
	bool reordered;
};

void impair_init(struct path *p, const struct path_cfg *c, uint64_t seed,
		 uint32_t index);
void impair_decide(struct path *p, uint32_t index, const struct fab_cfg *cfg,
		   uint64_t since_start_ns, struct verdict *v);

/* heap.c: the frames in flight, earliest release first. */
struct held {
	uint64_t due_ns;	/* CLOCK_MONOTONIC */
	uint64_t seq;		/* FIFO among equal release times */
	uint16_t port;		/* egress, index */
	uint16_t path;
	uint32_t len;
	uint8_t data[];
};

struct heap {
	struct held **a;
	uint32_t n, cap;
	uint64_t bytes;
};

int heap_init(struct heap *h, uint32_t cap);
void heap_push(struct heap *h, struct held *x);
struct held *heap_top(const struct heap *h);
struct held *heap_pop(struct heap *h);
void heap_free(struct heap *h);

/* port.c: one UDP socket per guest port. */
struct port_stats {
	uint64_t rx_frames, rx_bytes;	/* from the guest */
	uint64_t tx_frames, tx_bytes;	/* to the guest */
	uint64_t rx_wren;		/* of rx: Wren frames */
	/*
	 * Of rx_wren, by packet type (the 4-bit field of ver_type; 0: not
	 * a version-1 header), and the DATA packets marked RETX: what a
	 * capture's dissector must count too (Documentation/dissector.rst).
	 */
	uint64_t rx_wren_type[16];
	uint64_t rx_wren_retx;
	uint64_t flooded;		/* of rx: sent to every other port */
	uint64_t unrouted;		/* of rx: owner is the ingress port */
	uint64_t rx_oversize;		/* datagrams too long to be frames */
	uint64_t tx_errors;		/* sendto failed */
	uint64_t tx_no_peer;		/* no guest address known yet */
};

struct port {
	uint32_t id;
	int fd;
	struct sockaddr_in local, peer;
	bool peer_known;
	struct port_stats st;
};

int port_open(struct port *pt, const struct port_cfg *c, struct in_addr a);
int ports_file_write(const char *file, const struct port *pts, uint32_t n);
ssize_t port_recv(struct port *pt, uint8_t *buf, size_t cap);
void port_send(struct port *pt, const uint8_t *f, size_t len);
uint64_t port_sock_drops(const struct port *pt);

/* pcap.c */
struct pcap;
struct pcap *pcap_open(const char *file);
void pcap_write(struct pcap *pc, const uint8_t *f, size_t len);
void pcap_flush(struct pcap *pc);
void pcap_close(struct pcap *pc);

/* stats.c */
struct fabric {
	struct fab_cfg cfg;
	struct port ports[FAB_MAX_PORTS];
	uint32_t nports;
	struct path paths[FAB_MAX_PATHS];
	struct fwd_table fwd;
	struct heap heap;
	uint32_t held_max;
	uint64_t seq;
	uint64_t start_ns;	/* CLOCK_MONOTONIC */
	struct pcap *pcap_out, *pcap_in;
};

int stats_write(const struct fabric *fab, uint64_t now_ns);
void stats_summary(const struct fabric *fab);

#endif /* FABRIC_H */
