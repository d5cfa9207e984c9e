/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A run's parameters.  Scenario files are INI-like: a [scenario] section
 * of base keys and [run NAME] sections that override them; --set overrides
 * both.  Every key is in one table (scenario.c) with its type and default.
 */
#ifndef NETSIM_SCENARIO_H
#define NETSIM_SCENARIO_H

#include <stdbool.h>
#include <stdint.h>

#include "wren_tp.h"
#include "htsim.h"

enum topo_kind {
	TOPO_BACK2BACK, TOPO_PARALLEL, TOPO_LEAFSPINE, TOPO_STAR, TOPO_FATTREE,
	TOPO_HTSIM
};
enum app_kind {
	APP_STREAM, APP_INCAST, APP_PERMUTATION, APP_ROUNDROBIN, APP_PINGPONG,
	APP_OPENLOOP, APP_MATRIX
};
enum xport_kind { XP_WREN, XP_GBN, XP_NDP, XP_UET };

#define MAX_PATHS	16
#define NO_TIME		UINT64_MAX

/* Link impairments; per link or for every link. */
struct imp {
	double loss;		/* iid drop probability */
	double p_gb;		/* Gilbert-Elliott: good -> bad per packet */
	double p_bg;		/* bad -> good */
	double bad_loss;	/* drop probability in the bad state */
	double dup;		/* duplication probability */
	uint64_t extra_ps;	/* added propagation delay */
	uint64_t down_ps;	/* black hole from (NO_TIME: never) */
	uint64_t up_ps;		/* ... until (NO_TIME: for ever) */
	/* link.NAME.rate, link.NAME.delay: the link's own (0: as built) */
	uint32_t rate_mbps;
	uint64_t delay_ps;
};

struct link_override {
	char name[32];
	struct imp imp;
	const char *where;	/* file:line, for "no such link" */
};

enum gbn_cc { GBN_CC_AIMD, GBN_CC_DCQCN, GBN_CC_SWIFT };
enum gbn_recovery { GBN_REC_GBN, GBN_REC_IRN };

/* IRN's bitmaps: packets a flow may have outstanding, at most. */
#define IRN_RING	1024

struct gbn_config {
	enum gbn_cc cc;		/* AIMD window or DCQCN rate */
	enum gbn_recovery recovery;	/* go-back-N or IRN */
	uint32_t bdp_cap;	/* IRN: packets outstanding at most */
	uint64_t rto_low_ns;	/* IRN: timeout with few outstanding */
	uint32_t rto_low_n;	/* IRN: ... at most this many */
	uint32_t window;	/* bytes in flight at most */
	uint32_t min_window;	/* AIMD floor */
	uint32_t ai;		/* bytes per window acknowledged */
	uint32_t md;		/* decrease on ECN, 1/256 of the window */
	uint32_t ack_every;	/* packets per cumulative ack */
	uint64_t rto_ns;	/* no progress for this long: go back */
	/* DCQCN (gbn.cc = dcqcn): README.rst cites each value. */
	double g;		/* alpha's gain */
	uint64_t cnp_ns;	/* NP: at most one CNP a flow per this */
	uint64_t alpha_ns;	/* RP: alpha decays after this without CNP */
	uint64_t rate_ns;	/* RP: rate-increase timer */
	uint64_t byte_counter;	/* RP: a rate increase per this many bytes */
	uint32_t fast_recovery;	/* RP: F, steps of fast recovery */
	uint32_t rai_mbps;	/* RP: additive increase */
	uint32_t rhai_mbps;	/* RP: hyper increase */
	uint32_t min_rate_mbps;	/* RP: floor of the rate */
	/* Swift (gbn.cc = swift, with gbn.recovery = irn): README.rst. */
	uint64_t sw_target_ns;	/* base target delay */
	uint64_t sw_fs_range_ns;	/* flow scaling: most added to it */
	double sw_fs_min, sw_fs_max;	/* ... from this window (packets) down */
	double sw_ai;		/* packets a window of ACKs adds */
	double sw_beta;		/* decrease per unit of excess delay */
	double sw_max_mdf;	/* largest decrease at once */
	double sw_init;		/* first window, packets */
};

/* NDP (transport = ndp): README.rst, "Peers". */
struct ndp_config {
	uint32_t iw;		/* packets sent unasked by an idle flow */
	uint64_t rto_ns;	/* no ACK or NACK this long: resend */
};

/* Ultra Ethernet's transport (transport = uet): README.rst, "Peers". */
struct uet_config {
	bool nscc;		/* sender-side congestion window */
	bool rccc;		/* receiver credits */
	uint32_t evs;		/* entropies sprayed over, a power of 2 */
	uint64_t rtt_ns;	/* network RTT (0: each PDC's unloaded one) */
	uint64_t target_ns;	/* NSCC's target delay (0: from the RTT) */
	uint64_t rto_ns;	/* retransmission timeout (0: from sw.buffer) */
	uint32_t ack_bytes;	/* ACK at least every this many bytes */
	uint32_t pull_bytes;	/* credit a PULL grants at most */
	double maxwnd;		/* window and credit bound, in BDPs */
};

