/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One run: build the network, run the traffic, report, tear down. */
#ifndef NETSIM_RUN_H
#define NETSIM_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report.h"
#include "scenario.h"

struct run_out {
	double wall_s;
	uint64_t events;
	uint64_t end_ps;
	uint64_t first_rx_ps;		/* first and last payload placed */
	uint64_t last_rx_ps;
	uint64_t rx_bytes;
	/* Switch ports, summed: what the self-test checks queueing by. */
	uint64_t sw_drops, sw_marks;
	uint32_t sw_max_q;		/* deepest any port queue got */
	uint64_t sw_trims;
	uint32_t sw_ports_used;		/* ports that sent anything */
	/* htsim's failed links: ports, frames they sent, frames whose hash
	 * chose one */
	uint32_t sw_failed;
	uint64_t sw_failed_tx, sw_rerouted;
	/* Every transport's retransmissions; frames the links lost. */
	uint64_t retx_pkts, lost_pkts;
	/* sw.pfc: PAUSEs sent, packets beyond the headroom */
	uint64_t pfc_pauses, pfc_drops;
	/* openloop: bytes offered; the smallest slowdown seen, x 1000 */
	uint64_t ol_posted_bytes;
	uint32_t ol_msgs, ol_sd_min;
	/* incast: when the first sender was done over when the last was */
	double first_to_last;
	/* goodput over the wire limit, as the report has it */
	double frac;
	/* matrix: the first RUN_MX flows' post and acknowledged end (0:
	 * never), in file order */
#define RUN_MX	32
	uint64_t mx_post_ps[RUN_MX], mx_done_ps[RUN_MX];
	uint32_t mx_n;
	bool ok;
};

/*
 * Returns -1 if the run could not be set up (nothing written), else 0
 * with @out->ok false if it failed its integrity checks.  @jw, @csv
 * and @human (a one-line summary) may be NULL.
 */
int run_one(const char *name, const struct cfg *c,
	    const struct kvlist *merged, struct jw *jw, FILE *csv,
	    FILE *human, struct run_out *out);

#endif /* NETSIM_RUN_H */
