/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Wren RDMA driver: private state shared by its files.
 */
#ifndef _WREN_IB_H
#define _WREN_IB_H

#include <kunit/visibility.h>
#include <linux/dma-direction.h>
#include <linux/mutex.h>
#include <linux/wren/wren_core.h>
#include <linux/wren/wren_if.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <rdma/wren-abi.h>

/* GIDs of a RoCE port: the interface's addresses and the default one. */
#define WREN_IB_GID_TBL_LEN	16

/**
 * struct wren_ib_dev - one registered RDMA device
 * @ibdev: the ib_core device
 * @wdev: the core device it sits on
 * @pdev: the PCI function, for its ids
 * @caps: the device's attributes
 * @netdev: the port's network interface, or NULL: with one the port is
 *	RoCE (v2) and its GID table follows the interface's addresses
 * @cqs: the CQs by CQ number, for the event callbacks (read under RCU)
 * @qps: the QPs by QP number, the same way
 * @srqs: the SRQs by SRQ number, the same way
 * @kdb_page: the doorbell page of the kernel's CQs and QPs, if the
 *	device offers the kernel verbs (@kdb non-NULL)
 * @kdb: that page, mapped
 * @fatal: the device failed (wren_event_ops.fatal): the kernel's queues
 *	complete what is posted on them with flush errors
 */
struct wren_ib_dev {
	struct ib_device ibdev;
	struct wren_dev *wdev;
	struct pci_dev *pdev;
	const struct wren_caps *caps;
	struct net_device *netdev;
	struct xarray cqs;
	struct xarray qps;
	struct xarray srqs;
	u32 kdb_page;
	void __iomem *kdb;
	bool fatal;
};

/**
 * struct wren_ib_ucontext - a user context
 * @ibucontext: the ib_core context
 * @db_page: the context's doorbell page
 * @db_entry: its mmap entry
 */
struct wren_ib_ucontext {
	struct ib_ucontext ibucontext;
	u32 db_page;
	struct rdma_user_mmap_entry *db_entry;
};

/**
 * enum wren_ib_mmap_type - what an mmap entry maps
 * @WREN_IB_MMAP_IO: a doorbell page of the device, mapped uncached
 * @WREN_IB_MMAP_DMA: coherent DMA memory, which the device reaches (a ring)
 */
enum wren_ib_mmap_type {
	WREN_IB_MMAP_IO,
	WREN_IB_MMAP_DMA,
};

/**
 * struct wren_ib_mmap_entry - something a user context may mmap
 * @rdma_entry: the ib_core entry (offset and length)
 * @type: what it maps
 * @wdev: the device of the doorbell page or of the DMA memory
 * @db_page: %WREN_IB_MMAP_IO: the doorbell page, which the entry owns: it
 *	goes back to the device's allocator with the entry, once nothing
 *	maps it any more, so that no other context gets it before
 * @address: %WREN_IB_MMAP_IO: the bus address of the page
 * @cpu_addr: %WREN_IB_MMAP_DMA: the kernel address of the memory, which
 *	the entry owns: it is freed with it, once nothing can map it any
 *	more (every mapping holds a reference on the entry)
 * @dma: %WREN_IB_MMAP_DMA: the device's address of the memory
 * @size: %WREN_IB_MMAP_DMA: bytes at @cpu_addr, a multiple of PAGE_SIZE
 */
struct wren_ib_mmap_entry {
	struct rdma_user_mmap_entry rdma_entry;
	enum wren_ib_mmap_type type;
	struct wren_dev *wdev;
	u32 db_page;
	phys_addr_t address;
	void *cpu_addr;
	dma_addr_t dma;
	size_t size;
};

/**
 * struct wren_ib_ring - a queue ring in kernel memory
 * @entry: a user's ring: its mmap entry, which owns the memory
 * @buf: a kernel ring: its coherent memory
 * @dma: its DMA address
 * @size: its bytes, a multiple of PAGE_SIZE
 * @mmap_key: a user's ring: the offset the user passes to mmap()
 */
struct wren_ib_ring {
	struct wren_ib_mmap_entry *entry;
	void *buf;
	dma_addr_t dma;
	size_t size;
	u64 mmap_key;
};

