/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Wren core driver: private state shared by its files.
 */
#ifndef _WREN_DEV_H
#define _WREN_DEV_H

#include <kunit/visibility.h>
#include <linux/completion.h>
#include <linux/idr.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/rcupdate.h>
#include <linux/semaphore.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/wren/wren_core.h>
#include <linux/wren/wren_if.h>

#include "wren_eth.h"

#define WREN_DRV_NAME		KBUILD_MODNAME
#define WREN_AQ_LOG_DEPTH	5
#define WREN_AEQ_LOG_DEPTH	6
#define WREN_EQ_LOG_DEPTH	8

/**
 * struct wren_admin_ctx - one outstanding admin command
 * @done: completed by the completion handler
 * @cqe: the completion, copied by the completion handler
 * @cmd_id: the id the command was posted with
 * @busy: a caller owns this context
 * @completed: the completion arrived (under the admin lock)
 */
struct wren_admin_ctx {
	struct completion done;
	struct wren_admin_cqe cqe;
	u16 cmd_id;
	bool busy;
	bool completed;
};

/**
 * struct wren_admin - the admin queue transport
 * @sq: the admin queue ring
 * @sq_dma: its DMA address
 * @cq: the admin completion queue ring
 * @cq_dma: its DMA address
 * @ctx: one context per possible outstanding command
 * @lock: protects the rings' indices and @ctx
 * @slots: counts free contexts
 * @log_depth: log2 of the depth of both rings
 * @sq_tail: producer index of @sq
 * @sq_head: consumer index of @sq, as reported by the device
 * @cq_head: consumer index of @cq
 * @generation: makes command ids of reused contexts differ
 * @timeout_ms: how long a command may take, from the device
 * @poll: completions are polled rather than signalled
 */
struct wren_admin {
	struct wren_admin_cmd *sq;
	dma_addr_t sq_dma;
	struct wren_admin_cqe *cq;
	dma_addr_t cq_dma;
	struct wren_admin_ctx *ctx;
	spinlock_t lock;		/* protects the rings and @ctx */
	struct semaphore slots;
	unsigned int log_depth;
	u16 sq_tail;
	u16 sq_head;
	u16 cq_head;
	u16 generation;
	unsigned int timeout_ms;
	bool poll;
};

/**
 * struct wren_eq - an event queue and its interrupt
 * @wdev: the device
 * @ring: the entries
 * @dma: their DMA address
 * @id: the device's EQ id
 * @vector: MSI-X vector index
 * @head: consumer index
 * @events: entries consumed
 * @name: interrupt name
 */
struct wren_eq {
	struct wren_dev *wdev;
	struct wren_eqe *ring;
	dma_addr_t dma;
	u32 id;
	u16 vector;
	u32 head;
	u64 events;
	char name[32];
};

/**
 * struct wren_stats - counters shown in debugfs
 * @admin_cmds: admin commands posted
 * @admin_errors: admin commands completed with an error status
 * @admin_timeouts: admin commands that timed out
 * @admin_stale: completions that matched no outstanding command
 *
 * The admin counters change under the admin lock, the event counters
 * under the event lock.
 * @keep_alives: keep-alive events received
 * @keep_alive_lost: times the keep-alive stopped
 * @aeq_events: async events received
 * @aeq_warnings: warning events received
 * @link_changes: link change events received
 * @cq_errors: CQ error (overrun) events received
 * @eqe_unknown: event queue entries of an unknown type, on any EQ
 * @recoveries: recoveries that brought the device back
 * @recovery_failures: recoveries whose bring-up failed
 * @last_recovery_ms: the last recovery's time from the fence to the
 *	device's being up again
 *
 * The recovery counters change under the state lock.
 */
struct wren_stats {
	u64 admin_cmds;
	u64 admin_errors;
	u64 admin_timeouts;
	u64 admin_stale;
	atomic64_t keep_alives;
	u64 keep_alive_lost;
	u64 aeq_events;
	u64 aeq_warnings;
	u64 link_changes;
	u64 cq_errors;
	atomic64_t eqe_unknown;
	u64 recoveries;
	u64 recovery_failures;
	u64 last_recovery_ms;
};

struct devlink_health_reporter;

