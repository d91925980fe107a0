// SPDX-License-Identifier: GPL-2.0
/*
 * bhscope simulate: replays a `bhscope lru --trace` file through an
 * independent model of the kernel's buffer-head LRU (struct lrusim),
 * checks the live classification lookup by lookup, and prints the what-if
 * curve with what is exact and what is bounded.
 */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "lib/cli.h"
#include "lib/clock.h"
#include "lib/errmsg.h"
#include "lib/json_out.h"
#include "lrutrace/lru_trace.h"
#include "lrusim/lrusim.h"
#include "lrusim/lrusim_report.h"

enum { OPT_SIZES = 0x100, OPT_TIME };

struct simulate_opts {
	struct cli_common common;
	const char *file;
	int lo, hi;
	bool time;
};

static const char simulate_doc[] =
	"Replays a trace written by 'bhscope lru --trace FILE' (or - for "
	"standard input; format 2, or 1 from older versions) through its own "
	"per-CPU model of the kernel's buffer-head LRU, which predicts every "
	"lookup's outcome at every LRU size from the key stream alone: the key, "
	"whether the page cache had it and whether the kernel put it at the "
	"front of its LRU, starting from the LRU contents the trace recorded. "
	"It never takes the live classification as given: at the traced size "
	"it compares its prediction with it, lookup by lookup, and prints how "
	"many disagree.\n\n"
	"Exact and bounded: sizes up to the traced LRU's are exact. Above it, a "
	"lookup whose key the model's LRU of that size holds at depth d is a hit "
	"there and moves to the front, whatever the kernel's LRU did (a miss not "
	"installed, or absent, of a key deeper than the kernel's LRU is a hit in "
	"a larger one: it would have held, and pinned, the buffer); a key it does "
	"not hold is pushed at the front if the kernel installed it, and left "
	"out if the kernel did not (lru_cache_disabled() and isolated CPUs skip "
	"the install at any size). What the model cannot know it counts as "
	"undecided, per size: after a snapshot of a full LRU (the trace's start, "
	"lost events, an LRU changed unseen) a larger LRU held keys it has not "
	"seen, until it has seen as many different keys installed as that size "
	"has slots, or the LRU is emptied (an invalidation empties every size); and a miss not "
	"installed or absent of a key it did not hold may have moved that key "
	"to a larger LRU's front, until it is installed again. The curve gives "
	"the model's ratio and, where it is not exact, the range the true ratio "
	"lies in. Unsynced lookups are left out; after a restart or a gap a "
	"CPU's model starts over, learning the LRU from the lookups until the "
	"next snapshot, and leaves out a lookup it cannot yet tell a hit from "
	"an install.\v"
	"Examples:\n"
	"  bhscope lru --trace lru.trace 10 1\n"
	"  bhscope simulate lru.trace                 # sizes 1-64\n"
	"  bhscope simulate lru.trace --sizes 8-32 -C # per CPU\n"
	"  bhscope simulate lru.trace -d 1:0 -j       # one device, JSON";

static const struct argp_option simulate_options[] = {
	{ "sizes", OPT_SIZES, "A-B", 0,
	  "LRU sizes to show: A-B or N (default 1-64, up to 256)", 0 },
	{ "time", OPT_TIME, NULL, 0,
	  "Print on stderr how long the replay took, in lookups per second", 0 },
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
	case OPT_TIME:
		o->time = true;
		break;
	case ARGP_KEY_ARG:
		if (o->file)
			argp_error(state, "unexpected argument '%s'", arg);
		o->file = arg;
		break;
	case ARGP_KEY_END:
		if (!o->file)
			argp_error(state, "which trace? want FILE (or - for standard input)");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child simulate_children[] = {
	{ &cli_common_argp, 0, NULL, 0 },
	{ &cli_help_argp, 0, NULL, 0 },
	{ 0 },
};

const struct argp simulate_argp = {
	.options = simulate_options,
	.parser = simulate_parse_opt,
	.args_doc = "FILE",
	.doc = simulate_doc,
	.children = simulate_children,
};

static int replay(struct lru_trace_reader *r, struct lrusim *sim)
{
	struct lru_event e;
	char why[512];
	int n, err;

	while ((n = lru_trace_next(r, &e, why, sizeof(why))) > 0) {
		err = lrusim_feed(sim, &e);
		if (err == -ENOMEM) {
			errmsg("out of memory");
			return err;
		}
		if (err) {
			errmsg("%s: record %llu is not valid (CPU %u, outcome %u, LRU size %u)",
			       r->name, (unsigned long long)r->read - 1,
			       e.cpu, e.outcome, e.lru_size);
			return err;
		}
	}
	if (n < 0) {
		errmsg("%s", why);
		return -EIO;
	}
	if (r->truncated)
		errmsg("%s", r->note);
	return 0;
}

int cmd_simulate(int argc, char **argv)
{
	struct simulate_opts o = { .lo = 1, .hi = 64 };
	struct lru_trace_reader r;
	struct lrusim_report rep;
	struct lrusim sim;
	double t0, c0;
	char why[512];
	int err, depth;

	cli_common_init(&o.common);
	o.common.dev_elsewhere = true;	/* the trace's host, maybe not this */
	if (argp_parse(&simulate_argp, argc, argv, 0, NULL, &o))
		return 64;
	if (lru_trace_open(&r, o.file, why, sizeof(why))) {
		errmsg("%s", why);
		return 1;
	}
	if (!(r.h.flags & LRU_TRACE_COMPLETE))
		errmsg("%s: the recording did not end cleanly; replaying the records it has",
		       r.name);
	/* every traced size is compared, however few sizes are shown */
	depth = o.hi > BHSCOPE_LRU_SLOTS_MAX ? o.hi : BHSCOPE_LRU_SLOTS_MAX;
	err = lrusim_init(&sim, depth, r.h.nr_cpus, o.common.kdev,
			  r.h.flags & LRU_TRACE_RAW_BITS);
	if (err) {
		errmsg("out of memory");
		lru_trace_close(&r);
		return 1;
	}
	t0 = clock_s(CLOCK_MONOTONIC);
	c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	err = replay(&r, &sim);
	if (!err && o.time) {
		struct lrusim_figures f;
		double s = clock_s(CLOCK_MONOTONIC) - t0;
		double cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;

		lrusim_total(&sim, &f);
		errmsg("replayed %llu records (%llu lookups, sizes 1-%d) in %.3f s, %.3f s of CPU: %.0f lookups/s, %.0f a CPU second",
		       (unsigned long long)sim.records,
		       (unsigned long long)f.lookups, depth, s, cpu,
		       s > 0 ? f.lookups / s : 0, cpu > 0 ? f.lookups / cpu : 0);
	}
	if (!err) {
		rep = (struct lrusim_report){
			.file = r.name, .h = &r.h, .truncated = r.truncated,
			.sim = &sim, .lo = o.lo, .hi = o.hi,
			.per_cpu = o.common.per_cpu,
		};
		if (o.common.json) {
			if (lrusim_report_json_print(stdout, &rep))
				err = -errno ?: -EIO;
		} else {
			lrusim_report_text(stdout, &rep);
			if (fflush(stdout) || ferror(stdout))
				err = -errno ?: -EIO;
		}
		if (err)
			errmsg("writing the output failed: %s",
			       strerror(-err));
	}
	lrusim_free(&sim);
	lru_trace_close(&r);
	return err ? 1 : 0;
}
