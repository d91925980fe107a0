/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ghost list: the keys a CPU's buffer-head LRU evicted, most recent
 * first. Together with the real LRU it is one LRU stack, so a miss whose key
 * sits at depth g here has stack distance BH_LRU_SIZE + g: it would have hit
 * an LRU of more than BH_LRU_SIZE + g entries. Searched on installed misses
 * only, which are the rare case.
 */
#ifndef BHSCOPE_LRU_GHOST_BPF_H
#define BHSCOPE_LRU_GHOST_BPF_H

#include "lru_stats.h"

struct lru_ghost {
	__u32 len;
	__u32 pad;
	struct lru_key keys[BHSCOPE_LRU_DEPTH_MAX];
};

static __always_inline bool lru_key_eq(const struct lru_key *a,
				       const struct lru_key *b)
{
	return a->block == b->block && a->dev == b->dev && a->size == b->size;
}

/*
 * Ghost indices go through this mask: the verifier then sees every one
 * bounded, however the compiler rearranges the loops (they are always
 * below BHSCOPE_LRU_DEPTH_MAX anyway).
 */
#define GHOST_IDX(i)	((i) & (BHSCOPE_LRU_DEPTH_MAX - 1))
_Static_assert(!(BHSCOPE_LRU_DEPTH_MAX & (BHSCOPE_LRU_DEPTH_MAX - 1)),
	       "BHSCOPE_LRU_DEPTH_MAX must be a power of 2");

/* Depth of key (0: evicted last) after removing it; -1 if it is absent. */
static __always_inline int ghost_take(struct lru_ghost *g,
				      const struct lru_key *key)
{
	__u32 len = g->len, i, found = BHSCOPE_LRU_DEPTH_MAX;

	for (i = 0; i < BHSCOPE_LRU_DEPTH_MAX; i++) {
		if (i >= len)
			break;
		if (lru_key_eq(&g->keys[GHOST_IDX(i)], key)) {
			found = i;
			break;
		}
	}
	if (found >= BHSCOPE_LRU_DEPTH_MAX)
		return -1;
	/* Close the gap: keys[found..len-2] = keys[found+1..len-1]. */
	for (i = found; i < BHSCOPE_LRU_DEPTH_MAX - 1; i++) {
		if (i + 1 >= len)
			break;
		g->keys[GHOST_IDX(i)] = g->keys[GHOST_IDX(i + 1)];
	}
	g->len = len - 1;
	return found;
}

/* Puts key in front; the deepest entry falls off when cap is reached. */
static __always_inline void ghost_push(struct lru_ghost *g,
				       const struct lru_key *key, __u32 cap)
{
	__u32 len = g->len, n, i;

	if (!cap)
		return;
	if (cap > BHSCOPE_LRU_DEPTH_MAX)
		cap = BHSCOPE_LRU_DEPTH_MAX;
	if (len >= cap)
		len = cap - 1;
	/* Shift down: keys[1..len] = keys[0..len-1], from the end. */
	for (n = 0; n < BHSCOPE_LRU_DEPTH_MAX - 1; n++) {
		if (n >= len)
			break;
		i = len - n;
		g->keys[GHOST_IDX(i)] = g->keys[GHOST_IDX(i - 1)];
	}
	g->keys[0] = *key;
	g->len = len + 1;
}

#endif /* BHSCOPE_LRU_GHOST_BPF_H */
