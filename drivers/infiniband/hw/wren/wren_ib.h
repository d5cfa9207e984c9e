/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Wren RDMA driver: private state shared by its files.
 */
#ifndef _WREN_IB_H
#define _WREN_IB_H

#include <linux/wren/wren_core.h>
#include <rdma/ib_verbs.h>
#include <rdma/wren-abi.h>

/**
 * struct wren_ib_dev - one registered RDMA device
 * @ibdev: the ib_core device
 * @wdev: the core device it sits on
 * @pdev: the PCI function, for its ids
 * @caps: the device's attributes
 */
struct wren_ib_dev {
	struct ib_device ibdev;
	struct wren_dev *wdev;
	struct pci_dev *pdev;
	const struct wren_caps *caps;
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
 * struct wren_ib_mmap_entry - something a user context may mmap
 * @rdma_entry: the ib_core entry (offset and length)
 * @address: bus address of what is mapped
 */
struct wren_ib_mmap_entry {
	struct rdma_user_mmap_entry rdma_entry;
	phys_addr_t address;
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

/* Completion queues and queue pairs come with the data path. */
struct wren_ib_cq {
	struct ib_cq ibcq;
};

struct wren_ib_qp {
	struct ib_qp ibqp;
};

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

/* wren_ib_ucontext.c */
int wren_ib_alloc_ucontext(struct ib_ucontext *ibucontext,
			   struct ib_udata *udata);
void wren_ib_dealloc_ucontext(struct ib_ucontext *ibucontext);
int wren_ib_mmap(struct ib_ucontext *ibucontext, struct vm_area_struct *vma);
void wren_ib_mmap_free(struct rdma_user_mmap_entry *rdma_entry);

/* wren_ib_pd.c */
int wren_ib_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int wren_ib_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);

/* wren_ib_unsupported.c */
#ifdef HAVE_CREATE_CQ_ATTRS
int wren_ib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		      struct uverbs_attr_bundle *attrs);
#else
int wren_ib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		      struct ib_udata *udata);
#endif
int wren_ib_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int wren_ib_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int wren_ib_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
int wren_ib_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init_attr,
		      struct ib_udata *udata);
int wren_ib_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		      int attr_mask, struct ib_udata *udata);
int wren_ib_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int wren_ib_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		      const struct ib_send_wr **bad_wr);
int wren_ib_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr);
struct ib_mr *wren_ib_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *wren_ib_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				  u64 virt_addr, int access,
				  struct ib_udata *udata);
int wren_ib_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);

#endif /* _WREN_IB_H */
