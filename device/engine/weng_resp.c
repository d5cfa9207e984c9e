// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: responder entries.  Each one-sided operation a peer makes
 * on this adapter (a WRITE being placed, a READ_REQ and then its answer)
 * holds one from its first packet until it is finished.  They are a
 * device-wide pool of max_res_rd_atom, so a peer that asks for more waits
 * (receiver not ready).  Transport callbacks name an entry by (index,
 * generation): an entry reused or reset since makes a late one harmless.
 *
 * No requester may hold the pool alone: a greedy, slow or dead one (READs
 * whose answers it never acknowledges keep their entries until the
 * transport gives up on them) would make every other peer's WRITE to any
 * QP wait.  One peer holds at most a quarter of the entries and one QP at
 * most half; beyond, only that requester is told to wait.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "weng_internal.h"

#define WENG_RESP_PEER_SHARE	4
#define WENG_RESP_QP_SHARE	2

/*
 * The entries one peer holds.  An open-addressing table of twice as many
 * slots as there are entries (so never full), a slot with none held
 * being free; a peer's slot goes when its last entry does.
 */
struct weng_resp_peer {
	uint32_t ipv4;
	uint32_t held;
};

static uint32_t peer_home(const struct weng *e, uint32_t ipv4)
{
	return (ipv4 * 2654435761u) & e->resp_peer_mask;
}

/* @ipv4's slot, or the free one where it would go. */
static struct weng_resp_peer *peer_slot(struct weng *e, uint32_t ipv4)
{
	uint32_t i = peer_home(e, ipv4);

	while (e->resp_peers[i].held && e->resp_peers[i].ipv4 != ipv4)
		i = (i + 1) & e->resp_peer_mask;
	return &e->resp_peers[i];
}

/* One entry of @ipv4's fewer; a slot freed keeps every probe chain whole. */
static void peer_put(struct weng *e, uint32_t ipv4)
{
	struct weng_resp_peer *t = e->resp_peers;
	uint32_t mask = e->resp_peer_mask;
	uint32_t i = peer_slot(e, ipv4) - t, j = i;

	if (!t[i].held || --t[i].held)
		return;
	for (;;) {
		j = (j + 1) & mask;
		if (!t[j].held)
			return;
		/* t[j] stays if its home lies after the hole, up to j. */
		if (((j - peer_home(e, t[j].ipv4)) & mask) < ((j - i) & mask))
			continue;
		t[i] = t[j];
		t[j].held = 0;
		i = j;
	}
}

int weng_resp_init(struct weng *e)
{
	uint32_t slots = 1;

	/* One per message the transport can be receiving or sending. */
	e->resp_count = 4 * e->cfg.max_qp_depth;
	while (slots < 2 * e->resp_count)
		slots <<= 1;
	e->resps = calloc(e->resp_count, sizeof(*e->resps));
	e->resp_peers = calloc(slots, sizeof(*e->resp_peers));
	if (!e->resps || !e->resp_peers) {
		weng_resp_fini(e);
		return -ENOMEM;
	}
	e->resp_peer_mask = slots - 1;
	weng_resp_reset(e);
	return 0;
}

void weng_resp_fini(struct weng *e)
{
	free(e->resps);
	free(e->resp_peers);
	e->resps = NULL;
	e->resp_peers = NULL;
	e->resp_count = 0;
}

void weng_resp_free(struct weng *e, struct weng_resp *r)
{
	struct weng_qp *qp = &e->qps[r->qp];

	if (qp->in_use && qp->gen == r->qp_gen)
		qp->resps_held--;
	peer_put(e, r->peer_ipv4);
	r->in_use = false;
	r->gen++;
	r->next = e->resp_free;
	e->resp_free = r - e->resps;
}

void weng_resp_reset(struct weng *e)
{
	e->resp_free = WENG_RESP_NONE;
	for (uint32_t i = e->resp_count; i--;) {
		if (e->resps[i].in_use) {
			weng_resp_free(e, &e->resps[i]);
		} else {
			e->resps[i].next = e->resp_free;
			e->resp_free = i;
		}
	}
}