/**
 * struct wren_ib_pd - a protection domain
 * @ibpd: the ib_core PD
 * @pdn: the device's PD number
 */
struct wren_ib_pd {
	struct ib_pd ibpd;
	u32 pdn;
};

/**
 * struct wren_ib_cq - a completion queue
 * @ibcq: the ib_core CQ
 * @ring: its ring of &struct wren_cqe
 * @cqn: the device's CQ number
 * @log_depth: log2 of the ring's entries
 * @resize_lock: serialises resize_cq, which ib_core lets a user call on
 *	one CQ from several threads at once, and protects @ring and
 *	@log_depth
 * @live: a user's CQ: the liveness word after its ring's entries
 *	(%WREN_IB_CQ_RESP_LIVENESS), which the fatal event clears; read
 *	under RCU there, so a resize frees the old ring only after a grace
 *	period
 * @kernel: a kernel CQ, which the driver polls (what follows is its)
 * @lock: serialises the pollers and the arming
 * @db: its doorbell
 * @ci: its consumer index, free running
 */
struct wren_ib_cq {
	struct ib_cq ibcq;
	struct wren_ib_ring ring;
	u32 cqn;
	u8 log_depth;
	struct mutex resize_lock;	/* serialises resize_cq */
	u32 __rcu *live;
	bool kernel;
	spinlock_t lock;		/* serialises polling and arming */
	void __iomem *db;
	u32 ci;
};

/**
 * struct wren_ib_kwq - a kernel QP's send or receive queue
 * @lock: serialises the posters
 * @wr_ids: the work request id of each slot
 * @db: its doorbell
 * @pi: the producer index, free running, written by the posters
 * @ci: every entry before it is finished and its slot free; advanced by
 *	the pollers of its CQ
 * @log_depth: log2 of its entries
 * @wqe_shift: its entries are the smallest's size << @wqe_shift
 * @max_sge: scatter/gather entries a work request may have
 * @max_inline: the send queue's inline bytes
 *
 * The device completes both queues of a UD or RC QP in ring order, so a
 * completion of slot s retires every slot up to s.
 */
struct wren_ib_kwq {
	spinlock_t lock;	/* serialises the posters */
	u64 *wr_ids;
	void __iomem *db;
	u32 pi;
	u32 ci;
	u8 log_depth;
	u8 wqe_shift;
	u32 max_sge;
	u32 max_inline;
};

/**
 * struct wren_ib_qp - a queue pair
 * @ibqp: the ib_core QP
 * @sq: its send ring of &struct wren_sq_wqe
 * @rq: its receive ring of &struct wren_rq_wqe (none on an SRQ)
 * @lock: serialises modify_qp and query_qp, protects what follows
 * @state: the state the last modify_qp set (the device may have moved
 *	the QP to the error state since)
 * @attr: the attributes modify_qp set since RESET, for query_qp
 * @cap: the capacities reported at creation
 * @sq_sig_type: whether every send completes
 * @kernel: a kernel QP, which the driver posts to
 * @ksq: a kernel QP's send queue
 * @krq: ... and its receive queue
 */
struct wren_ib_qp {
	struct ib_qp ibqp;
	struct wren_ib_ring sq;
	struct wren_ib_ring rq;
	struct mutex lock;	/* serialises modify and query */
	enum ib_qp_state state;
	struct ib_qp_attr attr;
	struct ib_qp_cap cap;
	enum ib_sig_type sq_sig_type;
	bool kernel;
	struct wren_ib_kwq ksq;
	struct wren_ib_kwq krq;
};

/**
 * struct wren_ib_srq - a shared receive queue
 * @ibsrq: the ib_core SRQ
 * @ring: its ring of &struct wren_rq_wqe
 * @srqn: the device's SRQ number
 * @lock: serialises modify_srq and query_srq
 * @max_wr: its depth
 * @max_sge: SGEs per receive its entries hold
 * @wqe_shift: its entries are sizeof(struct wren_rq_wqe) << @wqe_shift bytes
 */
struct wren_ib_srq {
	struct ib_srq ibsrq;
	struct wren_ib_ring ring;
	u32 srqn;
	struct mutex lock;	/* serialises modify and query */
	u32 max_wr;
	u32 max_sge;
	u8 wqe_shift;
};