/**
 * enum wren_health_reporter - the devlink health reporters
 * @WREN_HEALTH_FATAL: the device reported a fatal error
 * @WREN_HEALTH_KEEP_ALIVE: its keep-alive events stopped
 * @WREN_HEALTH_ADMIN: an admin command timed out
 * @WREN_HEALTH_NUM: how many
 */
enum wren_health_reporter {
	WREN_HEALTH_FATAL,
	WREN_HEALTH_KEEP_ALIVE,
	WREN_HEALTH_ADMIN,
	WREN_HEALTH_NUM
};

/**
 * struct wren_health_event - an error waiting to be reported
 * @reporter: &enum wren_health_reporter
 * @opcode: the admin command's opcode (admin)
 * @cmd_id: its command id (admin)
 * @value: the fatal code (fatal), the silent time in ms (keep_alive), the
 *	admin timeout in ms (admin)
 */
struct wren_health_event {
	u8 reporter;
	u8 opcode;
	u16 cmd_id;
	u32 value;
};

#define WREN_HEALTH_EVENTS	32

/**
 * struct wren_health - the devlink health reporters and their events
 * @reporters: by &enum wren_health_reporter; NULL until registered
 * @work: reports the queued events (devlink_health_report() sleeps)
 * @lock: protects the fields below
 * @events: queued events
 * @head: index of the next event to report
 * @tail: index of the next free slot
 * @active: events are taken (false once the reporters are going away)
 * @fatal_seen: a fatal error was reported; it is reported once
 * @fatal_code: its &enum wren_fatal_code
 * @dropped: events lost because the queue was full
 */
struct wren_health {
	struct devlink_health_reporter *reporters[WREN_HEALTH_NUM];
	struct work_struct work;
	spinlock_t lock;	/* protects the queue and the fatal state */
	struct wren_health_event events[WREN_HEALTH_EVENTS];
	unsigned int head;
	unsigned int tail;
	bool active;
	bool fatal_seen;
	u32 fatal_code;
	u64 dropped;
};

/**
 * struct wren_event_sink - the driver that hears of its objects' events
 * @ops: its callbacks
 * @priv: their first argument
 */
struct wren_event_sink {
	const struct wren_event_ops *ops;
	void *priv;
};

/**
 * struct wren_dev - one Wren PCI function
 * @pdev: the PCI function
 * @regs: BAR0 registers
 * @db_bar_start: bus address of the doorbell BAR
 * @db_pages: allocator of user doorbell pages
 * @caps: the device's attributes
 * @admin: the admin queue
 * @aeq: the async event queue ring
 * @aeq_dma: its DMA address
 * @aeq_head: its consumer index
 * @aeq_lock: serialises async event processing
 * @eqs: completion event queues
 * @num_eqs: number of @eqs
 * @num_vectors: MSI-X vectors allocated
 * @flags: %WREN_FLAG_*
 * @fenced_at: when the device was last fenced
 * @state_lock: serialises bringing the device down and up (recovery,
 *	reload, reset) with each other and with removal; taken after the
 *	devlink instance lock, never before it
 * @keep_alive_want: the keep-alive period to ask for at every bring-up:
 *	the devlink parameter's value
 * @keep_alive_ms: the keep-alive period asked of the device, 0 if none
 * @keep_alive_seen: keep-alive count at the last watchdog run
 * @keep_alive_missed: watchdog runs without a keep-alive
 * @keep_alive_last: jiffies of the last keep-alive event, 0 if none
 * @watchdog: keep-alive watchdog and async event polling
 * @aux: the RDMA auxiliary device
 * @eth: the port's network interface, if it has one
 * @sink: storage for the event callbacks, published through @events
 * @events: &sink while a driver listens to events, else NULL; read under
 *	rcu_read_lock() by the event handlers
 * @debugfs: this device's debugfs directory
 * @stats: counters
 * @tc_table: the transport-context table, the device's until a reset
 * @tc_dma: its DMA address
 * @tc_log: log2 of its number of records
 * @health: the devlink health reporters
 */
