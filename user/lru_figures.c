// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>

#include "lru_figures.h"

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
};

void lru_fig_from(struct lru_session *s, enum lru_figure_id id,
		  const char *fmt, ...)
{
	va_list ap;

	s->fig[id].available = true;
	va_start(ap, fmt);
	vsnprintf(s->fig[id].source, sizeof(s->fig[id].source), fmt, ap);
	va_end(ap);
}

void lru_fig_missing(struct lru_session *s, enum lru_figure_id id,
		     const char *fmt, ...)
{
	va_list ap;

	s->fig[id].available = false;
	va_start(ap, fmt);
	vsnprintf(s->fig[id].why, sizeof(s->fig[id].why), fmt, ap);
	va_end(ap);
}

static void trace_figure(struct lru_session *s, const struct lru_load_opts *o)
{
	if (o->trace)
		lru_fig_from(s, LRU_FIG_TRACE,
			     "ring buffer of %u KiB, written by the lookup's exit",
			     o->trace_bytes / 1024);
	else
		lru_fig_missing(s, LRU_FIG_TRACE, "not asked for (--trace FILE)");
}

static void whatif_figure(struct lru_session *s, const struct lru_load_opts *o,
			  const char *distances)
{
	if (!o->whatif)
		lru_fig_missing(s, LRU_FIG_WHATIF,
				"not asked for (--whatif N): would come from %s",
				distances);
	else
		lru_fig_from(s, LRU_FIG_WHATIF, "%s", distances);
}

void lru_figures_lookups(struct lru_session *s, const struct lru_load_opts *o,
			 bool fentry, const char *func)
{
	const char *probe = fentry ? "fexit" : "kprobe+kretprobe";
	char distances[160];

	lru_fig_from(s, LRU_FIG_LRU_SIZE,
		     "BH_LRU_SIZE %d, from struct bh_lru in the kernel's BTF",
		     s->lru_size);
	lru_fig_from(s, LRU_FIG_LOOKUPS, "%s %s", probe, func);
	lru_fig_from(s, LRU_FIG_HITS,
		     "%s %s: the bh back in slot 0 was in this CPU's bh_lrus before",
		     probe, func);
	lru_fig_from(s, LRU_FIG_SLOTS,
		     "%s %s: where it was, from a shadow of this CPU's bh_lrus",
		     probe, func);
	lru_fig_from(s, LRU_FIG_MISSES,
		     "%s %s: the return value, and whether it is now in slot 0",
		     probe, func);
	lru_fig_from(s, LRU_FIG_EVICTIONS,
		     "installs while slot %d of bh_lrus was used before",
		     s->lru_size - 1);
	if (o->whatif > s->lru_size)
		snprintf(distances, sizeof(distances),
			 "hit slots (sizes 1-%d) and a ghost list of evicted entries (sizes %d-%d)",
			 s->lru_size, s->lru_size + 1, o->whatif);
	else
		snprintf(distances, sizeof(distances),
			 "hit slots (sizes 1-%d); larger sizes from a ghost list of evicted entries",
			 s->lru_size);
	whatif_figure(s, o, distances);
	trace_figure(s, o);
}

void lru_figures_bhtune(struct lru_session *s, const struct lru_load_opts *o,
			int lru_size)
{
	lru_fig_from(s, LRU_FIG_LRU_SIZE,
		     "bhtune's lru_size parameter (%d at start), and each lookup's lru_size",
		     lru_size);
	for (int f = LRU_FIG_LOOKUPS; f <= LRU_FIG_EVICTIONS; f++)
		lru_fig_from(s, f, "tracepoint bhtune:bhtune_lookup");
	whatif_figure(s, o,
		      "bhtune's hit slots, and a ghost list of its evictions");
	lru_fig_from(s, LRU_FIG_INVALIDATIONS,
		     "tracepoint bhtune:bhtune_invalidate (counted as resets)");
	lru_fig_missing(s, LRU_FIG_INSTALLS,
			"bhtune installs inside its lookup; counted as installed misses");
	trace_figure(s, o);
}

void lru_figures_tracepoint(struct lru_session *s,
			    const struct lru_load_opts *o)
{
	if (s->lru_size > 0)
		lru_fig_from(s, LRU_FIG_LRU_SIZE,
			     "BH_LRU_SIZE %d, from struct bh_lru in the kernel's BTF",
			     s->lru_size);
	lru_fig_from(s, LRU_FIG_HITS,
		     "tracepoint block:block_touch_buffer (touch_buffer() runs on the LRU-hit branch of the lookup only)");
	/* The reasons are in s->tried, said once by --probes. */
	for (int f = LRU_FIG_LOOKUPS; f < LRU_NR_FIGURES; f++)
		if (f != LRU_FIG_HITS)
			lru_fig_missing(s, f,
					"needs fentry or kprobes on the lookup, and neither works here");
	if (!o->trace)
		lru_fig_missing(s, LRU_FIG_TRACE,
				"not asked for (--trace FILE), and it needs fentry or kprobes on the lookup");
}