struct cfg {
	uint64_t seed;
	enum topo_kind topo;
	uint32_t hosts;			/* star */
	uint32_t leaves, hosts_per_leaf, spines;
	/* 3-tier k-ary fat tree: k, over-subscription of edge and aggregation */
	uint32_t ft_k;
	double ft_os_edge, ft_os_agg;
	/* topology = htsim: htsim's topology file, as read (htsim.h) */
	char htsim_topo[256];
	struct ht_topo ht;
	uint32_t paths;			/* parallel */
	uint64_t path_delay_ps[MAX_PATHS];
	uint32_t npath_delay;
	uint32_t rate_mbps;		/* host links */
	uint32_t fabric_rate_mbps;	/* switch to switch (0: rate) */
	uint64_t delay_ps;		/* propagation per link */
	uint32_t mtu;

	uint32_t sw_buffer;		/* bytes per egress port */
	uint32_t sw_ecn;		/* mark above this many bytes, 0: off */
	bool sw_trim;
	uint32_t sw_hdr_buffer;		/* priority queue, bytes */
	bool sw_prio_ctrl;		/* control packets ahead of data */
	bool sw_prio_data;		/* data queued by IP precedence */
	bool sw_ecn_downlink;		/* ports into hosts mark too */
	/* RED-style ECN (DCQCN's CP) when sw_kmax: mark with probability
	 * rising from 0 at kmin to pmax at kmax, always above. */
	uint32_t sw_kmin, sw_kmax;
	double sw_pmax;
	/* PFC: lossless data classes, XOFF/XON per ingress queue, headroom
	 * above XOFF (0: the link's PAUSE round trip, a frame each end). */
	bool sw_pfc;
	uint32_t sw_pfc_xoff, sw_pfc_xon, sw_pfc_headroom;
	/* Time-weighted data queue length of every switch port over
	 * [warmup, duration], in buckets of this many bytes (0: off). */
	uint32_t sw_qhist;

	struct imp imp;			/* every link */
	struct link_override *lo;
	uint32_t nlo;

	enum xport_kind xport;
	struct wren_tp_config tp;	/* hosts that post messages */
	struct wren_tp_config rxtp;	/* hosts that only receive */
	struct gbn_config gbn;
	struct ndp_config ndp;
	struct uet_config uet;

	enum app_kind app;
	uint32_t msg_size;
	uint32_t outstanding;
	uint64_t msgs;			/* per flow; 0: until duration */
	uint32_t flows;			/* stream: flows host 0 -> host 1 */
	uint32_t senders;		/* incast fan-in */
	uint32_t peers;			/* roundrobin */
	uint32_t rounds;
	double load;			/* openloop: of each host link */
	char cdf[256];			/* openloop: flow-size distribution */
	char htsim_cm[256];		/* matrix: htsim's connection matrix */
	uint8_t mode;			/* enum wren_tp_mode */
	bool ordered;
	uint64_t duration_ps;		/* stop posting (0: after msgs) */
	uint64_t warmup_ps;		/* measurement starts */
	uint64_t drain_ps;		/* idle time simulated after the app */
	uint64_t max_time_ps;		/* give up: the run fails */
	uint64_t bin_ps;		/* goodput time series */
	double recover_pct;		/* recovery: % of pre-failure goodput */
	/* Failed or unfinished messages are the expected outcome. */
	bool allow_stall;
	/* Wall-clock seconds before a run is declared hung (0: never). */
	uint32_t wall_limit;
};

/* One key=value with where it was set. */
struct kv {
	char *key;
	char *val;
	char *where;
};

struct kvlist {
	struct kv *v;
	uint32_t n, cap;
};

struct scenario {
	const char *path;
	struct kvlist base;
	uint32_t nruns;
	char **run_names;
	struct kvlist *runs;
};

/* Parse @path; prints file:line errors and returns -1 on any. */
int scenario_load(struct scenario *sc, const char *path);
void scenario_free(struct scenario *sc);

void kv_set(struct kvlist *l, const char *key, const char *val,
	    const char *where);
void kv_free(struct kvlist *l);

/*
 * Build a run's config from the base keys, then @run's, then @sets.  The
 * merged list (every key the run set, in table order) goes to @merged for
 * the report.  Returns -1 after printing an error.
 */
int cfg_build(struct cfg *c, const struct kvlist *base,
	      const struct kvlist *run, const struct kvlist *sets,
	      struct kvlist *merged);
void cfg_free(struct cfg *c);

/* Parse helpers, shared with the self-test. */
int parse_time_ps(const char *s, uint64_t *ps);
int parse_size(const char *s, uint64_t *v);

#endif /* NETSIM_SCENARIO_H */
