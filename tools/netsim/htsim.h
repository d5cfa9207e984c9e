/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The file formats of the Ultra Ethernet consortium's public htsim
 * simulator, so that a scenario from that literature replays unchanged:
 * its fat-tree topology files (.topo: nodes, tiers, pod size, and per
 * tier link speed, latency, radices, over-subscription, bundles, switch
 * latency and queue sizes) and its connection matrices (.cm: flows
 * "src->dst" with a size and a start time or a trigger, and failed
 * links).  README.rst,
 * "htsim's files", says what each field means here.
 */
#ifndef NETSIM_HTSIM_H
#define NETSIM_HTSIM_H

#include <stdint.h>

#define HT_TIERS	3

/* A .topo file, checked, with what it implies. */
struct ht_topo {
	uint32_t nodes, tiers, podsize;
	/* Per tier (0 ToR, 1 aggregation, 2 core), of its downlinks. */
	uint32_t speed_mbps[HT_TIERS];
	uint64_t link_ps[HT_TIERS];	/* propagation */
	uint64_t switch_ps[HT_TIERS];	/* added by the switch */
	uint32_t radix_up[HT_TIERS], radix_down[HT_TIERS];
	uint32_t oversub[HT_TIERS], bundle[HT_TIERS];
	uint32_t queue_up[HT_TIERS], queue_down[HT_TIERS];	/* 0: sw.buffer */
	/* Derived. */
	uint32_t pods, tors_per_pod, aggs_per_pod;
	uint32_t ntor, nagg, ncore;
};

/* Read and check @path; -1 after printing "path:line: why". */
int ht_topo_load(const char *path, struct ht_topo *t);

enum ht_trig_kind { HT_TRIG_NONE, HT_TRIG_ONESHOT, HT_TRIG_MULTISHOT,
		    HT_TRIG_BARRIER };

struct ht_conn {
	uint32_t src, dst;
	uint32_t id;		/* 0: none given */
	uint64_t size;
	uint64_t start_ps;	/* when not triggered */
	uint32_t trigger;	/* starts when this fires (0: at start_ps) */
	uint32_t send_done;	/* activates this when sent (0: none) */
	uint32_t recv_done;	/* ... when received whole */
};

struct ht_trig {
	uint32_t id;
	enum ht_trig_kind kind;
	uint32_t count;		/* barrier: activations needed */
	/* Run time. */
	uint32_t fired;		/* activations so far */
	uint32_t next;		/* multishot: next target, in file order */
};

/* A failed link: aggregation switch @agg's @link-th uplink (its first,
 * in a bundle), gone from the start. */
struct ht_fail {
	uint32_t agg, link;
};

struct ht_cm {
	uint32_t nodes;
	struct ht_conn *conns;
	uint32_t nconns;
	struct ht_trig *trigs;
	uint32_t ntrigs;
	struct ht_fail *fails;
	uint32_t nfails;
};

/* Read and check @path; -1 after printing "path:line: why". */
int ht_cm_load(const char *path, struct ht_cm *cm);
void ht_cm_free(struct ht_cm *cm);
/* The trigger of id @id, or NULL. */
struct ht_trig *ht_trig_find(struct ht_cm *cm, uint32_t id);

#endif /* NETSIM_HTSIM_H */
