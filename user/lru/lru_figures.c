// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>

#include "lru/lru_figures.h"

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

void lru_figures_lookups(struct lru_hooks *h, const struct lru_load_opts *o,
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
}

void lru_figures_lookup_proof(struct lru_hooks *h, const char *func,
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

void lru_figures_bhtune(struct lru_hooks *h, const struct lru_load_opts *o,
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
}

void lru_figures_tracepoint(struct lru_hooks *h,
			    const struct lru_load_opts *o)
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
