/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The event core: simulated time in picoseconds and a heap of pending
 * events.  Events are embedded in their owners (packets, ports, timers)
 * so that scheduling never allocates, and ties are broken by the order of
 * scheduling so that a run is a pure function of its inputs.
 */
#ifndef NETSIM_SIM_H
#define NETSIM_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PS_PER_NS	1000ULL
#define PS_PER_US	1000000ULL
#define PS_PER_MS	1000000000ULL
#define PS_PER_S	1000000000000ULL

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

struct sim_ev {
	uint64_t t;
	uint64_t seq;
	void (*fn)(struct sim_ev *ev);
	uint32_t slot;		/* heap index + 1; 0 when not queued */
};

/*
 * A heap slot keeps the event's key beside it: no pointer chasing.  An
 * untracked event (a packet in flight: never moved or cancelled) is not
 * told its slot, which saves touching its cache line at every move.
 */
struct sim_slot {
	uint64_t t;
	uint64_t seq;
	struct sim_ev *ev;
	uint64_t tracked;
};

struct sim {
	uint64_t now;
	uint64_t seq;
	uint64_t events;
	struct sim_slot *heap;
	uint32_t n;
	uint32_t cap;
	uint32_t n_max;			/* the most events ever pending */
	bool stop;
};

void sim_init(struct sim *s);
void sim_fini(struct sim *s);

static inline bool sim_queued(const struct sim_ev *ev)
{
	return ev->slot != 0;
}

/* Schedule @ev at @t (clamped to now), or move it there if queued. */
void sim_at(struct sim *s, struct sim_ev *ev, uint64_t t);
void sim_cancel(struct sim *s, struct sim_ev *ev);
/* Schedule @ev, never to be moved, cancelled or asked sim_queued(). */
void sim_fire_at(struct sim *s, struct sim_ev *ev, uint64_t t);

/* Run events until none is left, sim_stop() or time @until passes. */
void sim_run(struct sim *s, uint64_t until);

static inline void sim_stop(struct sim *s)
{
	s->stop = true;
}

/*
 * Timers for the transports: struct wren_tp_env_ops.timer_* on top of
 * events.  now_ns truncates and arming rounds to whole nanoseconds, as a
 * nanosecond clock would.
 */
struct sim_timer {
	struct sim_ev ev;
	struct sim *sim;
	void (*cb)(void *arg);
	void *arg;
};

struct sim_timer *sim_timer_new(struct sim *s, void (*cb)(void *arg),
				void *arg);
void sim_timer_arm(struct sim_timer *tm, uint64_t expire_ns);
void sim_timer_cancel(struct sim_timer *tm);
void sim_timer_free(struct sim_timer *tm);

#endif /* NETSIM_SIM_H */
