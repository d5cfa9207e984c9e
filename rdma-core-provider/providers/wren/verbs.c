// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * libwren's control-path verbs for the objects without a data path of
 * their own: device and port queries, protection domains, thread and
 * parent domains, memory regions, address handles.  Every attribute comes
 * from the kernel, which has it from the device; nothing here is a
 * constant of the provider.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wren.h"
#include "verbs.h"

/*
 * The kernel reports the firmware version as major [47:32], minor [31:16]
 * and patch [15:0]; print it the way the kernel's sysfs fw_ver does.
 */
static void wren_format_fw_ver(char *buf, size_t len, uint64_t raw)
{
	snprintf(buf, len, "%u.%u.%u", (unsigned int)(raw >> 32) & 0xffff,
		 (unsigned int)(raw >> 16) & 0xffff,
		 (unsigned int)raw & 0xffff);
}

int wren_query_device_ex(struct ibv_context *ibvctx,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp = {};
	size_t resp_size = sizeof(resp);
	int err;

	err = ibv_cmd_query_device_any(ibvctx, input, attr, attr_size, &resp,
				       &resp_size);
	if (err) {
		verbs_err(verbs_get_ctx(ibvctx), "query_device failed: %s\n",
			  strerror(err));
		return err;
	}

	wren_format_fw_ver(attr->orig_attr.fw_ver,
			   sizeof(attr->orig_attr.fw_ver), resp.base.fw_ver);
	return 0;
}

int wren_query_port(struct ibv_context *ibvctx, uint8_t port,
		    struct ibv_port_attr *port_attr)
{
	struct ibv_query_port cmd;

	return ibv_cmd_query_port(ibvctx, port, port_attr, &cmd, sizeof(cmd));
}

struct ibv_pd *wren_alloc_pd(struct ibv_context *ibvctx)
{
	struct wren_alloc_pd_resp resp = {};
	struct ibv_alloc_pd cmd;
	struct wren_pd *pd;
	int err;

	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}

	err = ibv_cmd_alloc_pd(ibvctx, &pd->ibvpd, &cmd, sizeof(cmd),
			       &resp.ibv_resp, sizeof(resp));
	if (err) {
		verbs_err(verbs_get_ctx(ibvctx), "alloc_pd failed: %s\n",
			  strerror(err));
		free(pd);
		errno = err;
		return NULL;
	}

	pd->pdn = resp.pdn;
	verbs_debug(verbs_get_ctx(ibvctx), "pd %u allocated\n", pd->pdn);
	return &pd->ibvpd;
}

/* A parent domain is the provider's alone: the kernel never saw it. */
static int wren_dealloc_parent_domain(struct wren_pd *parent)
{
	if (atomic_load(&parent->refcount))
		return EBUSY;

	atomic_fetch_sub(&parent->contained_pd->refcount, 1);
	if (parent->td)
		atomic_fetch_sub(&parent->td->refcount, 1);
	free(parent);
	return 0;
}

int wren_dealloc_pd(struct ibv_pd *ibvpd)
{
	struct wren_pd *pd = to_wren_pd(ibvpd);
	int err;

	if (pd->contained_pd)
		return wren_dealloc_parent_domain(pd);

	/* Parent domains still wrap it; the kernel cannot know. */
	if (atomic_load(&pd->refcount))
		return EBUSY;

	err = ibv_cmd_dealloc_pd(ibvpd);
	if (err) {
		verbs_err(verbs_get_ctx(ibvpd->context),
			  "dealloc_pd %u failed: %s\n", pd->pdn, strerror(err));
		return err;
	}

	free(pd);
	return 0;
}

/*
 * A thread domain has no device side: it only tells libwren that objects
 * created under it (through a parent domain) are used by one thread at a
 * time, so their locks can go.
 */
struct ibv_td *wren_alloc_td(struct ibv_context *ibvctx,
			     struct ibv_td_init_attr *attr)
{
	struct wren_td *td;

	if (attr->comp_mask) {
		errno = EOPNOTSUPP;
		return NULL;
	}

	td = calloc(1, sizeof(*td));
	if (!td) {
		errno = ENOMEM;
		return NULL;
	}
	td->ibvtd.context = ibvctx;
	atomic_init(&td->refcount, 0);
	return &td->ibvtd;
}

int wren_dealloc_td(struct ibv_td *ibvtd)
{
	struct wren_td *td = to_wren_td(ibvtd);

	if (atomic_load(&td->refcount))
		return EBUSY;
	free(td);
	return 0;
}

/*
 * A parent domain: a protection domain plus, optionally, a thread domain
 * (whose objects go without locks) and custom allocators.  libwren accepts
 * the allocators but never calls them: every ring the device reads is
 * allocated by the kernel and mapped, and nothing libwren allocates itself
 * is seen by the device.
 */
struct ibv_pd *wren_alloc_parent_domain(struct ibv_context *ibvctx,
					struct ibv_parent_domain_init_attr *attr)
{
	struct wren_pd *parent, *pd;

	if (ibv_check_alloc_parent_domain(attr))
		return NULL;

	if (!check_comp_mask(attr->comp_mask,
			     IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
			     IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)) {
		errno = EOPNOTSUPP;
		return NULL;
	}

	pd = to_wren_pd(attr->pd);
	if (attr->pd->context != ibvctx || pd->contained_pd ||
	    (attr->td && attr->td->context != ibvctx)) {
		errno = EINVAL;
		return NULL;
	}

	parent = calloc(1, sizeof(*parent));
	if (!parent) {
		errno = ENOMEM;
		return NULL;
	}

