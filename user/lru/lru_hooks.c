// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/env.h"
#include "lib/json_out.h"
#include "lib/probe_status.h"
#include "lru/lru_hooks.h"

const char *const lru_mode_names[LRU_NR_MODES] = {
	[LRU_MODE_AUTO] = "auto",
	[LRU_MODE_BHTUNE] = "bhtune",
	[LRU_MODE_FENTRY] = "fentry",
	[LRU_MODE_KPROBE] = "kprobe",
	[LRU_MODE_TRACEPOINT] = "tracepoint",
};

const char *const lru_figure_keys[LRU_NR_FIGURES] = {
	[LRU_FIG_LRU_SIZE] = "lru_size",
	[LRU_FIG_LOOKUPS] = "lookups",
	[LRU_FIG_HITS] = "hits",
	[LRU_FIG_SLOTS] = "slots",
	[LRU_FIG_MISSES] = "misses",
	[LRU_FIG_EVICTIONS] = "evictions",
	[LRU_FIG_WHATIF] = "whatif",
	[LRU_FIG_INVALIDATIONS] = "invalidations",
	[LRU_FIG_INSTALLS] = "install_calls",
	[LRU_FIG_TRACE] = "trace",
	[LRU_FIG_TIMES] = "lookup_time",
};

const char *const lru_figure_names[LRU_NR_FIGURES] = {
	[LRU_FIG_LRU_SIZE] = "LRU size",
	[LRU_FIG_LOOKUPS] = "lookups",
	[LRU_FIG_HITS] = "hits",
	[LRU_FIG_SLOTS] = "hit slots",
	[LRU_FIG_MISSES] = "misses",
	[LRU_FIG_EVICTIONS] = "evictions",
	[LRU_FIG_WHATIF] = "what-if curve",
	[LRU_FIG_INVALIDATIONS] = "invalidations",
	[LRU_FIG_INSTALLS] = "install calls",
	[LRU_FIG_TRACE] = "trace",
	[LRU_FIG_TIMES] = "lookup times",
};

int lru_hooks_mode_parse(const char *s, enum lru_mode *mode)
{
	for (int m = 0; m < LRU_NR_MODES; m++) {
		if (!strcmp(s, lru_mode_names[m])) {
			*mode = m;
			return 0;
		}
	}
	return -EINVAL;
}

bool lru_hooks_classify(const struct lru_hooks *h)
{
	return h->mode == LRU_MODE_FENTRY || h->mode == LRU_MODE_KPROBE ||
	       h->mode == LRU_MODE_BHTUNE;
}

bool lru_hooks_timed(const struct lru_hooks *h)
{
	return h->time_every && h->fig[LRU_FIG_TIMES].available;
}

/* The words of --probes, per hook kind: each figure's source or reason. */
static void trace_figure(struct lru_hooks *h, const struct lru_load_opts *o)
{
	if (o->trace)
		probe_status_from(&h->fig[LRU_FIG_TRACE],
			     "ring buffer of %u KiB, written by the lookup's exit",
			     o->trace_bytes / 1024);
	else
		probe_status_missing(&h->fig[LRU_FIG_TRACE], "not asked for (--trace FILE)");
}

static void whatif_figure(struct lru_hooks *h, const struct lru_load_opts *o,
			  const char *distances)
{
	if (!o->whatif)
		probe_status_missing(&h->fig[LRU_FIG_WHATIF],
				"not asked for (--whatif N): would come from %s",
				distances);
	else
		probe_status_from(&h->fig[LRU_FIG_WHATIF], "%s", distances);
}

static void times_figure(struct lru_hooks *h, const struct lru_load_opts *o,
			 const char *probe, const char *func)
{
	h->time_every = o->time_every;
	h->time_sample = o->time_every;
	if (!o->time_every)
		probe_status_missing(&h->fig[LRU_FIG_TIMES],
				     "not asked for (--timing N, or --whatif)");
	else
		probe_status_from(&h->fig[LRU_FIG_TIMES],
				  "%s %s: 1 lookup in %u per CPU timed from its entry to its exit, by outcome",
				  probe, func, o->time_every);
}

void lru_hooks_time_windows(struct lru_hooks *h, uint32_t sample,
			    uint32_t window_ms, uint32_t period_ms)
{
	h->time_sample = sample;
	h->time_window_ms = window_ms;
	h->time_period_ms = period_ms;
	probe_status_from(&h->fig[LRU_FIG_TIMES],
			  "fentry+fexit %s, the fentry for %u ms every %u ms (first at once): 1 lookup in %u per CPU timed there, by outcome",
			  h->hook + strlen("fentry:"), window_ms, period_ms,
			  sample);
}

