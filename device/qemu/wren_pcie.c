/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * QEMU PCIe device "wren": the Wren adapter model.
 *
 * PCI and QOM glue only; the adapter's logic is in engine/ (the same code
 * the network simulator runs).  This file gives the engine guest memory
 * (pci_dma_*), MSI-X, QEMU timers, a wire (the "netdev" property) and
 * trace events.  Without a netdev the wire is unplugged: frames are
 * dropped, and reliable messages fail as unreachable.
 *
 * Fault injection: the string property "x-fault" takes one request of
 * the engine's (weng_fault_parse(): "fatal=2", "admin-stop", "drop=0x06",
 * "delay=0x06:2000", "eq-stall", "keep-alive-stop", "link-down",
 * "link-up", "clear"), on the command line or mid-run with qom-set; read
 * back, it names the faults in force.  "x-fault-stats" reads the counts.
 */
#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "qemu/log.h"
#include "qemu/timer.h"
#include "qemu/units.h"
#include "qapi/error.h"
#include "qom/object.h"
#include "hw/pci/msix.h"
#include "hw/pci/pci.h"
#include "hw/pci/pcie.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "net/net.h"
#include "trace.h"

#include "wren_compat.h"
#include "linux/wren/wren_if.h"
#include "weng.h"

#define TYPE_WREN "wren"
OBJECT_DECLARE_SIMPLE_TYPE(WrenState, WREN)

#define WREN_PCIE_CAP_OFFSET 0xe0
#define WREN_TX_FRAME_MAX (9216 + 256)
#define WREN_TX_BUDGET 64  /* frames per bottom half, then the guest runs */

struct WrenState {
    PCIDevice parent_obj;

    MemoryRegion bar0;
    MemoryRegion regs;
    MemoryRegion doorbells;

    struct weng *engine;

    NICConf conf;
    NICState *nic;
    QEMUBH *tx_bh;
    bool tx_waiting;            /* the peer holds a frame of ours */
    uint8_t tx_frame[WREN_TX_FRAME_MAX];

    /* Properties */
    MACAddr mac;
    char *ipv4;
    char *serial;
    uint32_t mtu;
    uint32_t speed;
    uint32_t vectors;
    uint32_t time_scale;
    uint32_t tc_cache;
    uint32_t counter_sets;
    uint8_t fault_drop_opcode;
    char *fault_at_start;       /* x-fault given before realize */
};

static int wren_pcie_env_dma_read(void *opaque, uint64_t addr, void *buf,
                                  size_t len)
{
    return pci_dma_read(PCI_DEVICE(opaque), addr, buf, len) == MEMTX_OK ?
           0 : -1;
}

static int wren_pcie_env_dma_write(void *opaque, uint64_t addr, const void *buf,
                                   size_t len)
{
    return pci_dma_write(PCI_DEVICE(opaque), addr, buf, len) == MEMTX_OK ?
           0 : -1;
}

static void wren_pcie_env_irq(void *opaque, unsigned int vector)
{
    PCIDevice *pci = PCI_DEVICE(opaque);

    trace_wren_pcie_irq(vector);
    if (msix_enabled(pci) && vector < WREN(opaque)->vectors) {
        msix_notify(pci, vector);
    }
}

static uint64_t wren_pcie_env_now_ns(void *opaque)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

static void *wren_pcie_env_timer_new(void *opaque, void (*cb)(void *arg),
                                     void *arg)
{
    return timer_new_ns(QEMU_CLOCK_VIRTUAL, cb, arg);
}

static void wren_pcie_env_timer_arm(void *timer, uint64_t expire_ns)
{
    timer_mod(timer, expire_ns);
}

static void wren_pcie_env_timer_cancel(void *timer)
{
    timer_del(timer);
}

static void wren_pcie_env_timer_free(void *timer)
{
    timer_free(timer);
}

/* The text of each guest mistake, for -d guest_errors. */
static const char *const wren_pcie_guest_errors[WENG_WRN_COUNT] = {
#define WREN_PCIE_GUEST_ERROR(name, message) [WENG_WRN_##name] = message,
    WENG_WRN_LIST(WREN_PCIE_GUEST_ERROR)
#undef WREN_PCIE_GUEST_ERROR
};

