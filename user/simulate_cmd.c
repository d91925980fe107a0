// SPDX-License-Identifier: GPL-2.0
/*
 * bhscope simulate: replays a `bhscope lru --trace` file through an exact
 * per-CPU LRU model and prints the what-if curve, an offline check of the
 * live one (and a way to ask about sizes the live run did not track).
 */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli.h"
#include "commands.h"
#include "lru/lru_curve.h"
#include "lru/lru_report.h"
#include "lru/lru_trace.h"
#include "lru/lrusim.h"
#include "lib/json_out.h"

#define SIMULATE_JSON_SCHEMA "bhscope.simulate/1"

enum { OPT_SIZES = 0x100 };

struct simulate_opts {
	struct cli_common common;
	const char *file;
	int lo, hi;
};

static const char simulate_doc[] =
	"Replays a trace written by 'bhscope lru --trace FILE' through an exact "
	"per-CPU model of the kernel's buffer-head LRU, and prints the hit ratio "
	"each LRU size would have given (the what-if curve), in total and per "
	"CPU. The model predicts every kernel outcome itself; 'desync' counts "
	"the ones it got wrong, which a correct trace never has.\v"
	"Examples:\n"
	"  bhscope lru --trace lru.trace 10 1\n"
	"  bhscope simulate lru.trace                 # sizes 1-64\n"
	"  bhscope simulate lru.trace --sizes 8-32 -C # per CPU\n"
	"  bhscope simulate lru.trace -d 1:0 -j       # one device, JSON";

static const struct argp_option simulate_options[] = {
	{ "sizes", OPT_SIZES, "A-B", 0,
	  "LRU sizes to predict: A-B or N (default 1-64, up to 256)", 0 },
	{ 0 },
};

/* "A-B" or "N", 1 <= A <= B <= BHSCOPE_LRU_DEPTH_MAX. */
static int parse_sizes(const char *s, int *lo, int *hi)
{
	char tail;

	if (sscanf(s, "%d-%d%c", lo, hi, &tail) != 2) {
		if (sscanf(s, "%d%c", lo, &tail) != 1)
			return -EINVAL;
		*hi = *lo;
	}
	if (*lo < 1 || *hi < *lo || *hi > BHSCOPE_LRU_DEPTH_MAX)
		return -EINVAL;
	return 0;
}

