// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren transport: the target's grant scheduler, the incast defence
 * (Documentation/transport.rst, "Receiver grants").
 *
 * A message of at least cfg.grant_threshold bytes opens with a GRANT_REQ
 * packet and sends its bytes only below the offset its target grants.
 * The target keeps at most cfg.grant_window bytes granted and not yet
 * received, over all initiators, and hands grants of cfg.grant_chunk out
 * in turn, so however many initiators push at once, no more than about a
 * window of their data is ever queued in front of the target's link.
 * The next grant goes to the shortest message (shortest first, as SRPT
 * schedulers do: a short message is not held back by a long one) that
 * holds less than half the window while others wait (grant_next()), among
 * messages of one length to the one granted least so far (in turn among
 * equals): the first initiator to ask takes the whole window before the
 * others' requests arrive, and the others then catch up with it before
 * it gets more, so an incast's senders finish together, where plain turns
 * let the first finish a window's worth of time ahead of the last.
 *
 * Grants are cumulative offsets: a lost grant is covered by the next, and
 * a message whose granted bytes stop arriving gets its grant again after
 * cfg.min_rto_ns.  Grants travel on the path of the initiator's latest
 * data (rx->sport), with copies on fresh paths, and a grant that
 * went unanswered moves them to a new one (Documentation/transport.rst,
 * "Control packets and dead paths").
 */
#include <string.h>

#include "tp_internal.h"

/* Copies of a grant an initiator may wait on, each on a fresh path. */
#define TP_GRANT_COPIES		2

void tp_grant_add(struct wren_tp *tp, struct tp_rx_msg *rm)
{
	rm->granted = 0;
	rm->progress_ns = tp_now(tp);
	tp_list_add_tail(&tp->grants, &rm->grant);
	tp_kick(tp);
}

/* @rm is finished or abandoned: release what it still holds. */
void tp_grant_remove(struct wren_tp *tp, struct tp_rx_msg *rm)
{
	if (!rm->grant_mode)
		return;
	if (tp_linked(&rm->grant))
		tp_list_del(&rm->grant);
	tp->granted_out -= rm->granted - rm->received;
	rm->granted = rm->received;
	rm->grant_mode = false;
	if (!tp_list_empty(&tp->grants))
		tp_kick(tp);
}

void tp_grant_received(struct wren_tp *tp, struct tp_rx_msg *rm,
		       uint32_t bytes)
{
	tp->granted_out -= bytes;
	rm->progress_ns = tp_now(tp);
	rm->regrants = 0;
	if (!tp_list_empty(&tp->grants))
		tp_kick(tp);
}

static size_t grant_build(struct wren_tp *tp, struct tp_rx_msg *rm,
			  uint8_t *f, bool copy)
{
	struct tp_rx *rx = rm->rx;
	struct tp_tx_pkt h = {
		.dst_ip = rx->ipv4, .dst_mac = rx->mac, .sport = rx->sport,
		.type = WREN_WIRE_GRANT,
		.src_ctx = rx->id | rx->gen << 24, .dst_ctx = rx->src_ctx,
		.epoch = rx->epoch,
	};
	uint8_t *x = tp_ext(f);
	uint64_t now = tp_now(tp);

	wren_wire_put32(TP_FIELD(x, wren_wire_grant, msn), rm->msn);
	wren_wire_put32(TP_FIELD(x, wren_wire_grant, granted), rm->granted);
	rm->progress_ns = now;
	if (!rx->grant_check) {
		rx->grant_check = now + tp->cfg.min_rto_ns;
		tp_rx_timer_update(tp, rx);
	}
	/*
	 * And, with @copy, TP_GRANT_COPIES copies, each on a fresh path.
	 * The latest data says the way here works, not the way back, and a
	 * grant lost on the way back may leave the initiator idle with
	 * nothing in flight until the regrant (cfg.min_rto_ns): in netsim's
	 * S13 with one uplink per leaf dark, one grant in five was lost and
	 * the grants made most of the tail.  With one copy a grant was lost
	 * only if both paths were dead, one time in 64 there, but a
	 * message's last grant has no later one to cover it: about 2 of
	 * S13's 128 messages stalled 50 us for it, and those were its p99.
	 * Three paths lose it one time in 512.  The copies are queued with
	 * the control packets, so they follow at once; a full queue only
	 * costs a copy.
	 */
	for (int i = 0; copy && tp->cfg.repath && i < TP_GRANT_COPIES &&
	     tp->ctl_tail - tp->ctl_head < tp->ctl_size; i++) {
		struct tp_ctl copy = {
			.type = WREN_WIRE_GRANT, .ipv4 = rx->ipv4,
			.sport = tp_random_entropy(tp), .src_ctx = h.src_ctx,
			.dst_ctx = h.dst_ctx, .epoch = h.epoch, .msn = rm->msn,
			.granted = rm->granted,
		};

		memcpy(copy.mac, rx->mac, sizeof(copy.mac));
		tp_ctl_push(tp, &copy);
	}
	tp->stats.tx_grants++;
	return tp_build(tp, f, &h, sizeof(struct wren_wire_grant), 0);
}