/*
 * An entry for @m from @peer to @qp, @len bytes; NULL if none is free or
 * the peer or the QP holds its share already.
 */
static struct weng_resp *resp_alloc(struct weng *e, struct weng_qp *qp,
				    const struct wren_tp_peer *peer,
				    const struct wren_tp_msg *m, uint32_t len)
{
	struct weng_resp_peer *held = peer_slot(e, peer->ipv4);
	struct weng_resp *r;

	if (e->resp_free == WENG_RESP_NONE ||
	    held->held >= e->resp_count / WENG_RESP_PEER_SHARE ||
	    qp->resps_held >= e->resp_count / WENG_RESP_QP_SHARE)
		return NULL;
	held->ipv4 = peer->ipv4;
	held->held++;
	qp->resps_held++;
	r = &e->resps[e->resp_free];
	e->resp_free = r->next;
	r->in_use = true;
	r->failed = false;
	r->opcode = m->opcode;
	r->solicited = m->flags & WREN_TP_MSG_SOLICITED;
	r->qp = qp - e->qps;
	r->qp_gen = qp->gen;
	r->rkey = m->rkey;
	r->raddr = m->raddr;
	r->len = len;
	r->imm = m->imm;
	r->peer_qpn = m->src_qpn;
	r->peer_ipv4 = peer->ipv4;
	memcpy(r->peer_mac, peer->mac, sizeof(r->peer_mac));
	r->psn = m->qkey;
	r->recv_slot = WENG_RESP_NONE;
	r->next = WENG_RESP_NONE;
	return r;
}

/*
 * A one-sided operation @m from @peer for @qp, on @len bytes at its
 * address and key: accept it with a responder entry if both the QP and
 * the key grant @need (WREN_MR_ACCESS_REMOTE_*) over them, or refuse it
 * before any byte is touched.
 */
enum wren_tp_status weng_resp_begin(struct weng *e, struct weng_qp *qp,
				    const struct wren_tp_peer *peer,
				    const struct wren_tp_msg *m, uint32_t len,
				    uint8_t need, uint64_t *cookie)
{
	struct weng_resp *r;
	int rc;

	if (len > e->cfg.max_msg_size || need & ~qp->access)
		return WREN_TP_REMOTE_ACCESS;
	/*
	 * A key that does not grant the range is the requester's error; a
	 * page list the device cannot read (bus mastering off: a fenced
	 * function) is this side's, and must not send the requester looking
	 * for a bad key.
	 */
	rc = weng_mr_walk(e, qp->pdn, m->rkey, m->raddr, len, need, NULL, NULL);
	if (rc)
		return rc == -EACCES ? WREN_TP_REMOTE_ACCESS :
				       WREN_TP_REMOTE_OP_ERROR;
	r = resp_alloc(e, qp, peer, m, len);
	if (!r)
		return WREN_TP_RNR;
	*cookie = weng_resp_cookie(e, r);
	return WREN_TP_OK;
}

uint64_t weng_resp_cookie(const struct weng *e, const struct weng_resp *r)
{
	return WENG_COOKIE(WENG_COOKIE_RESP, r->gen, r - e->resps, 0);
}

struct weng_resp *weng_resp_of_cookie(struct weng *e, uint64_t cookie)
{
	uint32_t i = WENG_COOKIE_INDEX(cookie);

	if (i >= e->resp_count || !e->resps[i].in_use ||
	    e->resps[i].gen != WENG_COOKIE_GEN(cookie))
		return NULL;
	return &e->resps[i];
}

/* The QP @r works for, or NULL if it is gone or no longer usable. */
struct weng_qp *weng_resp_qp(struct weng *e, const struct weng_resp *r)
{
	struct weng_qp *qp = &e->qps[r->qp];

	if (!qp->in_use || qp->gen != r->qp_gen || !weng_qp_receives(qp))
		return NULL;
	return qp;
}