void lru_hooks_lookups(struct lru_hooks *h, const struct lru_load_opts *o,
		       bool fentry, const char *func)
{
	const char *probe = fentry ? "fentry+fexit" : "kprobe+kretprobe";
	char distances[160];

	probe_status_from(&h->fig[LRU_FIG_LRU_SIZE],
		     "BH_LRU_SIZE %d, from struct bh_lru in the kernel's BTF",
		     h->lru_size);
	probe_status_from(&h->fig[LRU_FIG_LOOKUPS], "%s %s", probe, func);
	probe_status_from(&h->fig[LRU_FIG_HITS],
		     "%s %s: the bh back in slot 0 was in this CPU's bh_lrus before",
		     probe, func);
	probe_status_from(&h->fig[LRU_FIG_SLOTS],
		     "%s %s: where it was, from a shadow of this CPU's bh_lrus",
		     probe, func);
	probe_status_from(&h->fig[LRU_FIG_MISSES],
		     "%s %s: the return value, and whether it is now in slot 0",
		     probe, func);
	probe_status_from(&h->fig[LRU_FIG_EVICTIONS],
		     "installs while slot %d of bh_lrus was used before",
		     h->lru_size - 1);
	if (o->whatif > h->lru_size)
		snprintf(distances, sizeof(distances),
			 "hit slots (sizes 1-%d) and a ghost list of evicted entries (sizes %d-%d)",
			 h->lru_size, h->lru_size + 1, o->whatif);
	else
		snprintf(distances, sizeof(distances),
			 "hit slots (sizes 1-%d); larger sizes from a ghost list of evicted entries",
			 h->lru_size);
	whatif_figure(h, o, distances);
	trace_figure(h, o);
	times_figure(h, o, probe, func);
}

void lru_hooks_lookup_proof(struct lru_hooks *h, const char *func,
			    const char *func2, bool solo, const char *why)
{
	char also[80] = "";

	if (func2)
		snprintf(also, sizeof(also), "; fentry+fexit %s", func2);
	if (solo)
		probe_status_from(&h->fig[LRU_FIG_LOOKUPS],
				  "fexit %s alone (%s: no switch inside it; the entry attaches on a model switch)%s",
				  func, why, also);
	else
		probe_status_from(&h->fig[LRU_FIG_LOOKUPS],
				  "fentry+fexit %s (%s: the entry proves no switch)%s",
				  func, why, also);
}

void lru_hooks_lookup_deferred(struct lru_hooks *h, const char *func,
				const char *why)
{
	probe_status_from(&h->fig[LRU_FIG_LOOKUPS],
			  "fentry %s alone, deferred (%s: each lookup is classified at the next entry on its CPU, or at a read; absent proven by fentry/fexit lru_cache_disable; the exit attaches on a model switch)",
			  func, why);
	probe_status_from(&h->fig[LRU_FIG_HITS],
			  "fentry %s, deferred: at the next entry, a bh of this CPU's bh_lrus moved to slot 0, or slot 0 has the lookup's key",
			  func);
	probe_status_from(&h->fig[LRU_FIG_MISSES],
			  "fentry %s, deferred: at the next entry, a new bh in slot 0 (installed), or bh_lrus as it was and lru_cache_disable() off throughout (absent; else unsynced)",
			  func);
	probe_status_missing(&h->fig[LRU_FIG_TIMES],
			     "the deferred hook has no exit probe to time a lookup to");
}

void lru_hooks_bhtune(struct lru_hooks *h, const struct lru_load_opts *o,
		      int lru_size)
{
	probe_status_from(&h->fig[LRU_FIG_LRU_SIZE],
		     "bhtune's lru_size parameter (%d at start), and each lookup's lru_size",
		     lru_size);
	for (int f = LRU_FIG_LOOKUPS; f <= LRU_FIG_EVICTIONS; f++)
		probe_status_from(&h->fig[f], "raw tracepoint bhtune:bhtune_lookup");
	whatif_figure(h, o,
		      "bhtune's hit slots, and a ghost list of its evictions");
	probe_status_from(&h->fig[LRU_FIG_INVALIDATIONS],
		     "tracepoint bhtune:bhtune_invalidate (counted as resets)");
	probe_status_missing(&h->fig[LRU_FIG_INSTALLS],
			"bhtune installs inside its lookup; counted as installed misses");
	trace_figure(h, o);
	probe_status_missing(&h->fig[LRU_FIG_TIMES],
			     "bhtune's tracepoint fires once, at the lookup's end: nothing to time from");
}