/*
 * Every guest mistake is a trace event of its own and a line of QEMU's
 * guest-error log; the device goes on.
 */
static void wren_pcie_env_warn(void *opaque, enum weng_wrn what, uint64_t a,
                               uint64_t b)
{
    switch (what) {
    case WENG_WRN_BAD_ACCESS:
        trace_wren_pcie_wrn_bad_access(a, b);
        break;
    case WENG_WRN_BAD_REGISTER:
        trace_wren_pcie_wrn_bad_register(a, b);
        break;
    case WENG_WRN_READ_ONLY:
        trace_wren_pcie_wrn_read_only(a, b);
        break;
    case WENG_WRN_NOT_READY:
        trace_wren_pcie_wrn_not_ready(a, b);
        break;
    case WENG_WRN_QUEUE_CFG:
        trace_wren_pcie_wrn_queue_cfg(a, b);
        break;
    case WENG_WRN_DOORBELL:
        trace_wren_pcie_wrn_doorbell(a, b);
        break;
    case WENG_WRN_ADMIN_PHASE:
        trace_wren_pcie_wrn_admin_phase(a, b);
        break;
    case WENG_WRN_ADMIN_REJECTED:
        trace_wren_pcie_wrn_admin_rejected(a, b);
        break;
    case WENG_WRN_DMA:
        trace_wren_pcie_wrn_dma(a, b);
        break;
    case WENG_WRN_AEQ_OVERFLOW:
        trace_wren_pcie_wrn_aeq_overflow(a, b);
        break;
    case WENG_WRN_EQ_OVERFLOW:
        trace_wren_pcie_wrn_eq_overflow(a, b);
        break;
    case WENG_WRN_DB_PAGE:
        trace_wren_pcie_wrn_db_page(a, b);
        break;
    case WENG_WRN_FAULT_DROP:
        trace_wren_pcie_wrn_fault_drop(a, b);
        break;
    case WENG_WRN_CQ_OVERFLOW:
        trace_wren_pcie_wrn_cq_overflow(a, b);
        break;
    case WENG_WRN_BAD_WQE:
        trace_wren_pcie_wrn_bad_wqe(a, b >> 8, b & 0xff);
        break;
    case WENG_WRN_DMA_SELF:
        trace_wren_pcie_wrn_dma_self(a, b);
        break;
    case WENG_WRN_COUNT:
        return;
    }
    if (what < WENG_WRN_COUNT) {
        qemu_log_mask(LOG_GUEST_ERROR, "wren: %s: ", DEVICE(opaque)->id ?: "-");
        qemu_log_mask(LOG_GUEST_ERROR, wren_pcie_guest_errors[what], a, b);
        qemu_log_mask(LOG_GUEST_ERROR, "\n");
    }
}

/* What an injected fault did: a trace event each, no guest-error line. */
static void wren_pcie_env_fault(void *opaque, enum weng_flt what, uint64_t a,
                                uint64_t b)
{
    switch (what) {
    case WENG_FLT_INJECT:
        trace_wren_pcie_fault_inject(a, b);
        break;
    case WENG_FLT_ADMIN_STOPPED:
        trace_wren_pcie_fault_admin_stopped(a, b);
        break;
    case WENG_FLT_ADMIN_DELAYED:
        trace_wren_pcie_fault_admin_delayed(a, b);
        break;
    case WENG_FLT_ADMIN_LATE:
        trace_wren_pcie_fault_admin_late(a, b);
        break;
    case WENG_FLT_EQ_HELD:
        trace_wren_pcie_fault_eq_held(a, b);
        break;
    case WENG_FLT_EQ_RELEASED:
        trace_wren_pcie_fault_eq_released(a, b);
        break;
    case WENG_FLT_KEEP_ALIVE_WITHHELD:
        trace_wren_pcie_fault_keep_alive_withheld(a, b);
        break;
    case WENG_FLT_LINK_DROP:
        trace_wren_pcie_fault_link_drop(a, b);
        break;
    case WENG_FLT_COUNT:
        break;
    }
}

static void wren_pcie_tx_flush(WrenState *s);

static void wren_pcie_tx_sent(NetClientState *nc, ssize_t len)
{
    WrenState *s = qemu_get_nic_opaque(nc);

    s->tx_waiting = false;
    wren_pcie_tx_flush(s);
}