static bool grant_before(const struct tp_rx_msg *a,
			 const struct tp_rx_msg *b)
{
	return !b || a->m.len < b->m.len ||
	       (a->m.len == b->m.len && a->granted < b->granted);
}

/*
 * A grant to send again first, else the shortest message, the one
 * granted least so far among equals, the first of those in turn; but a
 * message that already holds half of cfg.grant_window granted and not
 * yet arrived is passed over while another waits.
 *
 * Why half: the shortest message's initiator may be busy (sending to
 * other targets first, its own link full) and deliver its grants
 * slowly.  Granted the whole window, it would leave this target's link
 * idle, and every longer message waiting, for as long as its initiator
 * takes; held to half, the next message is granted the other half and
 * keeps the link busy (Homa's overcommitment, in its simplest form).
 * In netsim's WebSearch at 50 % load the p99 slowdown of messages over
 * 10 MB went from 4.73 to 4.24 with this alone, and it is what lets an
 * initiator serve its own messages shortest first (tp_api.c): a message
 * an initiator holds back then holds up at most half a target's window.
 * A message granted alone may still take the whole window.
 */
static struct tp_rx_msg *grant_next(struct wren_tp *tp)
{
	struct tp_rx_msg *best = NULL, *held = NULL;
	uint32_t share = tp->cfg.grant_window / 2;
	struct tp_link *l;

	for (l = tp->grants.next; l != &tp->grants; l = l->next) {
		struct tp_rx_msg *rm = tp_container_of(l, struct tp_rx_msg,
						       grant);

		if (rm->regrant)
			return rm;
		if (rm->granted - rm->received >= share) {
			if (grant_before(rm, held))
				held = rm;
		} else if (grant_before(rm, best)) {
			best = rm;
		}
	}
	return best ? best : held;
}

/* Send @rm's latest grant again, before any other. */
void tp_grant_again(struct wren_tp *tp, struct tp_rx_msg *rm)
{
	rm->regrant = true;
	if (tp_linked(&rm->grant))
		tp_list_del(&rm->grant);
	tp_list_add(&tp->grants, &rm->grant);
	tp_kick(tp);
}

