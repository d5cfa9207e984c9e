// SPDX-License-Identifier: GPL-2.0
/*
 * Wren RDMA driver: address handles.  The fabric routes by IPv4 address:
 * an AH names the destination adapter by the IPv4 address in its
 * IPv4-mapped GID.  A user's AH is the device's; a kernel AH, which the
 * kernel may create where it cannot sleep, is the driver's alone and
 * travels in each send entry.
 */
#include <linux/etherdevice.h>
#include <linux/in.h>
#include <net/ipv6.h>

#include "wren_ib.h"

/* A unicast host address, as the device requires. */
static bool wren_ib_ipv4_unicast(__be32 addr)
{
	return !ipv4_is_zeronet(addr) && !ipv4_is_loopback(addr) &&
	       !ipv4_is_multicast(addr) && !ipv4_is_lbcast(addr) &&
	       (ntohl(addr) & 0xf0000000) != 0xf0000000;
}

/**
 * wren_ib_ah_dest() - the destination adapter of an AH or an RC QP's path
 * @dev: the device
 * @ah_attr: the address: a GRH whose destination GID is IPv4-mapped and
 *	whose source GID, if ib_core resolved one, is the adapter's own
 *	IPv4 address (the one address it sends from)
 * @ipv4: the IPv4 address in it, which must be a unicast host
 *
 * Return: 0 or -EINVAL.
 */
