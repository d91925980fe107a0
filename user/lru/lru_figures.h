/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The words of --probes: for each figure of an LRU session, the hook it
 * comes from or why it is missing, per hook kind. Used by lru_load() as it chooses the hooks.
 */
#ifndef BHSCOPE_LRU_FIGURES_H
#define BHSCOPE_LRU_FIGURES_H

#include <stdbool.h>

#include "lru/lru_hooks.h"

/* bhtune.ko's tracepoints give everything; lru_size is its parameter. */
void lru_figures_bhtune(struct lru_hooks *h, const struct lru_load_opts *o,
			int lru_size);

/* fentry/fexit (fentry true) or kprobe/kretprobe on func. */
void lru_figures_lookups(struct lru_hooks *h, const struct lru_load_opts *o,
			 bool fentry, const char *func);

/*
 * How the lookups of func (which cannot sleep) are proven: by the exit
 * alone (solo) or with the entry, and why (the preemption model); func2,
 * if not NULL, always has both.
 */
void lru_figures_lookup_proof(struct lru_hooks *h, const char *func,
			      const char *func2, bool solo, const char *why);

/* block:block_touch_buffer alone: hits, and the LRU size from BTF. */
void lru_figures_tracepoint(struct lru_hooks *h,
			    const struct lru_load_opts *o);

#endif /* BHSCOPE_LRU_FIGURES_H */
