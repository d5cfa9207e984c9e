// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * libwren's control-path verbs: device and port queries, protection
 * domains.  Every attribute comes from the kernel, which has it from the
 * device; nothing here is a constant of the provider.
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

int wren_dealloc_pd(struct ibv_pd *ibvpd)
{
	struct wren_pd *pd = to_wren_pd(ibvpd);
	int err;

	err = ibv_cmd_dealloc_pd(ibvpd);
	if (err) {
		verbs_err(verbs_get_ctx(ibvpd->context),
			  "dealloc_pd %u failed: %s\n", pd->pdn, strerror(err));
		return err;
	}

	free(pd);
	return 0;
}
