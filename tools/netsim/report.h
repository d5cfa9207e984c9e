/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Output: a small streaming JSON writer, and the figures of one run as
 * JSON and as a CSV row.  Everything written here is a function of the
 * scenario and the seed; wall-clock figures go elsewhere (main.c).
 */
#ifndef NETSIM_REPORT_H
#define NETSIM_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct net;
struct kvlist;

struct jw {
	FILE *f;
	int depth;
	bool first[32];
};

void jw_open(struct jw *w, FILE *f);
void jw_obj(struct jw *w, const char *key);
void jw_arr(struct jw *w, const char *key);
void jw_end(struct jw *w, char close);
void jw_u64(struct jw *w, const char *key, uint64_t v);
void jw_i64(struct jw *w, const char *key, int64_t v);
void jw_num(struct jw *w, const char *key, double v);
void jw_str(struct jw *w, const char *key, const char *s);
void jw_bool(struct jw *w, const char *key, bool v);

/* The run's results object; returns false if the run failed. */
bool report_run(struct jw *w, struct net *n, const char *name,
		const struct kvlist *merged);
bool report_pass(struct net *n);
/* Goodput over the wire limit (the human line's "0.80 of ..."). */
double report_frac(struct net *n);
void report_csv_header(FILE *f);
void report_line(FILE *f, struct net *n, const char *name, double wall_s);
void report_csv_row(FILE *f, struct net *n, const char *name);

#endif /* NETSIM_REPORT_H */