struct wren_dev {
	struct pci_dev *pdev;
	void __iomem *regs;
	phys_addr_t db_bar_start;
	struct ida db_pages;
	struct wren_caps caps;
	struct wren_admin admin;
	struct wren_aeq_entry *aeq;
	dma_addr_t aeq_dma;
	u16 aeq_head;
	spinlock_t aeq_lock;	/* serialises event processing */
	struct wren_eq *eqs;
	unsigned int num_eqs;
	unsigned int num_vectors;
	unsigned long flags;
	ktime_t fenced_at;
	struct mutex state_lock;	/* serialises down and up */
	unsigned int keep_alive_want;
	unsigned int keep_alive_ms;
	u64 keep_alive_seen;
	unsigned int keep_alive_missed;
	unsigned long keep_alive_last;
	struct delayed_work watchdog;
	struct wren_aux_dev *aux;
	struct wren_eth *eth;
	struct wren_event_sink sink;
	struct wren_event_sink __rcu *events;
	struct dentry *debugfs;
	struct wren_stats stats;
	struct wren_tc_entry *tc_table;
	dma_addr_t tc_dma;
	unsigned int tc_log;
	struct wren_health health;
};

/*
 * Bits of &wren_dev.flags.  DEAD: the device failed or is down, and is
 * fenced: it masters no DMA until the next bring-up.  UP: the device was
 * brought up and not yet down again (what wren_unload() undoes).
 */
enum {
	WREN_FLAG_DEAD,
	WREN_FLAG_UP,
};

/**
 * wren_dead() - whether the device is fenced and its commands fail
 * @wdev: the device
 *
 * Return: true from the fence to the next bring-up.
 */
static inline bool wren_dead(const struct wren_dev *wdev)
{
	return test_bit(WREN_FLAG_DEAD, &wdev->flags);
}

/**
 * wren_ring_ready() - whether the device has written a ring entry
 * @flags: the entry's flags byte
 * @phase_flag: the flag that carries the entry's phase
 * @index: the reader's free-running index of the entry
 * @log_depth: log2 of the ring's depth
 *
 * Return: true if the entry's phase is the one of @index's lap.
 */
static inline bool wren_ring_ready(u8 flags, u8 phase_flag, u32 index,
				   unsigned int log_depth)
{
	return !!(flags & phase_flag) == wren_ring_phase(index, log_depth);
}

/**
 * wren_ring_full() - whether a ring of free-running u16 indices is full
 * @head: the consumer index
 * @tail: the producer index
 * @depth: the ring's depth, at most 2^15
 *
 * Return: true if @depth entries lie between @head and @tail.
 */
static inline bool wren_ring_full(u16 head, u16 tail, u32 depth)
{
	return (u16)(tail - head) >= depth;
}

/**
 * wren_ring_head_ok() - whether a consumer index the device reports is
 * possible
 * @head: the last consumer index it reported
 * @new_head: the one it reports now
 * @tail: the producer index
 *
 * A consumer index only moves forward, and never past the producer.
 *
 * Return: true if @new_head lies in @head..@tail, modulo 2^16.
 */
static inline bool wren_ring_head_ok(u16 head, u16 new_head, u16 tail)
{
	return (u16)(new_head - head) <= (u16)(tail - head);
}

/* Keep-alive periods the driver asks for, in ms, other than 0 (off). */
#define WREN_KEEP_ALIVE_MIN_MS	10
#define WREN_KEEP_ALIVE_MAX_MS	60000

/* wren_main.c */
u32 wren_rd(struct wren_dev *wdev, u32 reg);
void wren_wr(struct wren_dev *wdev, u32 reg, u32 val);
void wren_dma_stop(struct wren_dev *wdev);
int wren_load(struct wren_dev *wdev);
void wren_unload(struct wren_dev *wdev);

/* wren_recover.c */
extern const struct pci_error_handlers wren_pci_err_handlers;
bool wren_fence(struct wren_dev *wdev);
int wren_recover(struct wren_dev *wdev);

/* wren_admin.c */
int wren_admin_init(struct wren_dev *wdev);
void wren_admin_program(struct wren_dev *wdev);
void wren_admin_destroy(struct wren_dev *wdev);
void wren_admin_process(struct wren_dev *wdev);
void wren_admin_abort(struct wren_dev *wdev);
int wren_admin_exec(struct wren_dev *wdev, u8 opcode, const void *body,
		    size_t len, struct wren_admin_cqe *cqe);