/**
 * struct wren_ib_ah - an address handle
 * @ibah: the ib_core AH
 * @ahn: a user's AH: the device's AH number
 * @kernel: a kernel AH, which is @av alone: the kernel creates AHs where
 *	it may not sleep, so they do not wait for the device
 * @av: a kernel AH: the destination its sends carry (%WREN_WQE_F_AV)
 */
struct wren_ib_ah {
	struct ib_ah ibah;
	u32 ahn;
	bool kernel;
	struct wren_wqe_av av;
};

/**
 * struct wren_ib_pbl_page - one second-level page of a page list
 * @buf: its %WREN_PBL_PER_PAGE entries
 * @dma: its DMA address
 */
struct wren_ib_pbl_page {
	__le64 *buf;
	dma_addr_t dma;
};

/**
 * struct wren_ib_pbl - the page list of a memory region, as the device
 * reads it
 * @l1: the top level: the region's page addresses, or with @pages the
 *	addresses of the pages of the level below
 * @l1_dma: its DMA address
 * @l1_size: its bytes
 * @pages: the 4 KiB pages of the lower levels, leaves first, or NULL for
 *	a one-level list
 * @npages: the number of @pages
 */
struct wren_ib_pbl {
	__le64 *l1;
	dma_addr_t l1_dma;
	size_t l1_size;
	struct wren_ib_pbl_page *pages;
	u32 npages;
};

/**
 * struct wren_ib_mr - a memory region
 * @ibmr: the ib_core MR
 * @umem: the pinned user memory or dma-buf
 * @pbl: its page list
 * @access: the IB_ACCESS_* rights it was registered with
 * @max_pages: a fast-register region: the pages its page list holds
 * @npages: ... and those map_mr_sg gave it
 */
struct wren_ib_mr {
	struct ib_mr ibmr;
	struct ib_umem *umem;
	struct wren_ib_pbl pbl;
	int access;
	u32 max_pages;
	u32 npages;
};

static inline struct wren_ib_srq *to_wren_ib_srq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct wren_ib_srq, ibsrq);
}

static inline struct wren_ib_dev *to_wren_ib_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct wren_ib_dev, ibdev);
}

static inline struct wren_ib_ucontext *
to_wren_ib_ucontext(struct ib_ucontext *ibucontext)
{
	return container_of(ibucontext, struct wren_ib_ucontext, ibucontext);
}

static inline struct wren_ib_pd *to_wren_ib_pd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct wren_ib_pd, ibpd);
}

static inline struct wren_ib_cq *to_wren_ib_cq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct wren_ib_cq, ibcq);
}

static inline struct wren_ib_qp *to_wren_ib_qp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct wren_ib_qp, ibqp);
}

static inline struct wren_ib_ah *to_wren_ib_ah(struct ib_ah *ibah)
{
	return container_of(ibah, struct wren_ib_ah, ibah);
}

static inline struct wren_ib_mr *to_wren_ib_mr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct wren_ib_mr, ibmr);
}

/**
 * wren_ib_copy_req() - read a verb's request from user space
 * @udata: the verb's udata
 * @req: the request, zeroed by the caller; may be NULL if @size is 0
 * @size: its size, 0 for a verb whose udata must carry nothing
 *
 * A shorter request is read as far as it goes, the rest of @req staying
 * zero; a longer one is accepted if its extra bytes are zero.  The
 * caller then checks the request's comp_mask and reserved fields.
 *
 * Return: 0, -EOPNOTSUPP for non-zero bytes beyond @size, or -EFAULT.
 */
static inline int wren_ib_copy_req(struct ib_udata *udata, void *req,
				   size_t size)
{
	if (udata->inlen > size &&
	    !ib_is_udata_cleared(udata, size, udata->inlen - size))
		return -EOPNOTSUPP;
	if (!size)
		return 0;
	return ib_copy_from_udata(req, udata, min(size, udata->inlen));
}

/**
 * wren_ib_copy_resp() - write a verb's response to user space
 * @udata: the verb's udata
 * @resp: the response
 * @size: its size; a shorter user buffer gets the start of it
 *
 * Return: 0 or -EFAULT.
 */