/* Pull frames from the engine while the wire takes them. */
static void wren_pcie_tx_flush(WrenState *s)
{
    unsigned int budget = WREN_TX_BUDGET;
    size_t len;

    while (!s->tx_waiting && budget) {
        len = weng_tx_pull(s->engine, s->tx_frame,
                                  sizeof(s->tx_frame));
        if (!len) {
            return;
        }
        budget--;
        trace_wren_pcie_tx_frame(len, s->nic != NULL);
        if (s->nic && !qemu_send_packet_async(qemu_get_queue(s->nic),
                                               s->tx_frame, len,
                                               wren_pcie_tx_sent)) {
            s->tx_waiting = true;
        }
    }
    if (!budget) {
        qemu_bh_schedule(s->tx_bh);
    }
}

static void wren_pcie_tx_bh(void *opaque)
{
    wren_pcie_tx_flush(opaque);
}

static void wren_pcie_env_tx_kick(void *opaque)
{
    qemu_bh_schedule(WREN(opaque)->tx_bh);
}

static uint32_t wren_pcie_env_random(void *opaque)
{
    return g_random_int();
}

static ssize_t wren_pcie_net_receive(NetClientState *nc, const uint8_t *buf,
                                     size_t size)
{
    WrenState *s = qemu_get_nic_opaque(nc);

    trace_wren_pcie_rx_frame(size);
    weng_rx_frame(s->engine, buf, size);
    return size;
}

static NetClientInfo wren_pcie_net_info = {
    .type = NET_CLIENT_DRIVER_NIC,
    .size = sizeof(NICState),
    .receive = wren_pcie_net_receive,
};

static const struct weng_env_ops wren_pcie_env_ops = {
    .dma_read = wren_pcie_env_dma_read,
    .dma_write = wren_pcie_env_dma_write,
    .irq = wren_pcie_env_irq,
    .warn = wren_pcie_env_warn,
    .fault = wren_pcie_env_fault,
    .host = {
        .now_ns = wren_pcie_env_now_ns,
        .timer_new = wren_pcie_env_timer_new,
        .timer_arm = wren_pcie_env_timer_arm,
        .timer_cancel = wren_pcie_env_timer_cancel,
        .timer_free = wren_pcie_env_timer_free,
        .tx_kick = wren_pcie_env_tx_kick,
        .random = wren_pcie_env_random,
    },
};

static uint64_t wren_pcie_regs_read(void *opaque, hwaddr addr, unsigned size)
{
    WrenState *s = opaque;
    uint32_t value = weng_reg_read(s->engine, addr, size);

    trace_wren_pcie_reg_read(addr, value);
    return value;
}

static void wren_pcie_regs_write(void *opaque, hwaddr addr, uint64_t value,
                                 unsigned size)
{
    WrenState *s = opaque;

    trace_wren_pcie_reg_write(addr, value);
    weng_reg_write(s->engine, addr, value, size);
}

/*
 * Accept every access size at the memory API level so that the engine
 * sees, and refuses with a trace, the ones the interface forbids.
 */
static const MemoryRegionOps wren_pcie_regs_ops = {
    .read = wren_pcie_regs_read,
    .write = wren_pcie_regs_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = { .min_access_size = 1, .max_access_size = 8, .unaligned = true },
    .impl = { .min_access_size = 1, .max_access_size = 8, .unaligned = true },
};

static uint64_t wren_pcie_db_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    WrenState *s = opaque;

    return weng_db_read(s->engine, addr, size);
}

static void wren_pcie_db_mmio_write(void *opaque, hwaddr addr, uint64_t value,
                                    unsigned size)
{
    WrenState *s = opaque;

    weng_db_write(s->engine, addr, value, size);
}

static const MemoryRegionOps wren_pcie_db_ops = {
    .read = wren_pcie_db_mmio_read,
    .write = wren_pcie_db_mmio_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = { .min_access_size = 1, .max_access_size = 8, .unaligned = true },
    .impl = { .min_access_size = 1, .max_access_size = 8, .unaligned = true },
};

