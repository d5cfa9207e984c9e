/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What the programs of tools/rdtest share beyond the generator and the
 * rendezvous (rdtest.h): how they talk to the user, parse numbers, keep
 * bitmaps and find their device, port and GID.  wren_rd_stress (main.c)
 * and wren_rc_stress (rc.c) each define rd_prog.
 */
#ifndef WREN_RDTEST_COMMON_H
#define WREN_RDTEST_COMMON_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <getopt.h>

#include <infiniband/verbs.h>

#define NS			1000000000ULL
#define RD_IB_PORT		1
#define MAX_LOGGED		20

/* This participant's index, for every line; the run's first failure. */
extern unsigned int rd_index;
extern char rd_failure[512];
extern volatile sig_atomic_t rd_signal;

void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A fatal error: the first one is the run's verdict (rd_failure). */
void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A wrong message: *@counter counted, shown up to MAX_LOGGED times. */
void data_error(unsigned int *logged, uint64_t *counter, const char *fmt,
		...) __attribute__((format(printf, 3, 4)));
/* The error of a verbs call, whether it returns an errno or -1. */
const char *verr(int ret);
double secs(uint64_t ns);
const char *gid_str(const uint8_t *gid, char *buf, size_t len);
/* --opt S within [min, max]; @sizes allows K and M suffixes. */
int parse_num(const char *opt, const char *s, uint64_t min, uint64_t max,
	      bool sizes, uint64_t *out);
void json_string(FILE *f, const char *s);
/* SIGINT and SIGTERM set rd_signal; SIGPIPE is ignored. */
void rd_signals(void);

/*
 * The options both programs take.  Each program's struct opts begins
 * with them as an anonymous union of struct rd_base and its fields, so
 * that it names them directly and hands them to rd_parse_opts() whole.
 */
#define RD_BASE_FIELDS							\
	unsigned int peers;						\
	unsigned int index;						\
	const char *hub;						\
	uint16_t port;							\
	uint64_t seed;							\
	const char *device;						\
	unsigned int gid_index;						\
	uint32_t max_size;						\
	unsigned int timeout

struct rd_base {
	RD_BASE_FIELDS;
};

/* A program's own options. */
struct rd_optdef {
	const struct option *longopts;	/* ends with a NULL name */
	/* Take option @c (@name, @arg) into @opts: 0, or -1 if bad. */
	int (*take)(void *opts, int c, const char *name, const char *arg);
	/* All the options, the shared ones by rd_usage_base(). */
	void (*usage)(FILE *f);
};

/*
 * Parse @argv into @b (its defaults set) and, through @def, @opts: 0, or
 * -1 once said what is wrong; --help prints the usage and exits 0.
 */
int rd_parse_opts(int argc, char **argv, struct rd_base *b,
		  const struct rd_optdef *def, void *opts);
/* The usage lines of the options every program takes alike. */
void rd_usage_base(FILE *f);

uint64_t *bitmap_new(uint32_t bits);
bool test_and_set(uint64_t *map, uint32_t bit);
bool test_bit(const uint64_t *map, uint32_t bit);

/* An open device, its port RD_IB_PORT active, and our GID on it. */
struct rd_dev {
	struct ibv_device **devs;
	struct ibv_device *dev;
	struct ibv_context *ctx;
	struct ibv_device_attr attr;
	struct ibv_port_attr port;
	union ibv_gid gid;
	uint32_t ipv4;		/* from an IPv4-mapped GID; network order */
};

/* Open @name (NULL: the first device) and its GID @gid_index. */
int rd_dev_open(struct rd_dev *dv, const char *name, unsigned int gid_index);
/* Close what rd_dev_open() opened, failing on errors. */
void rd_dev_close(struct rd_dev *dv);

#endif /* WREN_RDTEST_COMMON_H */