static inline int wren_ib_copy_resp(struct ib_udata *udata, void *resp,
				    size_t size)
{
	return ib_copy_to_udata(udata, resp, min(size, udata->outlen));
}

/* wren_ib_verbs.c */
int wren_ib_query_device(struct ib_device *ibdev, struct ib_device_attr *props,
			 struct ib_udata *udata);
int wren_ib_query_port(struct ib_device *ibdev, u32 port,
		       struct ib_port_attr *props);
int wren_ib_query_gid(struct ib_device *ibdev, u32 port, int index,
		      union ib_gid *gid);
int wren_ib_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey);
int wren_ib_get_port_immutable(struct ib_device *ibdev, u32 port,
			       struct ib_port_immutable *immutable);
enum rdma_link_layer wren_ib_get_link_layer(struct ib_device *ibdev, u32 port);
void wren_ib_get_dev_fw_str(struct ib_device *ibdev, char *str);

/* wren_ib_kcq.c */
void wren_ib_kcq_clean(struct wren_ib_cq *cq, u32 qpn);
int wren_ib_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int wren_ib_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);

/* wren_ib_kqp.c */
void wren_ib_kqp_init(struct wren_ib_dev *dev, struct wren_ib_qp *qp,
		      const struct wren_qp_params *params,
		      const struct wren_qp_handles *h);
int wren_ib_kqp_rings(struct wren_ib_dev *dev, struct wren_ib_qp *qp,
		      const struct wren_qp_params *params);
void wren_ib_kqp_reset(struct wren_ib_qp *qp);
void wren_ib_kqp_free(struct wren_ib_qp *qp);
void wren_ib_kqp_clean(struct wren_ib_qp *qp);
int wren_ib_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		      const struct ib_send_wr **bad_wr);
int wren_ib_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr);

/* wren_ib_ucontext.c */
int wren_ib_alloc_ucontext(struct ib_ucontext *ibucontext,
			   struct ib_udata *udata);
void wren_ib_dealloc_ucontext(struct ib_ucontext *ibucontext);
void wren_ib_disassociate_ucontext(struct ib_ucontext *ibucontext);
int wren_ib_mmap(struct ib_ucontext *ibucontext, struct vm_area_struct *vma);
void wren_ib_mmap_free(struct rdma_user_mmap_entry *rdma_entry);
int wren_ib_ring_alloc(struct wren_ib_ucontext *uctx, struct wren_ib_ring *ring,
		       size_t bytes);
int wren_ib_kring_alloc(struct wren_ib_dev *dev, struct wren_ib_ring *ring,
			size_t bytes);
void wren_ib_ring_free(struct wren_ib_dev *dev, struct wren_ib_ring *ring);

/* wren_ib_pd.c */
int wren_ib_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int wren_ib_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);

/* wren_ib_cq.c */
#ifdef HAVE_CREATE_CQ_ATTRS
int wren_ib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		      struct uverbs_attr_bundle *attrs);
#else
int wren_ib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		      struct ib_udata *udata);
#endif
int wren_ib_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int wren_ib_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
void wren_ib_cq_comp(void *priv, u32 cqn);
void wren_ib_cq_error(void *priv, u32 cqn);
void wren_ib_kcq_kick(struct wren_ib_dev *dev);
void wren_ib_cq_fatal(struct wren_ib_dev *dev);
void wren_ib_kcq_wake_flush(struct ib_cq *ibcq);

/* wren_ib_event.c */
extern const struct wren_event_ops wren_ib_event_ops;

/* wren_ib_srq.c */
int wren_ib_create_srq(struct ib_srq *ibsrq,
		       struct ib_srq_init_attr *init_attr,
		       struct ib_udata *udata);
int wren_ib_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		       enum ib_srq_attr_mask attr_mask, struct ib_udata *udata);
int wren_ib_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int wren_ib_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);

/* wren_ib_qp.c */
int wren_ib_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init_attr,
		      struct ib_udata *udata);
int wren_ib_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		      int attr_mask, struct ib_udata *udata);
int wren_ib_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		     int attr_mask, struct ib_qp_init_attr *init_attr);
int wren_ib_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
u8 wren_ib_rq_wqe_shift(u32 sge);

