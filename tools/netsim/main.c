// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * netsim: run the runs of a scenario file and write one JSON document.
 *
 *   netsim [--seed N] [--set key=value]... [--run NAME] [--json FILE]
 *          [--csv FILE] [--quiet] SCENARIO.ini
 *
 * Exit status: 0 if every run passed (its data intact, and every message
 * complete unless allow_stall is set), 1 if one did not, 2 on a usage,
 * scenario or set-up error, 3 if a run hit its wall_limit.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: netsim [--seed N] [--set key=value]... "
		"[--run NAME] [--json FILE] [--csv FILE] [--quiet] "
		"SCENARIO.ini\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "set", required_argument, NULL, 'S' },
		{ "run", required_argument, NULL, 'r' },
		{ "json", required_argument, NULL, 'j' },
		{ "csv", required_argument, NULL, 'c' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct kvlist sets = { 0 };
	const char *only = NULL, *json = NULL, *csvp = NULL, *seed = NULL;
	FILE *jf = NULL, *cf = NULL;
	struct scenario sc;
	struct run_out *outs;
	struct jw jw;
	bool quiet = false, failed = false, any = false;
	uint32_t i;
	double total = 0;
	int opt;

	while ((opt = getopt_long(argc, argv, "s:S:r:j:c:qh", opts,
				  NULL)) != -1) {
		char *eq;

		switch (opt) {
		case 's':
			seed = optarg;
			break;
		case 'S':
			eq = strchr(optarg, '=');
			if (!eq || eq == optarg) {
				fprintf(stderr, "--set %s: want key=value\n",
					optarg);
				return 2;
			}
			*eq = 0;
			kv_set(&sets, optarg, eq + 1, "--set");
			break;
		case 'r':
			only = optarg;
			break;
		case 'j':
			json = optarg;
			break;
		case 'c':
			csvp = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind + 1 != argc) {
		usage(stderr);
		return 2;
	}
	if (seed)
		kv_set(&sets, "seed", seed, "--seed");
	if (scenario_load(&sc, argv[optind]))
		return 2;
	if (only) {
		for (i = 0; i < sc.nruns; i++)
			if (!strcmp(sc.run_names[i], only))
				break;
		if (i == sc.nruns) {
			fprintf(stderr, "%s: no run named \"%s\"\n",
				sc.path, only);
			return 2;
		}
	}
	if (json) {
		jf = strcmp(json, "-") ? fopen(json, "w") : stdout;
		if (!jf) {
			perror(json);
			return 2;
		}
	}
	if (csvp) {
		cf = fopen(csvp, "w");
		if (!cf) {
			perror(csvp);
			return 2;
		}
		report_csv_header(cf);
	}
	outs = calloc(sc.nruns, sizeof(*outs));
	if (jf) {
		jw_open(&jw, jf);
		jw_obj(&jw, NULL);
		jw_u64(&jw, "netsim", 1);
		jw_str(&jw, "scenario", sc.path);
		jw_arr(&jw, "runs");
	}
	for (i = 0; i < sc.nruns; i++) {
		struct kvlist merged = { 0 };
		struct cfg c;

		if (only && strcmp(sc.run_names[i], only))
			continue;
		if (cfg_build(&c, &sc.base, &sc.runs[i], &sets, &merged) ||
		    run_one(sc.run_names[i], &c, &merged, jf ? &jw : NULL, cf,
			    quiet ? NULL : stdout, &outs[i])) {
			fprintf(stderr, "%s: run \"%s\" not run\n", sc.path,
				sc.run_names[i]);
			return 2;
		}
		any = true;
		if (!outs[i].ok) {
			failed = true;
			fprintf(stderr, "netsim: run \"%s\" FAILED its "
				"checks\n", sc.run_names[i]);
		}
		fflush(stdout);
		cfg_free(&c);
		kv_free(&merged);
	}
	if (jf) {
		jw_end(&jw, ']');
		/* Wall-clock time: the only part that differs run to run. */
		jw_obj(&jw, "wall");
		for (i = 0; i < sc.nruns; i++) {
			if (only && strcmp(sc.run_names[i], only))
				continue;
			total += outs[i].wall_s;
			jw_obj(&jw, sc.run_names[i]);
			jw_num(&jw, "seconds", outs[i].wall_s);
			jw_num(&jw, "events_per_s", outs[i].wall_s > 0 ?
			       outs[i].events / outs[i].wall_s : 0);
			jw_end(&jw, '}');
		}
		jw_num(&jw, "total_seconds", total);
		jw_end(&jw, '}');
		jw_end(&jw, '}');
		if (jf != stdout)
			fclose(jf);
	}
	if (cf)
		fclose(cf);
	free(outs);
	kv_free(&sets);
	scenario_free(&sc);
	if (!any)
		return 2;
	return failed ? 1 : 0;
}