int wren_ib_ah_dest(struct wren_ib_dev *dev, const struct rdma_ah_attr *ah_attr,
		    __be32 *ipv4)
{
	const struct in6_addr *dgid, *sgid;
	const struct ib_global_route *grh;

	if (!(rdma_ah_get_ah_flags(ah_attr) & IB_AH_GRH)) {
		ibdev_dbg(&dev->ibdev, "address without a GRH\n");
		return -EINVAL;
	}
	grh = rdma_ah_read_grh(ah_attr);
	dgid = (const struct in6_addr *)grh->dgid.raw;
	if (!ipv6_addr_v4mapped(dgid)) {
		ibdev_dbg(&dev->ibdev, "GID %pI6 is not IPv4-mapped\n",
			  dgid);
		return -EINVAL;
	}
	*ipv4 = dgid->s6_addr32[3];
	if (!wren_ib_ipv4_unicast(*ipv4)) {
		ibdev_dbg(&dev->ibdev, "%pI4 is not a unicast address\n",
			  ipv4);
		return -EINVAL;
	}
	/* The adapter sends from one address, its own. */
	sgid = grh->sgid_attr ?
	       (const struct in6_addr *)grh->sgid_attr->gid.raw : NULL;
	if (sgid && (!ipv6_addr_v4mapped(sgid) ||
		     sgid->s6_addr32[3] != dev->caps->ipv4_addr)) {
		ibdev_dbg(&dev->ibdev, "source GID %pI6 (index %u) is not the adapter's address %pI4\n",
			  sgid, grh->sgid_index, &dev->caps->ipv4_addr);
		return -EINVAL;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(wren_ib_ah_dest);

/**
 * wren_ib_create_user_ah() - create an address handle for user space
 * @ibah: the AH, allocated by ib_core
 * @init_attr: its attributes: a GRH whose destination GID is IPv4-mapped
 *	(::ffff:a.b.c.d, a unicast address); sleepable creation only
 * @udata: carries no request; &struct wren_ib_create_ah_resp out
 *
 * The next hop's MAC address is not known here and the fabric does not
 * need it: the device gets a zero one.
 *
 * Return: 0, -EOPNOTSUPP for a kernel or atomic creation or a request in
 * @udata, -EINVAL without a GRH or with a destination that is not an
 * IPv4-mapped unicast address, -ENOMEM, or another negative errno.
 */
int wren_ib_create_user_ah(struct ib_ah *ibah,
			   struct rdma_ah_init_attr *init_attr,
			   struct ib_udata *udata)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(ibah->device);
	struct rdma_ah_attr *ah_attr = init_attr->ah_attr;
	struct wren_ib_pd *pd = to_wren_ib_pd(ibah->pd);
	struct wren_ib_ah *ah = to_wren_ib_ah(ibah);
	struct wren_ib_create_ah_resp resp = {};
	u8 mac[ETH_ALEN];
	__be32 ipv4;
	int err;

	if (!udata || !(init_attr->flags & RDMA_CREATE_AH_SLEEPABLE)) {
		ibdev_dbg(&dev->ibdev, "create_ah: only sleepable user AHs\n");
		return -EOPNOTSUPP;
	}
	err = wren_ib_copy_req(udata, NULL, 0);
	if (err)
		return err;
	err = wren_ib_ah_dest(dev, ah_attr, &ipv4);
	if (err)
		return err;

	eth_zero_addr(mac);
	err = wren_cmd_create_ah(dev->wdev, pd->pdn, ipv4, mac, &ah->ahn);
	if (err) {
		ibdev_err_ratelimited(&dev->ibdev,
				      "create AH to %pI4 on PD %u failed: %d\n",
				      &ipv4, pd->pdn, err);
		return err;
	}
	resp.ahn = ah->ahn;
	err = wren_ib_copy_resp(udata, &resp, sizeof(resp));
	if (err)
		goto err_destroy_ah;
	ibdev_dbg(&dev->ibdev, "AH %u: %pI4\n", ah->ahn, &ipv4);
	return 0;

err_destroy_ah:
	wren_cmd_destroy_ah(dev->wdev, ah->ahn);
	return err;
}

/**
 * wren_ib_create_kernel_ah() - create an address handle for the kernel
 * @ibah: the AH, allocated by ib_core
 * @init_attr: its attributes: a GRH whose destination GID is IPv4-mapped
 *	(::ffff:a.b.c.d, a unicast address), and the next hop's MAC; in
 *	atomic context too
 * @udata: NULL
 *
 * Return: 0, or -EINVAL without a GRH or with a destination that is not
 * an IPv4-mapped unicast address.
 */
int wren_ib_create_kernel_ah(struct ib_ah *ibah,
			     struct rdma_ah_init_attr *init_attr,
			     struct ib_udata *udata)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(ibah->device);
	struct rdma_ah_attr *ah_attr = init_attr->ah_attr;
	struct wren_ib_ah *ah = to_wren_ib_ah(ibah);
	int err;

	err = wren_ib_ah_dest(dev, ah_attr, &ah->av.ipv4);
	if (err)
		return err;
	if (is_multicast_ether_addr(ah_attr->roce.dmac)) {
		ibdev_dbg(&dev->ibdev, "create_ah: next hop %pM is not unicast\n",
			  ah_attr->roce.dmac);
		return -EINVAL;
	}
	ether_addr_copy(ah->av.mac, ah_attr->roce.dmac);
	ah->kernel = true;
	return 0;
}

/**
 * wren_ib_destroy_ah() - destroy an address handle
 * @ibah: the AH
 * @flags: a user's AH: must include %RDMA_DESTROY_AH_SLEEPABLE, as it
 *	does for every one
 *
 * Should the device fail to destroy a user's AH, the failure is logged
 * and ib_core's object goes all the same.
 *
 * Return: 0, or -EOPNOTSUPP for a user's AH in atomic context.
 */
int wren_ib_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(ibah->device);
	struct wren_ib_ah *ah = to_wren_ib_ah(ibah);
	int err;

	if (ah->kernel)
		return 0;
	if (!(flags & RDMA_DESTROY_AH_SLEEPABLE)) {
		ibdev_dbg(&dev->ibdev, "destroy_ah %u: not sleepable\n",
			  ah->ahn);
		return -EOPNOTSUPP;
	}
	err = wren_cmd_destroy_ah(dev->wdev, ah->ahn);
	if (err)
		ibdev_err_ratelimited(&dev->ibdev, "destroy AH %u failed: %d\n",
				      ah->ahn, err);
	return 0;
}
