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
 * bounded (they are always below BHSCOPE_LRU_DEPTH_MAX anyway).
 */
#define GHOST_IDX(i)	((i) & (BHSCOPE_LRU_DEPTH_MAX - 1))
_Static_assert(!(BHSCOPE_LRU_DEPTH_MAX & (BHSCOPE_LRU_DEPTH_MAX - 1)),
	       "BHSCOPE_LRU_DEPTH_MAX must be a power of 2");

/*
 * The loops run through bpf_loop(): the verifier checks each body once
 * instead of walking every iteration of every path (with a ghost size only
 * known at run time, bhtune's, 6.1's verifier gave up with E2BIG), and
 * 5.19+ inlines the calls.
 */
struct ghost_loop {
	struct lru_ghost *g;
	const struct lru_key *key;
	__u32 base;
	__u32 found;
};

static long ghost_find_one(__u64 i, void *data)
{
	struct ghost_loop *l = data;

	if (!lru_key_eq(&l->g->keys[GHOST_IDX(i)], l->key))
		return 0;
	l->found = i;
	return 1;
}

/* keys[base + i] = keys[base + i + 1]: closes the gap at base. */
static long ghost_pull_one(__u64 i, void *data)
{
	struct ghost_loop *l = data;
	__u32 j = l->base + i;

	l->g->keys[GHOST_IDX(j)] = l->g->keys[GHOST_IDX(j + 1)];
	return 0;
}

/* keys[base - i] = keys[base - i - 1]: opens slot 0, from the end. */
static long ghost_push_one(__u64 i, void *data)
{
	struct ghost_loop *l = data;
	__u32 j = l->base - i;

	l->g->keys[GHOST_IDX(j)] = l->g->keys[GHOST_IDX(j - 1)];
	return 0;
}

/* Depth of key (0: evicted last) after removing it; -1 if it is absent. */
static __always_inline int ghost_take(struct lru_ghost *g,
				      const struct lru_key *key)
{
	struct ghost_loop l = { .g = g, .key = key,
				.found = BHSCOPE_LRU_DEPTH_MAX };
	__u32 len = g->len;

	if (len > BHSCOPE_LRU_DEPTH_MAX)
		len = BHSCOPE_LRU_DEPTH_MAX;
	bpf_loop(len, ghost_find_one, &l, 0);
	if (l.found >= len)
		return -1;
	l.base = l.found;
	bpf_loop(len - 1 - l.found, ghost_pull_one, &l, 0);
	g->len = len - 1;
	return l.found;
}

/* Puts key in front; the deepest entry falls off when cap is reached. */
static __always_inline void ghost_push(struct lru_ghost *g,
				       const struct lru_key *key, __u32 cap)
{
	struct ghost_loop l = { .g = g };
	__u32 len = g->len;

	if (!cap)
		return;
	if (cap > BHSCOPE_LRU_DEPTH_MAX)
		cap = BHSCOPE_LRU_DEPTH_MAX;
	if (len >= cap)
		len = cap - 1;
	l.base = len;
	bpf_loop(len, ghost_push_one, &l, 0);
	g->keys[0] = *key;
	g->len = len + 1;
}

#endif /* BHSCOPE_LRU_GHOST_BPF_H */
