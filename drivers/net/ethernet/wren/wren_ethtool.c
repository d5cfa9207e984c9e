// SPDX-License-Identifier: GPL-2.0
/*
 * Wren network interface: ethtool.  Driver and firmware, link speed from
 * the device, ring sizes, and the Ethernet function's counters as the
 * device keeps them (from the one list of linux/wren/wren_stats.h).
 */
#include <linux/ethtool.h>
#include <linux/wren/wren_if.h>

#include "wren_dev.h"
#include "wren_eth.h"

/* Each counter's name, and where it is in GET_STATS's array. */
static const struct {
	char name[ETH_GSTRING_LEN];
	u16 index;
} wren_ethtool_stats[] = {
#define WREN_ETH_STAT(counter)	{ #counter, WREN_STAT_##counter },
#include <linux/wren/wren_stats.h>
#undef WREN_ETH_STAT
};

#define WREN_ETHTOOL_NSTATS	ARRAY_SIZE(wren_ethtool_stats)

static void wren_ethtool_get_drvinfo(struct net_device *ndev,
				     struct ethtool_drvinfo *info)
{
	struct wren_eth *eth = netdev_priv(ndev);
	const struct wren_caps *c = &eth->wdev->caps;

	strscpy(info->driver, WREN_DRV_NAME, sizeof(info->driver));
	strscpy(info->bus_info, pci_name(eth->wdev->pdev),
		sizeof(info->bus_info));
	snprintf(info->fw_version, sizeof(info->fw_version), "%u.%u.%u",
		 c->fw_major, c->fw_minor, c->fw_patch);
}

static int wren_ethtool_get_link_ksettings(struct net_device *ndev,
					   struct ethtool_link_ksettings *ks)
{
	struct wren_eth *eth = netdev_priv(ndev);

	ethtool_link_ksettings_zero_link_mode(ks, supported);
	ethtool_link_ksettings_zero_link_mode(ks, advertising);
	ks->base.speed = netif_carrier_ok(ndev) ?
			 eth->wdev->caps.link_speed_mbps : SPEED_UNKNOWN;
	ks->base.duplex = netif_carrier_ok(ndev) ? DUPLEX_FULL :
						    DUPLEX_UNKNOWN;
	ks->base.port = PORT_OTHER;
	ks->base.autoneg = AUTONEG_DISABLE;
	return 0;
}

static void wren_ethtool_get_ringparam(struct net_device *ndev,
				       struct ethtool_ringparam *ring,
				       struct kernel_ethtool_ringparam *kring,
				       struct netlink_ext_ack *extack)
{
	ring->rx_max_pending = BIT(WREN_ETH_RQ_LOG);
	ring->tx_max_pending = BIT(WREN_ETH_SQ_LOG);
	ring->rx_pending = BIT(WREN_ETH_RQ_LOG);
	ring->tx_pending = BIT(WREN_ETH_SQ_LOG);
}

static int wren_ethtool_get_sset_count(struct net_device *ndev, int sset)
{
	return sset == ETH_SS_STATS ? WREN_ETHTOOL_NSTATS : -EOPNOTSUPP;
}

static void wren_ethtool_get_strings(struct net_device *ndev, u32 sset,
				     u8 *data)
{
	unsigned int i;

	if (sset != ETH_SS_STATS)
		return;
	for (i = 0; i < WREN_ETHTOOL_NSTATS; i++)
		memcpy(data + i * ETH_GSTRING_LEN, wren_ethtool_stats[i].name,
		       ETH_GSTRING_LEN);
}

static void wren_ethtool_get_stats(struct net_device *ndev,
				   struct ethtool_stats *stats, u64 *data)
{
	struct wren_eth *eth = netdev_priv(ndev);
	u64 *vals;
	int n, i;

	vals = kcalloc(WREN_STAT_COUNT, sizeof(*vals), GFP_KERNEL);
	n = vals ? wren_cmd_get_stats(eth->wdev, vals, WREN_STAT_COUNT) :
		   -ENOMEM;
	for (i = 0; i < WREN_ETHTOOL_NSTATS; i++)
		data[i] = n > wren_ethtool_stats[i].index ?
			  vals[wren_ethtool_stats[i].index] : 0;
	if (n < 0 && net_ratelimit())
		netdev_err(ndev, "reading the device's counters failed: %d\n", n);
	kfree(vals);
}

static const struct ethtool_ops wren_ethtool_ops = {
	.get_drvinfo = wren_ethtool_get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_link_ksettings = wren_ethtool_get_link_ksettings,
	.get_ringparam = wren_ethtool_get_ringparam,
	.get_sset_count = wren_ethtool_get_sset_count,
	.get_strings = wren_ethtool_get_strings,
	.get_ethtool_stats = wren_ethtool_get_stats,
};

/**
 * wren_ethtool_set_ops() - give the network interface its ethtool operations
 * @ndev: the interface
 */
void wren_ethtool_set_ops(struct net_device *ndev)
{
	ndev->ethtool_ops = &wren_ethtool_ops;
}
