/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Wren adapter's logic, independent of QEMU: what its host (the QEMU
 * device, the unit tests) calls.  The BAR0 register file, the doorbell
 * BAR, the wire, and the adapter's life cycle.  Everything the guest hands
 * over is validated behind these calls (Documentation/device-model.rst).
 */
#ifndef WENG_H
#define WENG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "weng_env.h"

#define WENG_SERIAL_LEN		32

/* Adapter configuration, set by the host before weng_create(). */
struct weng_config {
	uint8_t mac[6];
	uint32_t ipv4;			/* network byte order */
	uint32_t mtu;
	uint32_t link_speed_mbps;
	char serial[WENG_SERIAL_LEN + 1];
	uint32_t msix_vectors;
	uint8_t fault_drop_opcode;	/* 0: none; else as fault drop-all */
	uint32_t max_pd;
	uint32_t max_cq;
	uint32_t max_cq_depth;
	uint32_t max_qp;
	uint32_t max_qp_depth;
	uint32_t max_ah;
	uint32_t max_mr;
	uint64_t max_mr_size;
	uint64_t page_size_cap;
	uint32_t max_eq_depth;
	uint32_t db_page_count;
	uint32_t max_msg_size;
	uint32_t time_scale;		/* transport timers x this (>= 1) */
	uint32_t tc_cache;		/* transport contexts held at once */
	uint32_t tc_rx_cache;		/* ... receiving; 0: the transport's */
	uint16_t max_rd_atom;		/* READs in flight per QP; more wait */
	uint32_t max_srq;		/* shared receive queues */
	/* Counter sets, the default one included: 1 to WENG_MAX_COUNTER_SETS. */
	uint32_t max_counter_set;
};

#define WENG_DEFAULT_COUNTER_SETS	64
#define WENG_MAX_COUNTER_SETS		65536	/* GET_STATS's @set: 16 bits */

struct weng;

void weng_config_defaults(struct weng_config *cfg);

/* An adapter in its reset state, or NULL without memory. */
struct weng *weng_create(const struct weng_config *cfg,
			 const struct weng_env_ops *ops, void *opaque);
void weng_destroy(struct weng *e);
/* A function-level reset: every queue and object is forgotten. */
void weng_reset(struct weng *e);

/* BAR0: 4-byte registers (Documentation/device-interface.rst). */
uint32_t weng_reg_read(struct weng *e, uint64_t offset, unsigned int size);
void weng_reg_write(struct weng *e, uint64_t offset, uint32_t value,
		    unsigned int size);
/* The doorbell BAR: write-only pages of doorbell registers. */
uint32_t weng_db_read(struct weng *e, uint64_t offset, unsigned int size);
void weng_db_write(struct weng *e, uint64_t offset, uint32_t value,
		   unsigned int size);

/*
 * The wire (hosts whose env has host.tx_kick and host.random): the next
 * frame to send (0: none now), and a frame that arrived.
 */
size_t weng_tx_pull(struct weng *e, void *frame, size_t cap);
void weng_rx_frame(struct weng *e, const void *frame, size_t len);

/*
 * Fault injection (weng_fault.c, Documentation/device-model.rst): what a
 * test makes the adapter do wrong, at start or mid-run.  A request is
 * parsed from text ("fatal=2", "delay=0x06:2000"...) and applied.
 */
enum weng_fault_kind {
	WENG_FAULT_CLEAR,	/* lift every fault but a fatal error */
	WENG_FAULT_FATAL,	/* fail now with @value, a WREN_FATAL_* code */
	WENG_FAULT_ADMIN_STOP,	/* take admin commands, answer none */
	WENG_FAULT_DROP,	/* lose the next completion of @opcode */
	WENG_FAULT_DROP_ALL,	/* ... every one */
	WENG_FAULT_DELAY,	/* post those of @opcode @value ms late */
	WENG_FAULT_EQ_STALL,	/* hold event queue entries and interrupts */
	WENG_FAULT_KEEP_ALIVE_STOP,	/* withhold keep-alive events */
	WENG_FAULT_LINK_DOWN,	/* the wire port loses its link */
	WENG_FAULT_LINK_UP,	/* ... and gets it back */
	WENG_FAULT_KIND_COUNT
};

struct weng_fault_req {
	enum weng_fault_kind kind;
	uint8_t opcode;
	uint32_t value;
};

/* What each fault did since the adapter was created. */
struct weng_fault_stats {
	uint64_t injected;		/* requests applied */
	uint64_t fatal;			/* fatal errors injected */
	uint64_t admin_stopped;		/* commands taken, never answered */
	uint64_t admin_dropped;		/* completions lost */
	uint64_t admin_delayed;		/* completions held back ... */
	uint64_t admin_late;		/* ... and posted late */
	uint64_t eq_held;		/* event queue entries held */
	uint64_t eq_lost;		/* ... that no longer had a queue */
	uint64_t keep_alive_withheld;
	uint64_t link_changes;		/* down and up */
	uint64_t link_rx_dropped;	/* frames lost to a link down */
	uint64_t link_tx_dropped;
};

#define WENG_FAULT_DELAY_MAX_MS	600000	/* ten minutes */

/* Parse @text; 0, or -1 with *@why saying what is wrong with it. */
int weng_fault_parse(const char *text, struct weng_fault_req *req,
		     const char **why);
void weng_fault_inject(struct weng *e, const struct weng_fault_req *req);
void weng_fault_get_stats(const struct weng *e, struct weng_fault_stats *st);
/* The faults in force, as the requests that set them ("" for none). */
void weng_fault_describe(const struct weng *e, char *buf, size_t len);

#endif /* WENG_H */