static bool wren_pcie_config_from_props(WrenState *s, struct weng_config *cfg,
                                        Error **errp)
{
    struct in_addr ip;

    weng_config_defaults(cfg);
    qemu_macaddr_default_if_unset(&s->mac);
    memcpy(cfg->mac, s->mac.a, sizeof(cfg->mac));
    if (!s->ipv4 || inet_pton(AF_INET, s->ipv4, &ip) != 1) {
        error_setg(errp, "wren: ipv4 must be a dotted-quad IPv4 address");
        return false;
    }
    cfg->ipv4 = ip.s_addr;
    if (s->mtu < 256 || s->mtu > 9000) {
        error_setg(errp, "wren: mtu %u is out of range (256 to 9000)",
                   s->mtu);
        return false;
    }
    cfg->mtu = s->mtu;
    if (!s->speed) {
        error_setg(errp, "wren: speed must be at least 1 Mb/s");
        return false;
    }
    cfg->link_speed_mbps = s->speed;
    if (s->vectors < 2 || s->vectors > 64) {
        error_setg(errp, "wren: vectors %u is out of range (2 to 64)",
                   s->vectors);
        return false;
    }
    cfg->msix_vectors = s->vectors;
    if (s->time_scale < 1 || s->time_scale > 10000) {
        error_setg(errp, "wren: time-scale %u is out of range (1 to 10000)",
                   s->time_scale);
        return false;
    }
    cfg->time_scale = s->time_scale;
    if (s->tc_cache < 1 || s->tc_cache > 65536) {
        error_setg(errp, "wren: tc-cache %u is out of range (1 to 65536)",
                   s->tc_cache);
        return false;
    }
    cfg->tc_cache = s->tc_cache;
    /* GET_STATS names a set in 16 bits; the default set is always there. */
    if (s->counter_sets < 1 || s->counter_sets > WENG_MAX_COUNTER_SETS) {
        error_setg(errp, "wren: counter-sets %u is out of range (1 to %u)",
                   s->counter_sets, WENG_MAX_COUNTER_SETS);
        return false;
    }
    cfg->max_counter_set = s->counter_sets;
    if (s->serial) {
        if (strlen(s->serial) > WENG_SERIAL_LEN) {
            error_setg(errp, "wren: serial is longer than %d characters",
                       WENG_SERIAL_LEN);
            return false;
        }
        pstrcpy(cfg->serial, sizeof(cfg->serial), s->serial);
    } else {
        snprintf(cfg->serial, sizeof(cfg->serial),
                 "WREN-%02X%02X%02X%02X%02X%02X", s->mac.a[0], s->mac.a[1],
                 s->mac.a[2], s->mac.a[3], s->mac.a[4], s->mac.a[5]);
    }
    cfg->fault_drop_opcode = s->fault_drop_opcode;
    return true;
}

/*
 * x-fault: one fault request, checked by the engine's parser; whoever
 * drives the monitor gets its reason back when it is refused.
 */
static bool wren_pcie_fault_parse(const char *value,
                                  struct weng_fault_req *req, Error **errp)
{
    const char *why = NULL;

    if (weng_fault_parse(value, req, &why)) {
        error_setg(errp, "wren: x-fault '%s': %s", value, why);
        return false;
    }
    return true;
}

static void wren_pcie_set_fault(Object *obj, const char *value, Error **errp)
{
    WrenState *s = WREN(obj);
    struct weng_fault_req req;

    if (!wren_pcie_fault_parse(value, &req, errp)) {
        return;
    }
    trace_wren_pcie_fault_request(DEVICE(obj)->id ?: "-", value);
    if (!s->engine) {
        /* Before realize: applied once the engine exists. */
        g_free(s->fault_at_start);
        s->fault_at_start = g_strdup(value);
        return;
    }
    weng_fault_inject(s->engine, &req);
}

static char *wren_pcie_get_fault(Object *obj, Error **errp)
{
    WrenState *s = WREN(obj);
    char buf[256];

    if (!s->engine) {
        return g_strdup(s->fault_at_start ?: "");
    }
    weng_fault_describe(s->engine, buf, sizeof(buf));
    return g_strdup(buf);
}

