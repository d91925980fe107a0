// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>

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
