/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The engine's view of its host: guest memory, interrupts, time, a wire,
 * randomness and a way to report what the guest did wrong.  The QEMU
 * device implements it with PCI DMA, MSI-X, QEMU timers and a netdev;
 * tests and the network simulator with plain memory, simulated time and a
 * simulated network.  The engine calls nothing else.
 */
#ifndef WREN_ENV_H
#define WREN_ENV_H

#include <stddef.h>
#include <stdint.h>

#include "wren_tp.h"

/* Guest mistakes; each becomes a wren_wrn_* trace event in QEMU. */
enum wren_wrn {
	WREN_WRN_BAD_ACCESS,	/* a: BAR0 offset, b: access size */
	WREN_WRN_BAD_REGISTER,	/* a: offset, b: value; no such register */
	WREN_WRN_READ_ONLY,	/* a: offset, b: value */
	WREN_WRN_NOT_READY,	/* a: offset, b: value; config while enabled */
	WREN_WRN_QUEUE_CFG,	/* a: queue base register, b: config value */
	WREN_WRN_DOORBELL,	/* a: register offset, b: value */
	WREN_WRN_ADMIN_PHASE,	/* a: slot, b: flags */
	WREN_WRN_ADMIN_REJECTED,/* a: opcode, b: status << 32 | ext_status */
	WREN_WRN_DMA,		/* a: address, b: length */
	WREN_WRN_AEQ_OVERFLOW,	/* a: events dropped so far */
	WREN_WRN_EQ_OVERFLOW,	/* a: EQ id, b: events dropped so far */
	WREN_WRN_DB_PAGE,	/* a: doorbell BAR offset, b: value */
	WREN_WRN_FAULT_DROP,	/* a: opcode, b: command id; fault injected */
	WREN_WRN_CQ_OVERFLOW,	/* a: CQ number, b: completions lost so far */
	WREN_WRN_BAD_WQE,	/* a: QP number, b: slot << 8 | CQE status */
	WREN_WRN_COUNT
};

/**
 * struct wren_env_ops - what the engine needs from its host
 * @dma_read: copy @len bytes of guest memory at @addr; 0 or -1
 * @dma_write: copy @len bytes to guest memory at @addr; 0 or -1
 * @irq: raise MSI-X vector @vector
 * @warn: report a guest mistake
 * @host: the clock, timers, randomness and wire, which the engine shares
 *	with its transport (a host without @host.tx_kick and @host.random
 *	has no wire: the adapter then has no data path)
 */
struct wren_env_ops {
	int (*dma_read)(void *opaque, uint64_t addr, void *buf, size_t len);
	int (*dma_write)(void *opaque, uint64_t addr, const void *buf,
			 size_t len);
	void (*irq)(void *opaque, unsigned int vector);
	void (*warn)(void *opaque, enum wren_wrn what, uint64_t a, uint64_t b);
	struct wren_tp_env_ops host;
};

#endif /* WREN_ENV_H */
