/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Traffic generators: the upper layer of every host's transport.  They
 * post messages, fill them with a pattern that names the flow, message
 * and offset, check every byte that arrives, check that every message
 * completes exactly once, and record what the report needs.
 */
#ifndef NETSIM_APP_H
#define NETSIM_APP_H

#include <stddef.h>
#include <stdint.h>

#include "htsim.h"
#include "net.h"

struct flow {
	uint32_t src, dst;
	uint32_t next_msn;		/* posted so far */
	uint32_t limit;			/* messages to post at most */
	uint32_t inflight;
	uint32_t tx_ok, rx_ok;
	bool done, blocked;
	uint32_t rx_base;		/* every msn below has arrived */
	uint32_t nwords;		/* arrival bitmap beyond rx_base */
	uint64_t *bits;
	uint64_t rx_bytes_meas;
	uint64_t post_ps;		/* pingpong: the ping's post time */
	uint64_t rx_done_ps;		/* its last message arrived whole */
	/* matrix: one message of @size; @held until its start or trigger */
	uint32_t size;
	bool held;
	uint64_t tx_done_ps;		/* its last message was acknowledged */
};

/* matrix: a flow's start, at its time or when its trigger fires. */
struct mx_start {
	struct sim_ev ev;
	struct net *net;
	uint32_t flow;
};

/* A growable array of latencies in ns. */
struct lat {
	uint32_t *v;
	size_t n, cap;
};

struct app {
	struct net *net;
	const struct cfg *c;
	struct flow *flows;
	uint32_t nflows, active;
	uint32_t outstanding;
	bool closing;
	bool finished;
	uint64_t finish_ps;		/* the last message completed */
	struct sim_ev stopev;		/* duration: stop posting */
	struct sim_ev endev;		/* finished + drain: stop */

	/* message records, by cookie */
	struct msgrec *tx;
	uint32_t ntx, tx_free;
	struct rxrec *rx;
	uint32_t nrx, rx_free;

	/* roundrobin: one sender, a window over all peers */
	uint64_t rr_next, rr_total;
	uint32_t rr_inflight;

	/* measurement */
	uint64_t meas_bytes, meas_msgs;
	uint64_t *bins;
	uint32_t nbins;
	struct lat lat, lat_first, lat_warm;
	uint64_t first_rx_ps, last_rx_ps;
	uint64_t total_rx_bytes;
	size_t ctx_mem_peak;

	/* openloop: Poisson arrivals of sizes from a CDF, any to any */
	struct rng arr_rng;
	double *cdf_size, *cdf_pct;	/* bytes, cumulative percent */
	uint32_t cdf_n;
	double mean_size, gap_ps;	/* per host: mean time between */
	struct arrival *arr;		/* one per host */
	uint64_t ol_live;		/* messages posted, not done */
	uint64_t ol_posted_bytes;	/* before duration, all hosts */
	uint32_t max_len;
	/* slowdown x 1000 per size bucket (FCT_BUCKETS) and all */
	struct lat sd[5], fct[5];

	/* matrix: htsim's connection matrix, a flow per connection */
	struct ht_cm cm;
	struct mx_start *mx;

	/* integrity: all must stay 0 */
	uint64_t bad_bytes, dup_msgs, missing_msgs, tx_errors, rx_errors;
	uint64_t unexpected;
};

/* openloop's size buckets: < 100 KB, < 1 MB, < 10 MB, the rest; all. */
#define FCT_BUCKETS	4
extern const char *const fct_bucket_names[FCT_BUCKETS + 1];

int app_init(struct net *n, struct app *a);
void app_start(struct app *a);
/* End of run: fill the integrity counters that need the final state. */
void app_finish(struct app *a);
void app_free(struct app *a);

/* The age of the oldest message not yet done (0: none). */
uint64_t app_oldest_unfinished_ps(const struct app *a);

/* The ideal measurement interval of the run. */
uint64_t app_meas_end(const struct app *a);

#endif /* NETSIM_APP_H */
