/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The engine's view of its host: guest memory, interrupts, a way to report
 * what the guest did wrong, and what its transport needs too (a clock,
 * timers, randomness and a wire).  The QEMU device implements it with PCI
 * DMA, MSI-X, QEMU timers and a netdev; the unit tests with plain memory
 * and a clock of their own.  The engine calls nothing else.
 */
#ifndef WENG_ENV_H
#define WENG_ENV_H

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>

#include "wren_tp.h"

/*
 * Guest mistakes: X(NAME, message).  The message takes the report's two
 * values a and b, in that order, as uint64_t; each kind is also a
 * wren_pcie_wrn_* trace event in QEMU (device/qemu/trace-events).
 */
#define WENG_WRN_LIST(X)						\
	X(BAD_ACCESS, "BAR0 offset 0x%" PRIx64				\
	  ": %" PRIu64 "-byte access refused")				\
	X(BAD_REGISTER, "no register at 0x%" PRIx64			\
	  " (value 0x%" PRIx64 ")")					\
	X(READ_ONLY, "read-only register 0x%" PRIx64			\
	  " written with 0x%" PRIx64)					\
	X(NOT_READY, "register 0x%" PRIx64 " written with 0x%" PRIx64	\
	  " in the wrong state")					\
	X(QUEUE_CFG, "queue at register 0x%" PRIx64			\
	  ": invalid configuration 0x%" PRIx64)				\
	X(DOORBELL, "doorbell 0x%" PRIx64 ": value 0x%" PRIx64		\
	  " refused")							\
	X(ADMIN_PHASE, "admin queue slot %" PRIu64 ": flags 0x%" PRIx64	\
	  " have the wrong phase")					\
	X(ADMIN_REJECTED, "admin opcode 0x%" PRIx64			\
	  " rejected: status<<32|ext 0x%" PRIx64)			\
	X(DMA, "DMA at 0x%" PRIx64 " of %" PRIu64 " bytes failed")	\
	X(AEQ_OVERFLOW, "async event queue full, %" PRIu64		\
	  " events dropped (%" PRIu64 ")")				\
	X(EQ_OVERFLOW, "event queue %" PRIu64 " full, %" PRIu64		\
	  " events dropped")						\
	X(DB_PAGE, "doorbell BAR offset 0x%" PRIx64 ": 0x%" PRIx64	\
	  " names no queue")						\
	X(FAULT_DROP, "fault injection: admin opcode 0x%" PRIx64	\
	  " id 0x%" PRIx64 " dropped")					\
	X(CQ_OVERFLOW, "completion queue %" PRIu64			\
	  " full (not consumed): %" PRIu64 " completions lost")		\
	X(BAD_WQE, "QP %" PRIu64 " send entry: slot << 8 | completion"	\
	  " status 0x%" PRIx64 " refused")				\
	X(DMA_SELF, "DMA at 0x%" PRIx64 " of %" PRIu64 " bytes reaches"	\
	  " the adapter's own registers: refused")

enum weng_wrn {
#define WENG_WRN_ENUM(name, message) WENG_WRN_##name,
	WENG_WRN_LIST(WENG_WRN_ENUM)
#undef WENG_WRN_ENUM
	WENG_WRN_COUNT
};

/*
 * What an injected fault did (weng_fault.c): X(NAME, message), the message
 * taking the report's two values as uint64_t.  Not the guest's doing, so
 * not a warning: each is a wren_pcie_fault_* trace event in QEMU.  The one
 * older fault, x-fault-drop-opcode's, stays WENG_WRN_FAULT_DROP.
 */
#define WENG_FLT_LIST(X)						\
	X(INJECT, "fault %" PRIu64 " injected (value 0x%" PRIx64 ")")	\
	X(ADMIN_STOPPED, "admin opcode 0x%" PRIx64 " id 0x%" PRIx64	\
	  " taken, never answered (admin queue stopped)")		\
	X(ADMIN_DELAYED, "admin opcode 0x%" PRIx64 " id 0x%" PRIx64	\
	  ": completion delayed")					\
	X(ADMIN_LATE, "admin opcode 0x%" PRIx64 " id 0x%" PRIx64	\
	  ": late completion posted")					\
	X(EQ_HELD, "event queue %" PRIu64 ": event held (stall), %"	\
	  PRIu64 " held")						\
	X(EQ_RELEASED, "%" PRIu64 " held events released, %" PRIu64	\
	  " lost")							\
	X(KEEP_ALIVE_WITHHELD, "keep-alive %" PRIu64 " withheld (%"	\
	  PRIu64 " so far)")						\
	X(LINK_DROP, "link down: frame of %" PRIu64 " bytes dropped"	\
	  " (%" PRIu64 ": 0 in, 1 out)")

enum weng_flt {
#define WENG_FLT_ENUM(name, message) WENG_FLT_##name,
	WENG_FLT_LIST(WENG_FLT_ENUM)
#undef WENG_FLT_ENUM
	WENG_FLT_COUNT
};

/**
 * struct weng_env_ops - what the engine needs from its host
 * @dma_read: copy @len bytes of guest memory at @addr; 0 or -1
 * @dma_write: copy @len bytes to guest memory at @addr; 0 or -1
 * @irq: raise MSI-X vector @vector
 * @warn: report a guest mistake (&enum weng_wrn and its two values)
 * @fault: optional; report what an injected fault did (&enum weng_flt)
 * @host: the clock, timers, randomness and wire, which the engine shares
 *	with its transport (a host without @host.tx_kick and @host.random
 *	has no wire: the adapter then has no data path)
 *
 * A DMA may reach the adapter's own BARs (a guest can point any address at
 * them): the host then calls weng_reg_*() or weng_db_*() from inside
 * @dma_read or @dma_write, and the engine refuses that access and fails the
 * DMA (WENG_WRN_DMA_SELF).
 */
struct weng_env_ops {
	int (*dma_read)(void *opaque, uint64_t addr, void *buf, size_t len);
	int (*dma_write)(void *opaque, uint64_t addr, const void *buf,
			 size_t len);
	void (*irq)(void *opaque, unsigned int vector);
	void (*warn)(void *opaque, enum weng_wrn what, uint64_t a, uint64_t b);
	void (*fault)(void *opaque, enum weng_flt what, uint64_t a, uint64_t b);
	struct wren_tp_env_ops host;
};

#endif /* WENG_ENV_H */