static error_t simulate_parse_opt(int key, char *arg, struct argp_state *state)
{
	struct simulate_opts *o = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &o->common;
		break;
	case OPT_SIZES:
		if (parse_sizes(arg, &o->lo, &o->hi))
			argp_error(state, "invalid --sizes '%s': want A-B or N, from 1 to %d",
				   arg, BHSCOPE_LRU_DEPTH_MAX);
		break;
	case ARGP_KEY_ARG:
		if (o->file)
			argp_error(state, "unexpected argument '%s'", arg);
		o->file = arg;
		break;
	case ARGP_KEY_END:
		if (!o->file)
			argp_error(state, "which trace? want FILE");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child simulate_children[] = {
	{ &cli_common_argp, 0, NULL, 0 },
	{ 0 },
};

static const struct argp simulate_argp = {
	.options = simulate_options,
	.parser = simulate_parse_opt,
	.args_doc = "FILE",
	.doc = simulate_doc,
	.children = simulate_children,
};

static int replay(struct lru_trace_reader *r, struct lrusim *sim)
{
	struct lru_event e;
	char why[256];
	int n, err;

	while ((n = lru_trace_next(r, &e, why, sizeof(why))) > 0) {
		err = lrusim_feed(sim, &e);
		if (err) {
			fprintf(stderr, "bhscope: record %llu of the trace is not valid: %s\n",
				(unsigned long long)r->read, strerror(-err));
			return err;
		}
	}
	if (n < 0) {
		fprintf(stderr, "bhscope: %s\n", why);
		return -EIO;
	}
	return 0;
}

static void print_text(const struct simulate_opts *o,
		       const struct lru_trace_reader *r, const struct lrusim *sim,
		       const struct lru_dev_stats *total)
{
	struct lru_dev_stats *cpus = NULL;
	double measured = lru_hit_ratio(total);

	printf("trace %s: Linux %s, lookups from %s, LRU size %u\n", o->file,
	       r->h.kernel, r->h.hook, r->h.lru_size);
	printf("records %llu, lost %llu, model resets %llu, snapshots %llu, desync %llu\n",
	       (unsigned long long)sim->records, (unsigned long long)r->h.lost,
	       (unsigned long long)sim->resets,
	       (unsigned long long)sim->snapshots,
	       (unsigned long long)sim->desync);
	printf("lookups %llu: hits %llu (%.2f%%), installed %llu, not installed %llu, absent %llu, evictions %llu, unsynced %llu\n",
	       (unsigned long long)total->lookups,
	       (unsigned long long)total->hits, 100.0 * measured,
	       (unsigned long long)total->installed,
	       (unsigned long long)total->not_installed,
	       (unsigned long long)total->absent,
	       (unsigned long long)total->evictions,
	       (unsigned long long)total->unsynced);
	if (o->common.per_cpu) {
		cpus = calloc(sim->nr_cpus, sizeof(*cpus));
		for (int c = 0; cpus && c < sim->nr_cpus; c++)
			cpus[c] = sim->cpus[c].stats;
	}
	lru_curve_text(stdout, total, cpus, sim->nr_cpus, o->lo, o->hi,
		       r->h.lru_size);
	free(cpus);
}

static struct json_object *json_stats(const struct lru_dev_stats *s,
				      const struct simulate_opts *o)
{
	struct json_object *j = json_object_new_object();
	double ratio = lru_hit_ratio(s);

	json_object_object_add(j, "lookups", json_object_new_uint64(s->lookups));
	json_object_object_add(j, "hits", json_object_new_uint64(s->hits));
	json_object_object_add(j, "hit_ratio", ratio == ratio ?
			       json_object_new_double(ratio) : NULL);
	json_object_object_add(j, "installed", json_object_new_uint64(s->installed));
	json_object_object_add(j, "not_installed",
			       json_object_new_uint64(s->not_installed));
	json_object_object_add(j, "absent", json_object_new_uint64(s->absent));
	json_object_object_add(j, "unsynced", json_object_new_uint64(s->unsynced));
	json_object_object_add(j, "evictions", json_object_new_uint64(s->evictions));
	json_object_object_add(j, "whatif", lru_curve_json(s, o->lo, o->hi));
	return j;
}

static void print_json(const struct simulate_opts *o,
		       const struct lru_trace_reader *r, const struct lrusim *sim,
		       const struct lru_dev_stats *total)
{
	struct json_object *j = json_out_new(SIMULATE_JSON_SCHEMA), *cpus, *c;

	json_object_object_add(j, "file", json_object_new_string(o->file));
	json_object_object_add(j, "kernel", json_object_new_string(r->h.kernel));
	json_object_object_add(j, "hook", json_object_new_string(r->h.hook));
	json_object_object_add(j, "lru_size", json_object_new_int(r->h.lru_size));
	json_object_object_add(j, "complete", json_object_new_boolean(
				       r->h.flags & LRU_TRACE_COMPLETE));
	json_object_object_add(j, "records", json_object_new_uint64(sim->records));
	json_object_object_add(j, "lost", json_object_new_uint64(r->h.lost));
	json_object_object_add(j, "gaps", json_object_new_uint64(sim->gaps));
	json_object_object_add(j, "resets", json_object_new_uint64(sim->resets));
	json_object_object_add(j, "snapshots", json_object_new_uint64(sim->snapshots));
	json_object_object_add(j, "desync", json_object_new_uint64(sim->desync));
	json_object_object_add(j, "total", json_stats(total, o));
	if (o->common.per_cpu) {
		cpus = json_object_new_array();
		for (int i = 0; i < sim->nr_cpus; i++) {
			c = json_stats(&sim->cpus[i].stats, o);
			json_object_object_add(c, "cpu", json_object_new_int(i));
			json_object_array_add(cpus, c);
		}
		json_object_object_add(j, "cpus", cpus);
	}
	json_out_print(stdout, j, JSON_OUT_LINE);
}

int cmd_simulate(int argc, char **argv)
{
	struct simulate_opts o = { .lo = 1, .hi = 64 };
	struct lru_trace_reader r;
	struct lru_dev_stats total;
	struct lrusim sim;
	char why[512];
	int err;

	cli_common_init(&o.common);
	if (argp_parse(&simulate_argp, argc, argv, 0, NULL, &o))
		return 64;
	if (lru_trace_open(&r, o.file, why, sizeof(why))) {
		fprintf(stderr, "bhscope: %s\n", why);
		return 1;
	}
	if (!(r.h.flags & LRU_TRACE_COMPLETE))
		fprintf(stderr, "bhscope: %s: the recording did not end cleanly; replaying the records it has\n",
			o.file);
	err = lrusim_init(&sim, o.hi, r.h.lru_size, o.common.kdev);
	if (err) {
		fprintf(stderr, "bhscope: %s: LRU size %u is beyond what the model handles\n",
			o.file, r.h.lru_size);
		lru_trace_close(&r);
		return 1;
	}
	err = replay(&r, &sim);
	if (!err) {
		lrusim_total(&sim, &total);
		if (o.common.json)
			print_json(&o, &r, &sim, &total);
		else
			print_text(&o, &r, &sim, &total);
		if (sim.desync)
			fprintf(stderr, "bhscope: the model disagreed with %llu kernel outcomes (events lost, or a tracer bug)\n",
				(unsigned long long)sim.desync);
	}
	lrusim_free(&sim);
	lru_trace_close(&r);
	return err ? 1 : 0;
}