/* The next GRANT to send, if the window has room: least granted first. */
size_t tp_grant_pull(struct wren_tp *tp, uint8_t *f)
{
	uint32_t room, chunk, mtu = tp->cfg.mtu;
	struct tp_rx_msg *rm;
	bool alone, copy;

	if (tp_list_empty(&tp->grants))
		return 0;
	rm = grant_next(tp);
	tp_list_del(&rm->grant);
	if (rm->regrant) {
		rm->regrant = false;
		if (rm->granted < rm->m.len)
			tp_list_add_tail(&tp->grants, &rm->grant);
		return grant_build(tp, rm, f, true);
	}
	alone = tp_list_empty(&tp->grants);
	room = tp->cfg.grant_window > tp->granted_out ?
	       tp->cfg.grant_window - tp->granted_out : 0;
	/* Whole packets, so the initiator never sends a runt. */
	chunk = min_u64(min_u64(tp->cfg.grant_chunk, room) / mtu * mtu,
			rm->m.len - rm->granted);
	if (!chunk && !tp->granted_out)
		chunk = min_u64(mtu, rm->m.len - rm->granted);
	/*
	 * A message that no other waits beside is granted in whole chunks,
	 * not a packet's worth each time a packet arrives: one GRANT per
	 * cfg.grant_chunk instead of one per DATA packet on the way back (in
	 * netsim's 2 MiB permutation 4 k GRANTs instead of 57 k, and a lone
	 * message 2 % sooner).  Messages that compete keep being granted a
	 * packet at a time, least granted first, so that they keep level.
	 */
	if (tp->granted_out && alone &&
	    chunk < min_u64(min_u64(tp->cfg.grant_chunk,
				    tp->cfg.grant_window) / mtu * mtu,
			    rm->m.len - rm->granted))
		chunk = 0;
	if (!chunk) {
		/* No room: wait for granted bytes to arrive. */
		tp_list_add(&tp->grants, &rm->grant);
		return 0;
	}
	rm->granted += chunk;
	tp->granted_out += chunk;
	/*
	 * Competing messages are granted a packet at a time, each arriving
	 * packet bringing the next grant: one lost is covered by the next.
	 * A message granted alone, in chunks, or its last grant is what the
	 * initiator may wait on with nothing in flight: those go twice.
	 */
	copy = alone || rm->granted == rm->m.len;
	if (rm->granted < rm->m.len)
		tp_list_add_tail(&tp->grants, &rm->grant);
	return grant_build(tp, rm, f, copy);
}

/*
 * Re-grant messages of @rx whose granted bytes stopped arriving: after
 * cfg.min_rto_ns, then twice as long each time (up to cfg.max_rto_ns),
 * and after cfg.max_retries grants that brought nothing the message is
 * given up, as an initiator gives up a target: an initiator that hears
 * grants and sends nothing (gone, or its packets dropped here as
 * contradicting the message's first one) must not be granted for ever.
 */
void tp_grant_check(struct wren_tp *tp, struct tp_rx *rx)
{
	uint64_t now = tp_now(tp);
	bool pending = false, regrant = false;

	rx->grant_check = 0;
	if (!rx->slot)
		return;
	for (uint32_t i = 0; i < TP_MSN_WINDOW; i++) {
		struct tp_rx_msg *rm = rx->slot[i];
		uint32_t shift;

		if (!rm || !rm->grant_mode || rm->received == rm->granted)
			continue;
		shift = min_u64(rm->regrants, TP_MAX_BACKOFF);
		if (now - rm->progress_ns <
		    min_u64(tp->cfg.min_rto_ns << shift, tp->cfg.max_rto_ns)) {
			pending = true;
			continue;
		}
		if (rm->regrants >= tp->cfg.max_retries) {
			tp_rx_msg_give_up(tp, rm, WREN_TP_REMOTE_UNRESPONSIVE);
			continue;
		}
		pending = true;
		rm->regrants++;
		tp_grant_again(tp, rm);
		regrant = true;
	}
	/*
	 * A grant that brought nothing for cfg.min_rto_ns was lost, or the
	 * data it let go was.  Lost data the initiator resends on another
	 * path by itself, but a lost grant leaves it nothing in flight: no
	 * timer of its own fires, nothing it sends shows this side another
	 * path, and a grant resent down a dead path is lost again until the
	 * context is given up.  So the regrant leaves on a fresh entropy,
	 * whatever the cause (moving off a good path costs nothing), until
	 * the next data says again which path the initiator trusts.
	 */
	if (regrant && tp->cfg.repath)
		rx->sport = tp_random_entropy(tp);
	if (pending)
		rx->grant_check = now + tp->cfg.min_rto_ns;
}