static char *wren_pcie_get_fault_stats(Object *obj, Error **errp)
{
    WrenState *s = WREN(obj);
    struct weng_fault_stats st = { 0 };

    if (s->engine) {
        weng_fault_get_stats(s->engine, &st);
    }
    return g_strdup_printf("injected=%" PRIu64 " fatal=%" PRIu64
                           " admin_stopped=%" PRIu64 " admin_dropped=%" PRIu64
                           " admin_delayed=%" PRIu64 " admin_late=%" PRIu64
                           " eq_held=%" PRIu64 " eq_lost=%" PRIu64
                           " keep_alive_withheld=%" PRIu64
                           " link_changes=%" PRIu64
                           " link_rx_dropped=%" PRIu64
                           " link_tx_dropped=%" PRIu64,
                           st.injected, st.fatal, st.admin_stopped,
                           st.admin_dropped, st.admin_delayed, st.admin_late,
                           st.eq_held, st.eq_lost, st.keep_alive_withheld,
                           st.link_changes, st.link_rx_dropped,
                           st.link_tx_dropped);
}

static void wren_pcie_realize(PCIDevice *pci, Error **errp)
{
    WrenState *s = WREN(pci);
    g_autofree char *mac = NULL;
    struct weng_config cfg;
    uint64_t db_size;
    int ret;

    if (!wren_pcie_config_from_props(s, &cfg, errp)) {
        return;
    }

    memory_region_init(&s->bar0, OBJECT(s), "wren-bar0", WREN_REG_BAR_SIZE);
    memory_region_init_io(&s->regs, OBJECT(s), &wren_pcie_regs_ops, s,
                          "wren-regs", WREN_MSIX_TABLE_OFFSET);
    memory_region_add_subregion(&s->bar0, 0, &s->regs);
    pci_register_bar(pci, WREN_REG_BAR, PCI_BASE_ADDRESS_SPACE_MEMORY,
                     &s->bar0);

    db_size = (uint64_t)cfg.db_page_count * WREN_DB_PAGE_SIZE;
    memory_region_init_io(&s->doorbells, OBJECT(s), &wren_pcie_db_ops, s,
                          "wren-doorbells", db_size);
    pci_register_bar(pci, WREN_DB_BAR,
                     PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->doorbells);

    ret = msix_init(pci, s->vectors, &s->bar0, WREN_REG_BAR,
                    WREN_MSIX_TABLE_OFFSET, &s->bar0, WREN_REG_BAR,
                    WREN_MSIX_PBA_OFFSET, 0, errp);
    if (ret) {
        return;
    }
    for (uint32_t i = 0; i < s->vectors; i++) {
        msix_vector_use(pci, i);
    }
    if (pcie_endpoint_cap_init(pci, WREN_PCIE_CAP_OFFSET) < 0) {
        error_setg(errp, "wren: failed to initialize the PCIe capability");
        goto err_msix;
    }
    /* Function-level reset: the guest's sysfs "reset", VFIO. */
    pcie_cap_flr_init(pci);
    s->tx_bh = qemu_bh_new(wren_pcie_tx_bh, s);
    s->engine = weng_create(&cfg, &wren_pcie_env_ops, s);
    if (!s->engine) {
        error_setg(errp, "wren: out of memory");
        goto err_bh;
    }
    if (s->conf.peers.ncs[0]) {
        memcpy(s->conf.macaddr.a, s->mac.a, sizeof(s->conf.macaddr.a));
        s->nic = qemu_new_nic(&wren_pcie_net_info, &s->conf,
                              object_get_typename(OBJECT(s)),
                              DEVICE(s)->id, s);
    }
    if (s->fault_at_start) {
        struct weng_fault_req req;

        /* Checked when set; parsed again for the request itself. */
        if (wren_pcie_fault_parse(s->fault_at_start, &req, &error_abort)) {
            weng_fault_inject(s->engine, &req);
        }
    }
    mac = qemu_mac_strdup_printf(s->mac.a);
    trace_wren_pcie_realize(mac, cfg.mtu, cfg.msix_vectors);
    return;

err_bh:
    qemu_bh_delete(s->tx_bh);
    pcie_cap_exit(pci);
err_msix:
    msix_unuse_all_vectors(pci);
    msix_uninit(pci, &s->bar0, &s->bar0);
}

static void wren_pcie_exit(PCIDevice *pci)
{
    WrenState *s = WREN(pci);

    if (s->nic) {
        qemu_del_nic(s->nic);
        s->nic = NULL;
    }
    weng_destroy(s->engine);
    s->engine = NULL;
    qemu_bh_delete(s->tx_bh);
    pcie_cap_exit(pci);
    msix_unuse_all_vectors(pci);
    msix_uninit(pci, &s->bar0, &s->bar0);
}