	ibv_initialize_parent_domain(&parent->ibvpd, &pd->ibvpd);
	parent->pdn = pd->pdn;
	parent->contained_pd = pd;
	atomic_init(&parent->refcount, 0);
	atomic_fetch_add(&pd->refcount, 1);
	if (attr->td) {
		parent->td = to_wren_td(attr->td);
		atomic_fetch_add(&parent->td->refcount, 1);
	}
	return &parent->ibvpd;
}

struct ibv_mr *wren_reg_mr(struct ibv_pd *ibvpd, void *addr, size_t length,
			   uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp;
	struct ibv_reg_mr cmd;
	struct verbs_mr *vmr;
	int err;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr) {
		errno = ENOMEM;
		return NULL;
	}

	err = ibv_cmd_reg_mr(ibvpd, addr, length, hca_va, access, vmr, &cmd,
			     sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		verbs_debug(verbs_get_ctx(ibvpd->context),
			    "reg_mr of %zu bytes failed: %s\n", length,
			    strerror(err));
		free(vmr);
		errno = err;
		return NULL;
	}
	return &vmr->ibv_mr;
}

struct ibv_mr *wren_reg_dmabuf_mr(struct ibv_pd *ibvpd, uint64_t offset,
				  size_t length, uint64_t iova, int fd,
				  int access)
{
	struct verbs_mr *vmr;
	int err;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr) {
		errno = ENOMEM;
		return NULL;
	}

#ifdef WREN_REG_DMABUF_MR_HAS_DRIVER
	err = ibv_cmd_reg_dmabuf_mr(ibvpd, offset, length, iova, fd, access,
				    vmr, NULL);
#else
	err = ibv_cmd_reg_dmabuf_mr(ibvpd, offset, length, iova, fd, access,
				    vmr);
#endif
	if (err) {
		verbs_debug(verbs_get_ctx(ibvpd->context),
			    "reg_dmabuf_mr of %zu bytes failed: %s\n", length,
			    strerror(err));
		free(vmr);
		errno = err;
		return NULL;
	}
	return &vmr->ibv_mr;
}

/*
 * The kernel registers a new region with what changes and what stays:
 * the MR gets new keys, and the old ones reach nothing any more.
 */
int wren_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *ibvpd,
		  void *addr, size_t length, int access)
{
	struct ib_uverbs_rereg_mr_resp resp;
	struct ibv_rereg_mr cmd;
	int err;

	err = ibv_cmd_rereg_mr(vmr, flags, addr, length, (uintptr_t)addr,
			       access, ibvpd, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (err)
		verbs_debug(verbs_get_ctx(vmr->ibv_mr.context),
			    "rereg_mr %#x (flags %#x) failed: %s\n",
			    vmr->ibv_mr.lkey, flags, strerror(err));
	return err;
}

int wren_dereg_mr(struct verbs_mr *vmr)
{
	int err;

	err = ibv_cmd_dereg_mr(vmr);
	if (err) {
		verbs_err(verbs_get_ctx(vmr->ibv_mr.context),
			  "dereg_mr %#x failed: %s\n", vmr->ibv_mr.lkey,
			  strerror(err));
		return err;
	}
	free(vmr);
	return 0;
}

/* The IPv4 address of an IPv4-mapped GID (::ffff:a.b.c.d), else 0. */
static uint32_t wren_gid_ipv4(const union ibv_gid *gid)
{
	static const uint8_t v4_mapped_prefix[12] = {
		[10] = 0xff, [11] = 0xff,
	};
	uint32_t ipv4;

	if (memcmp(gid->raw, v4_mapped_prefix, sizeof(v4_mapped_prefix)) != 0)
		return 0;
	memcpy(&ipv4, &gid->raw[12], sizeof(ipv4));
	return ipv4;
}

/*
 * Wren addresses adapters by GID, as RoCE does: an address handle without
 * a GRH names nothing.  The kernel resolves the GID and returns the
 * device's AH number, which every send work request carries.
 */
struct ibv_ah *wren_create_ah(struct ibv_pd *ibvpd, struct ibv_ah_attr *attr)
{
	struct wren_create_ah_resp resp = {};
	struct wren_ah *ah;
	int err;

	if (!attr->is_global) {
		verbs_debug(verbs_get_ctx(ibvpd->context),
			    "create_ah: an AH needs a GRH (is_global)\n");
		errno = EINVAL;
		return NULL;
	}

	ah = calloc(1, sizeof(*ah));
	if (!ah) {
		errno = ENOMEM;
		return NULL;
	}

	err = ibv_cmd_create_ah(ibvpd, &ah->ibvah, attr, &resp.ibv_resp,
				sizeof(resp));
	if (err) {
		verbs_debug(verbs_get_ctx(ibvpd->context),
			    "create_ah failed: %s\n", strerror(err));
		free(ah);
		errno = err;
		return NULL;
	}

	ah->ahn = resp.ahn;
	ah->ipv4 = wren_gid_ipv4(&attr->grh.dgid);
	verbs_debug(verbs_get_ctx(ibvpd->context), "ah %u created\n", ah->ahn);
	return &ah->ibvah;
}

int wren_destroy_ah(struct ibv_ah *ibvah)
{
	struct wren_ah *ah = to_wren_ah(ibvah);
	int err;

	err = ibv_cmd_destroy_ah(ibvah);
	if (err) {
		verbs_err(verbs_get_ctx(ibvah->context),
			  "destroy_ah %u failed: %s\n", ah->ahn, strerror(err));
		return err;
	}
	free(ah);
	return 0;
}
