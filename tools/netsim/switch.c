// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Output-queued switches: route by destination address, spread over
 * equal-cost ports by a salted 5-tuple hash, queue per egress port with a
 * byte limit.  ECN marks at enqueue (the queue the packet joins), and a
 * trimming switch keeps the headers of a DATA packet it cannot queue, in a
 * small queue served first, so the receiver learns of the loss at once.
 * With sw.prio_ctrl, control packets (ACK, NACK, GRANT, CONNECT and the
 * rest: every packet that carries no payload of a message) join that same
 * strict-priority queue, as the switches that serve receiver-driven and
 * trimming transports are configured: a control packet then waits for at
 * most the frame on the wire, never behind a full data queue, and is not
 * dropped with it.  With sw.prio_data, data packets queue by their IP
 * precedence (the top 3 bits of the TOS byte: the class selector code
 * points, which a sender sets by how urgent a packet is), the highest
 * first, below the control queue, as data-centre switches serve 802.1p /
 * DSCP classes with strict priority; the classes share the port's buffer.
 * A packet is marked by the bytes it will wait behind: its own class and
 * those above it.
 *
 * With sw.pfc the data classes are lossless, by IEEE 802.1Qbb priority
 * flow control: a switch counts the bytes it holds per ingress link and
 * class; when a class passes sw.pfc_xoff it sends that link's sender a
 * PAUSE for the class, and an XON once the class is back to sw.pfc_xon.
 * The sender (a switch port, or a host's NIC) finishes the frame on the
 * wire and sends nothing more of the class until the XON.  What arrives
 * in between lands in the headroom above XOFF (sw.pfc_headroom; by
 * default the bytes a link can deliver in the PAUSE's round trip plus a
 * frame at each end); a packet that finds even the headroom full is
 * dropped and counted (pfc_drops), which a right headroom never does.
 * The egress drop-tail limit (sw.buffer) does not apply to lossless
 * data.  Control packets in the priority queue (sw.prio_ctrl) are neither
 * counted nor paused: a class of their own.
 */
#include <stdio.h>
#include <stdlib.h>

#include "net.h"

uint32_t ecmp_pick(uint64_t salt, uint32_t sip, uint32_t dip, uint16_t sport,
		   uint16_t dport, uint32_t n)
{
	uint64_t h;

	if (n <= 1)
		return 0;
	h = mix64(salt ^ ((uint64_t)sip << 32 | dip));
	h = mix64(h ^ ((uint64_t)sport << 16 | dport));
	return (uint32_t)(((h >> 32) * n) >> 32);
}

static void port_start(struct port *pt);

/* A PAUSE (or XON) for class @cls reaches @in's sender. */
static void pfc_arrive(struct sim_ev *ev)
{
	struct pkt *p = container_of(ev, struct pkt, ev);
	struct link *in = p->link;
	struct net *n = in->net;
	uint8_t bit = 1U << p->data[0];

	if (p->data[1]) {
		if (!in->paused)
			in->paused_since = n->sim.now;
		in->paused |= bit;
	} else if (in->paused & bit) {
		in->paused &= ~bit;
		if (!in->paused)
			in->paused_ps += n->sim.now - in->paused_since;
		if (in->tx_port && !in->tx_port->busy)
			port_start(in->tx_port);
		if (in->tx_host)
			host_kick(in->tx_host);
	}
	pkt_free(n, p);
}

/*
 * Send a PAUSE (@on) or an XON for class @cls up @in: a 64-byte MAC
 * control frame on the wire back (as fast as @in, as long), sent ahead of
 * any data, arriving one frame time and one propagation delay later.
 */
static void pfc_signal(struct link *in, unsigned int cls, bool on)
{
	struct net *n = in->net;
	struct pkt *p = pkt_alloc(n);

	if (on)
		in->pfc_xoff++;
	p->data[0] = (uint8_t)cls;
	p->data[1] = on;
	p->len = 64;
	p->link = in;
	p->ev.fn = pfc_arrive;
	sim_fire_at(&n->sim, &p->ev,
		    n->sim.now + link_ser_ps(in, 60) + in->prop_ps);
}

/* Bytes an ingress queue may hold above XOFF before it drops. */
static uint32_t pfc_headroom(const struct link *in, const struct cfg *c)
{
	uint64_t wire;

	if (c->sw_pfc_headroom)
		return c->sw_pfc_headroom;
	/* The PAUSE's round trip at the link's rate, a frame at each end. */
	wire = (2 * in->prop_ps + link_ser_ps(in, 60)) * in->rate_mbps /
	       8000000;
	return (uint32_t)wire + 2 * (c->mtu + 256 + WREN_WIRE_ETH_OVERHEAD);
}

/* A packet counted by PFC leaves the switch. */
static void pfc_release(struct pkt *p, const struct cfg *c)
{
	struct link *in = p->link;
	unsigned int cls = p->pfc - 1;

	p->pfc = 0;
	in->pfc_in[cls] -= p->len;
	if (in->pfc_asked & 1U << cls && in->pfc_in[cls] <= c->sw_pfc_xon) {
		in->pfc_asked &= ~(1U << cls);
		pfc_signal(in, cls, false);
	}
}

/* Admit @p of class @cls to the switch by PFC: false if it is dropped. */
static bool pfc_admit(struct pkt *p, unsigned int cls, const struct cfg *c)
{
	struct link *in = p->link;

	if (!in || in->rx != sw_rx)
		return true;		/* the self-test's own packets */
	if (in->pfc_in[cls] + p->len > c->sw_pfc_xoff + pfc_headroom(in, c)) {
		in->pfc_drops++;
		return false;
	}
	in->pfc_in[cls] += p->len;
	p->pfc = (uint8_t)(cls + 1);
	if (in->pfc_in[cls] > c->sw_pfc_xoff && !(in->pfc_asked & 1U << cls)) {
		in->pfc_asked |= 1U << cls;
		pfc_signal(in, cls, true);
	}
	return true;
}

void pfc_init(struct net *n)
{
	for (uint32_t i = 0; i < n->nhosts; i++)
		n->hosts[i].up.tx_host = &n->hosts[i];
	for (uint32_t i = 0; i < n->nsw; i++)
		for (uint32_t j = 0; j < n->sws[i].nports; j++)
			n->sws[i].ports[j].link.tx_port = &n->sws[i].ports[j];
}

/* sw.qhist: is now within the measured window? */
static bool port_meas(const struct port *pt)
{
	const struct net *n = pt->link.net;
	const struct cfg *c = n->cfg;

	return c->sw_qhist && n->sim.now >= c->warmup_ps &&
	       (!c->duration_ps || n->sim.now < c->duration_ps);
}

void port_qhist(struct port *pt)
{
	struct net *n = pt->link.net;
	const struct cfg *c = n->cfg;
	uint64_t from = pt->q_since, to = n->sim.now;
	uint32_t b;

	pt->q_since = to;
	if (!c->sw_qhist)
		return;
	if (from < c->warmup_ps)
		from = c->warmup_ps;
	if (c->duration_ps && to > c->duration_ps)
		to = c->duration_ps;
	if (to <= from)
		return;
	if (!pt->qhist) {
		pt->qhist = calloc(PORT_QHIST_BUCKETS, sizeof(*pt->qhist));
		if (!pt->qhist) {
			perror("netsim: sw.qhist");
			exit(2);
		}
	}
	b = pt->qbytes / c->sw_qhist;
	if (b >= PORT_QHIST_BUCKETS)
		b = PORT_QHIST_BUCKETS - 1;
	pt->qhist[b] += to - from;
}

static void port_txdone(struct sim_ev *ev)
{
	struct port *pt = container_of(ev, struct port, txev);

	pt->busy = false;
	port_start(pt);
}

/*
 * Send the head of the priority queue (trimmed headers, control packets
 * with sw.prio_ctrl), else of the data queue.
 */
static void port_start(struct port *pt)
{
	struct net *n = pt->link.net;
	struct pkt *p;
	uint64_t done;

	if (pt->hh) {
		p = pt->hh;
		pt->hh = p->next;
		if (!pt->hh)
			pt->ht = NULL;
		pt->hbytes -= p->len;
	} else {
		int c = NET_DATA_CLASSES - 1;

		/* Classes the next hop paused (sw.pfc) wait. */
		while (c >= 0 && (!pt->qh[c] || pt->link.paused & 1U << c))
			c--;
		if (c < 0)
			return;
		p = pt->qh[c];
		pt->qh[c] = p->next;
		if (!pt->qh[c])
			pt->qt[c] = NULL;
		port_qhist(pt);
		pt->meas_tx += port_meas(pt);
		pt->qbytes -= p->len;
		pt->cbytes[c] -= p->len;
		if (p->pfc)
			pfc_release(p, n->cfg);
	}
	p->next = NULL;
	pt->busy = true;
	done = link_send(&pt->link, p);
	sim_at(&n->sim, &pt->txev, done);
}

static void q_append(struct pkt **h, struct pkt **t, struct pkt *p)
{
	p->next = NULL;
	if (*t)
		(*t)->next = p;
	else
		*h = p;
	*t = p;
}

/*
 * A control packet of either transport: Wren's on its own port, the
 * baseline's (the same headers) on RoCEv2's.  DATA and UD carry payload;
 * a trimmed DATA is handled by the trimming path already.
 */
static bool pkt_is_ctrl(const struct pkt *p)
{
	const uint8_t *f = p->data;
	uint16_t dport;
	uint8_t type;

	if (p->len < WREN_WIRE_HDR + sizeof(struct wren_wire_hdr) ||
	    wren_wire_get16(f + WREN_WIRE_ETH_TYPE) != WREN_WIRE_ETH_P_IPV4 ||
	    f[WREN_WIRE_IP_PROTO] != WREN_WIRE_IPPROTO_UDP)
		return false;
	dport = wren_wire_get16(f + WREN_WIRE_UDP + 2);
	if (dport != WREN_WIRE_UDP_PORT && dport != GBN_UDP_PORT)
		return false;
	type = FIELD_GET(WREN_WIRE_VER_TYPE_TYPE, f[WREN_WIRE_HDR]);
	return type != WREN_WIRE_DATA && type != WREN_WIRE_UD;
}

/* A Wren DATA packet a switch has already cut to its headers. */
static bool pkt_is_trimmed(const struct pkt *p)
{
	const uint8_t *f = p->data;

	return p->len <= WREN_WIRE_DATA_HDRS_LEN &&
	       wren_wire_type(f, p->len) == WREN_WIRE_DATA &&
	       (f[WREN_WIRE_HDR + 1] & WREN_WIRE_F_TRIMMED);
}

/*
 * Does the packet joining @pt's data queue get CE?  A step at sw.ecn, or
 * with sw.kmax the RED-style profile DCQCN's switches run (its CP): no
 * mark up to kmin, then a chance rising linearly to pmax at kmax, always
 * above kmax.  The network's stream draws, so runs stay deterministic.
 */
static bool port_marks(struct port *pt, const struct cfg *c, unsigned int cls)
{
	uint32_t q = 0;

	for (unsigned int i = cls; i < NET_DATA_CLASSES; i++)
		q += pt->cbytes[i];

	if (c->sw_kmax) {
		if (q <= c->sw_kmin)
			return false;
		if (q >= c->sw_kmax)
			return true;
		return rng_chance(&pt->link.net->rng, c->sw_pmax *
				  (q - c->sw_kmin) / (c->sw_kmax - c->sw_kmin));
	}
	return c->sw_ecn && q > c->sw_ecn;
}

/* sw.ecn_downlink = 0: ports into hosts do not mark. */
static bool port_may_mark(const struct port *pt, const struct cfg *c)
{
	return c->sw_ecn_downlink || pt->link.rx != host_rx;
}

/* The data queue @p joins: its IP precedence with sw.prio_data, else 0. */
static unsigned int pkt_class(const struct pkt *p, const struct cfg *c)
{
	if (!c->sw_prio_data || p->len < WREN_WIRE_IP + 2 ||
	    wren_wire_get16(p->data + WREN_WIRE_ETH_TYPE) != WREN_WIRE_ETH_P_IPV4)
		return 0;
	return p->data[WREN_WIRE_IP_TOS] >> 5;
}

void port_enqueue(struct port *pt, struct pkt *p)
{
	struct net *n = pt->link.net;
	const struct cfg *c = n->cfg;
	unsigned int cls;
	bool ctrl;

	/*
	 * The header queue: control packets with sw.prio_ctrl, and a
	 * header trimmed at an earlier hop, a header here too (as at the
	 * switch that cut it) rather than waiting behind data or being
	 * dropped with it.  Bounded as the headers this port trims: a
	 * flood cannot starve data.
	 */
	ctrl = c->sw_prio_ctrl && pkt_is_ctrl(p);
	if (ctrl || (c->sw_trim && pkt_is_trimmed(p))) {
		if (pt->hbytes + p->len > c->sw_hdr_buffer) {
			pt->hdr_drops++;
			pkt_free(n, p);
			return;
		}
		pt->ctrl_prio += ctrl;
		pt->hbytes += p->len;
		q_append(&pt->hh, &pt->ht, p);
		goto queued;
	}
	cls = pkt_class(p, c);
	if (c->sw_pfc) {
		if (!pfc_admit(p, cls, c)) {
			pt->drops++;
			pt->meas_drops += port_meas(pt);
			pkt_free(n, p);
			return;
		}
	} else if (pt->qbytes + p->len >
		   (pt->buffer ? pt->buffer : c->sw_buffer)) {
		size_t cut = c->sw_trim && pt->hbytes + WREN_WIRE_DATA_HDRS_LEN <=
			     c->sw_hdr_buffer ? wren_wire_trim(p->data, p->len) :
			     p->len;

		/* A Wren DATA packet keeps its headers in the header queue. */
		if (cut < p->len) {
			p->len = cut;
			pt->trims++;
			/*
			 * Trimmed on the way into its host: say so in the
			 * header's spare byte (UET's switches mark last-hop
			 * trims; the others ignore it).
			 */
			if (pt->link.rx == host_rx)
				p->data[WREN_WIRE_HDR + 3] = 1;
			pt->hbytes += p->len;
			q_append(&pt->hh, &pt->ht, p);
			goto queued;
		}
		pt->drops++;
		pt->meas_drops += port_meas(pt);
		pkt_free(n, p);
		return;
	}
	if (port_may_mark(pt, c) && port_marks(pt, c, cls) &&
	    wren_wire_mark_ce(p->data))
		pt->marks++;
	if (cls)
		pt->data_prio++;
	port_qhist(pt);
	pt->qbytes += p->len;
	pt->cbytes[cls] += p->len;
	if (pt->qbytes > pt->max_q)
		pt->max_q = pt->qbytes;
	q_append(&pt->qh[cls], &pt->qt[cls], p);
queued:
	if (!pt->busy)
		port_start(pt);
}

void sw_rx(void *node, struct pkt *p)
{
	struct sw *s = node;
	struct net *n = s->net;
	struct wren_wire_l2l4 h = { 0 };
	uint32_t dst, first, cnt, pick;

	dst = wren_wire_get_l2l4(p->data, p->len, &h) ? UINT32_MAX :
	      h.daddr - host_ip(0);
	if (dst >= n->nhosts) {
		/* Nothing in the simulation sends there: a bug. */
		fprintf(stderr, "netsim: frame to unknown %08x\n", h.daddr);
		pkt_free(n, p);
		return;
	}
	topo_route(n, s, dst, &first, &cnt);
	pick = ecmp_pick(s->salt, h.saddr, h.daddr, h.sport, h.dport, cnt);
	if (s->ports[first + pick].failed) {
		/* Hashed again over the ports left, as a switch whose
		 * routing took the link out would. */
		uint32_t live = 0;

		for (uint32_t i = 0; i < cnt; i++)
			live += !s->ports[first + i].failed;
		s->rerouted++;
		if (!live) {
			s->unroutable++;
			pkt_free(n, p);
			return;
		}
		pick = ecmp_pick(s->salt, h.saddr, h.daddr, h.sport, h.dport,
				 live);
		for (uint32_t i = 0;; i++)
			if (!s->ports[first + i].failed && !pick--) {
				pick = i;
				break;
			}
	}
	port_enqueue(&s->ports[first + pick], p);
}

void sw_init(struct net *n, struct sw *s, uint32_t id, uint32_t nports)
{
	uint32_t i;

	s->net = n;
	s->id = id;
	s->salt = rng_next(&n->rng);
	s->nports = nports;
	s->ports = calloc(nports, sizeof(*s->ports));
	if (!s->ports) {
		perror("netsim: switch");
		exit(2);
	}
	for (i = 0; i < nports; i++) {
		s->ports[i].link.net = n;
		s->ports[i].txev.fn = port_txdone;
	}
}