static void wren_pcie_write_config(PCIDevice *pci, uint32_t addr,
                                   uint32_t val, int len)
{
    pci_default_write_config(pci, addr, val, len);
    /* Initiate FLR resets the device (wren_pcie_qdev_reset()). */
    pcie_cap_flr_write_config(pci, addr, val, len);
}

static void wren_pcie_qdev_reset(DeviceState *dev)
{
    WrenState *s = WREN(dev);

    trace_wren_pcie_reset();
    if (s->engine) {
        weng_reset(s->engine);
    }
}

static Property wren_pcie_properties[] = {
    DEFINE_PROP_MACADDR("mac", WrenState, mac),
    DEFINE_PROP_NETDEV("netdev", WrenState, conf.peers),
    DEFINE_PROP_STRING("ipv4", WrenState, ipv4),
    DEFINE_PROP_STRING("serial", WrenState, serial),
    DEFINE_PROP_UINT32("mtu", WrenState, mtu, 4096),
    DEFINE_PROP_UINT32("speed", WrenState, speed, 100000),
    DEFINE_PROP_UINT32("vectors", WrenState, vectors, 8),
    DEFINE_PROP_UINT32("time-scale", WrenState, time_scale, 1),
    DEFINE_PROP_UINT32("tc-cache", WrenState, tc_cache, 1024),
    DEFINE_PROP_UINT32("counter-sets", WrenState, counter_sets,
                       WENG_DEFAULT_COUNTER_SETS),
    DEFINE_PROP_UINT8("x-fault-drop-opcode", WrenState, fault_drop_opcode, 0),
    DEFINE_PROP_END_OF_LIST(),
};

static const VMStateDescription wren_pcie_vmstate = {
    .name = TYPE_WREN,
    .unmigratable = 1,
};

static void wren_pcie_instance_finalize(Object *obj)
{
    WrenState *s = WREN(obj);

    g_free(s->fault_at_start);
    s->fault_at_start = NULL;
}

static void wren_pcie_instance_init(Object *obj)
{
    WrenState *s = WREN(obj);

    if (!s->ipv4) {
        s->ipv4 = g_strdup("198.18.0.1");
    }
}

static void wren_pcie_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);

    k->realize = wren_pcie_realize;
    k->exit = wren_pcie_exit;
    k->config_write = wren_pcie_write_config;
    k->vendor_id = WREN_PCI_VENDOR_ID;
    k->device_id = WREN_PCI_DEVICE_ID;
    k->revision = WREN_PCI_REVISION;
    k->class_id = PCI_CLASS_NETWORK_OTHER;
    dc->desc = "Wren reliable-datagram RDMA adapter";
    dc->reset = wren_pcie_qdev_reset;
    dc->vmsd = &wren_pcie_vmstate;
    device_class_set_props(dc, wren_pcie_properties);
    /*
     * Plain QOM properties, not qdev ones: qdev refuses to set a property
     * of a realized device, and these are for setting mid-run.
     */
    object_class_property_add_str(klass, "x-fault", wren_pcie_get_fault,
                                  wren_pcie_set_fault);
    object_class_property_set_description(klass, "x-fault",
        "inject a fault: clear, fatal=CODE, admin-stop, drop=OPCODE, "
        "drop-all=OPCODE, delay=OPCODE:MS, eq-stall, keep-alive-stop, "
        "link-down, link-up (reads back the faults in force)");
    object_class_property_add_str(klass, "x-fault-stats",
                                  wren_pcie_get_fault_stats, NULL);
    object_class_property_set_description(klass, "x-fault-stats",
        "what injected faults did, as counters");
    set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);
}

static const TypeInfo wren_pcie_info = {
    .name = TYPE_WREN,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(WrenState),
    .instance_init = wren_pcie_instance_init,
    .instance_finalize = wren_pcie_instance_finalize,
    .class_init = wren_pcie_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { }
    },
};

static void wren_pcie_register_types(void)
{
    type_register_static(&wren_pcie_info);
}

type_init(wren_pcie_register_types)