/* wren_ib_ah.c */
int wren_ib_create_user_ah(struct ib_ah *ibah,
			   struct rdma_ah_init_attr *init_attr,
			   struct ib_udata *udata);
int wren_ib_create_kernel_ah(struct ib_ah *ibah,
			     struct rdma_ah_init_attr *init_attr,
			     struct ib_udata *udata);
int wren_ib_destroy_ah(struct ib_ah *ibah, u32 flags);

/* wren_ib_mr.c */
struct ib_mr *wren_ib_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				  u64 virt_addr, int access,
				  struct ib_udata *udata);
#ifdef HAVE_REG_DMABUF_ATTRS
struct ib_mr *wren_ib_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset,
					 u64 length, u64 virt_addr, int fd,
					 int access,
					 struct uverbs_attr_bundle *attrs);
#else
struct ib_mr *wren_ib_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset,
					 u64 length, u64 virt_addr, int fd,
					 int access, struct ib_udata *udata);
#endif
struct ib_mr *wren_ib_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				    u64 length, u64 virt_addr, int access,
				    struct ib_pd *ibpd, struct ib_udata *udata);
int wren_ib_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
struct ib_mr *wren_ib_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *wren_ib_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type mr_type,
			       u32 max_num_sg);
int wren_ib_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg,
		      int sg_nents, unsigned int *sg_offset);
u8 wren_ib_mr_access(int access);

int wren_ib_ah_dest(struct wren_ib_dev *dev, const struct rdma_ah_attr *ah_attr,
		    __be32 *ipv4);

/* wren_ib_stats.c */
struct rdma_hw_stats *wren_ib_alloc_hw_port_stats(struct ib_device *ibdev,
						  u32 port);
int wren_ib_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
			 u32 port, int index);
struct rdma_hw_stats *wren_ib_counter_alloc_stats(struct rdma_counter *counter);
int wren_ib_counter_bind_qp(struct rdma_counter *counter, struct ib_qp *ibqp);
int wren_ib_counter_unbind_qp(struct ib_qp *ibqp);
int wren_ib_counter_dealloc(struct rdma_counter *counter);
int wren_ib_counter_update_stats(struct rdma_counter *counter);

int wren_ib_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp);
int wren_ib_fill_res_qp_entry_raw(struct sk_buff *msg, struct ib_qp *ibqp);
int wren_ib_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq);
int wren_ib_fill_res_cq_entry_raw(struct sk_buff *msg, struct ib_cq *ibcq);
int wren_ib_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr);
int wren_ib_fill_res_mr_entry_raw(struct sk_buff *msg, struct ib_mr *ibmr);
#ifdef HAVE_FILL_RES_SRQ
int wren_ib_fill_res_srq_entry(struct sk_buff *msg, struct ib_srq *ibsrq);
int wren_ib_fill_res_srq_entry_raw(struct sk_buff *msg, struct ib_srq *ibsrq);
#endif

#if IS_ENABLED(CONFIG_KUNIT)
/* The request checks the suites in kunit/ reach. */
int wren_ib_qp_check(struct wren_ib_dev *dev,
		     const struct ib_qp_init_attr *init_attr,
		     const struct wren_ib_create_qp_req *req,
		     struct wren_qp_params *params);
int wren_ib_modify_qp_check(struct wren_ib_dev *dev, struct wren_ib_qp *qp,
			    const struct ib_qp_attr *attr, int attr_mask,
			    enum ib_qp_state cur_state,
			    enum ib_qp_state new_state);
int wren_ib_qps_to_wren(enum ib_qp_state state, bool rc, u8 *wren_state);
int wren_ib_cq_check(struct wren_ib_dev *dev, const struct ib_cq_init_attr *attr,
		     const struct wren_ib_create_cq_req *req, u8 *log_depth);
int wren_ib_ucontext_check(const struct wren_ib_alloc_ucontext_req *req);
int wren_ib_mr_check(struct wren_ib_dev *dev, u64 length, int access);
bool wren_ib_kcq_fill(struct wren_ib_dev *dev, const struct wren_cqe *cqe,
		      struct ib_wc *wc);
int wren_ib_kcq_flush(struct wren_ib_dev *dev, struct ib_cq *ibcq,
		      int num_entries, struct ib_wc *wc);
#endif

#endif /* _WREN_IB_H */