const char *wren_admin_opcode_name(u8 opcode);

/* wren_cmds.c */
int wren_cmd_get_attr(struct wren_dev *wdev, struct wren_caps *caps);
int wren_cmd_set_feature(struct wren_dev *wdev, u16 feature, u32 value);
int wren_cmd_create_eq(struct wren_dev *wdev, dma_addr_t base,
		       unsigned int log_depth, u16 vector, u32 *id);
int wren_cmd_destroy_eq(struct wren_dev *wdev, u32 id);
int wren_cmd_set_tc_table(struct wren_dev *wdev, dma_addr_t dma,
			  unsigned int log_entries);

/* wren_tc.c */
int wren_tc_table_create(struct wren_dev *wdev);
void wren_tc_table_destroy(struct wren_dev *wdev);
void wren_tc_table_debugfs(struct wren_dev *wdev, struct dentry *dir);

/* wren_aeq.c */
int wren_aeq_init(struct wren_dev *wdev);
void wren_aeq_program(struct wren_dev *wdev);
void wren_aeq_destroy(struct wren_dev *wdev);
void wren_aeq_process(struct wren_dev *wdev);
void wren_watchdog_start(struct wren_dev *wdev, unsigned int keep_alive_ms);
void wren_watchdog_stop(struct wren_dev *wdev);
int wren_keep_alive_set(struct wren_dev *wdev, unsigned int keep_alive_ms);

/* wren_health.c */
void wren_health_init(struct wren_dev *wdev);
void wren_health_register(struct wren_dev *wdev);
void wren_health_unregister(struct wren_dev *wdev);
void wren_health_fatal(struct wren_dev *wdev, u32 code);
void wren_health_keep_alive_lost(struct wren_dev *wdev, u32 silent_ms);
void wren_health_admin_timeout(struct wren_dev *wdev, u8 opcode, u16 cmd_id);
void wren_health_rearm(struct wren_dev *wdev);

/* wren_eq.c */
int wren_irqs_init(struct wren_dev *wdev);
void wren_irqs_destroy(struct wren_dev *wdev);
int wren_eqs_create(struct wren_dev *wdev);
void wren_eqs_destroy(struct wren_dev *wdev);

/* wren_db.c */
void wren_db_init(struct wren_dev *wdev);
void wren_db_destroy(struct wren_dev *wdev);

/* wren_aux.c */
int wren_aux_add(struct wren_dev *wdev);
void wren_aux_del(struct wren_dev *wdev);

/* wren_devlink.c */
struct wren_dev *wren_devlink_alloc(struct pci_dev *pdev);
void wren_devlink_register(struct wren_dev *wdev);
void wren_devlink_unregister(struct wren_dev *wdev);
void wren_devlink_free(struct wren_dev *wdev);
int wren_devlink_params_register(struct wren_dev *wdev);
void wren_devlink_params_unregister(struct wren_dev *wdev);

/* wren_debugfs.c */
void wren_debugfs_init(void);
void wren_debugfs_exit(void);
void wren_debugfs_add(struct wren_dev *wdev);
void wren_debugfs_del(struct wren_dev *wdev);

#if IS_ENABLED(CONFIG_KUNIT)
struct netlink_ext_ack;
struct seq_file;

/* The pure logic the suites in kunit/ reach. */
int wren_admin_post(struct wren_dev *wdev, u8 opcode, const void *body,
		    size_t len, struct wren_admin_ctx **ctxp);
int wren_status_to_errno(u8 status);
void wren_decode_attr(const struct wren_dev_attr *a, struct wren_caps *c);
int wren_tc_table_log(const struct wren_caps *c, unsigned int want);
int wren_tc_table_show(struct seq_file *m, void *v);
void wren_keep_alive_check(struct wren_dev *wdev);
void wren_eq_process(struct wren_eq *eq);
void wren_health_queue(struct wren_dev *wdev,
		       const struct wren_health_event *ev);
int wren_keep_alive_validate(const struct wren_dev *wdev, u32 keep_alive_ms,
			     struct netlink_ext_ack *extack);
#endif

#endif /* _WREN_DEV_H */