void lru_hooks_tracepoint(struct lru_hooks *h, const struct lru_load_opts *o)
{
	if (h->lru_size > 0)
		probe_status_from(&h->fig[LRU_FIG_LRU_SIZE],
			     "BH_LRU_SIZE %d, from struct bh_lru in the kernel's BTF",
			     h->lru_size);
	probe_status_from(&h->fig[LRU_FIG_HITS],
		     "tracepoint block:block_touch_buffer (touch_buffer() runs on the LRU-hit branch of the lookup only)");
	/* The reasons are in h->tried, said once by --probes. */
	for (int f = LRU_FIG_LOOKUPS; f < LRU_NR_FIGURES; f++)
		if (f != LRU_FIG_HITS)
			probe_status_missing(&h->fig[f],
					"needs fentry or kprobes on the lookup, and neither works here");
	if (!o->trace)
		probe_status_missing(&h->fig[LRU_FIG_TRACE],
				"not asked for (--trace FILE), and it needs fentry or kprobes on the lookup");
}

/* bhscope lru --probes */

/* "in use", "not needed", or why the mode was not used. */
static const char *mode_status(const struct lru_hooks *h, bool loaded,
			       enum lru_mode m)
{
	if (loaded && h->mode == m)
		return "in use";
	if (h->tried[m][0])
		return h->tried[m];
	return loaded && m > h->mode ? "not needed" : "not tried";
}

void lru_hooks_print(FILE *out, const struct lru_hooks *h, bool loaded)
{
	const char *lockdown = probe_status_lockdown_mode();

	fprintf(out, "bhscope lru on Linux %s (kernel lockdown: %s)\n",
		env_kernel_release(), lockdown ? lockdown : "unknown");
	fprintf(out, "hook kinds, best first:\n");
	for (int m = LRU_MODE_BHTUNE; m < LRU_NR_MODES; m++)
		fprintf(out, "  %-11s %s\n", lru_mode_names[m],
			mode_status(h, loaded, m));
	fprintf(out, "figures:\n");
	for (int f = 0; f < LRU_NR_FIGURES; f++) {
		const struct probe_status *fig = &h->fig[f];

		if (fig->available)
			fprintf(out, "  %-14s %s\n", lru_figure_names[f],
				fig->source);
		else
			fprintf(out, "  %-14s unavailable: %s\n",
				lru_figure_names[f],
				fig->why[0] ? fig->why : "no hook kind works here");
	}
}

struct json_object *lru_hooks_json(const struct lru_hooks *h, bool loaded)
{
	struct json_object *o = json_out_new(LRU_PROBES_JSON_SCHEMA), *modes,
			   *figs, *f;
	const char *lockdown = probe_status_lockdown_mode();

	json_object_object_add(o, "kernel",
			       json_object_new_string(env_kernel_release()));
	json_object_object_add(o, "lockdown", lockdown ?
			       json_object_new_string(lockdown) : NULL);
	json_object_object_add(o, "mode", loaded ?
			       json_object_new_string(lru_mode_names[h->mode]) :
			       NULL);
	json_object_object_add(o, "lru_size", h->lru_size > 0 ?
			       json_object_new_int(h->lru_size) : NULL);
	modes = json_object_new_object();
	for (int m = LRU_MODE_BHTUNE; m < LRU_NR_MODES; m++)
		json_object_object_add(modes, lru_mode_names[m],
				       json_object_new_string(mode_status(h, loaded, m)));
	json_object_object_add(o, "modes", modes);
	figs = json_object_new_object();
	for (int i = 0; i < LRU_NR_FIGURES; i++) {
		f = json_object_new_object();
		json_object_object_add(f, "available",
				       json_object_new_boolean(h->fig[i].available));
		json_object_object_add(f, h->fig[i].available ? "source" : "reason",
				       json_object_new_string(h->fig[i].available ?
							      h->fig[i].source :
							      h->fig[i].why));
		json_object_object_add(figs, lru_figure_keys[i], f);
	}
	json_object_object_add(o, "figures", figs);
	return o;
}

void lru_hooks_why_none(const struct lru_hooks *h, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (int m = LRU_MODE_BHTUNE; m < LRU_NR_MODES && n < len; m++)
		if (h->tried[m][0])
			n += snprintf(buf + n, len - n, "%s%s: %s",
				      n ? "; " : "", lru_mode_names[m],
				      h->tried[m]);
}
