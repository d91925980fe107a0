/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ghost list: the keys a CPU's buffer-head LRU evicted, most recent
 * first. Together with the real LRU it is one LRU stack, so a miss whose key
 * sits at depth g here has stack distance BH_LRU_SIZE + g: it would have hit
 * an LRU of more than BH_LRU_SIZE + g entries. Searched on misses only,
 * which are the rare case: an installed miss takes its key out (it is in
 * the LRU now), a miss not installed leaves it (the kernel's LRU did not
 * change, a larger one would have moved it to the front: from then on the
 * sizes above BH_LRU_SIZE are approximate, and counted so).
 *
 * A ring, newest at head, so that an eviction costs one store and taking
 * the key at depth g moves the g keys in front of it; a counting filter of
 * the keys' hashes answers most misses that are not here (a first use,
 * or one too deep) without a search.
 */
#ifndef BHSCOPE_LRU_GHOST_BPF_H
#define BHSCOPE_LRU_GHOST_BPF_H

#include "lru_stats.h"

#define GHOST_FILTER_BITS	8
#define GHOST_FILTER_SIZE	(1U << GHOST_FILTER_BITS)

struct lru_ghost {
	__u32 len;
	__u32 head;				/* index of depth 0 */
	struct lru_key keys[BHSCOPE_LRU_DEPTH_MAX];
	__u16 filter[GHOST_FILTER_SIZE];	/* keys per hash */
};

static __always_inline bool lru_key_eq(const struct lru_key *a,
				       const struct lru_key *b)
{
	return a->block == b->block && a->dev == b->dev && a->size == b->size;
}

/*
 * Ring and filter indices go through these masks: the verifier then sees
 * every one bounded.
 */
#define GHOST_IDX(i)	((i) & (BHSCOPE_LRU_DEPTH_MAX - 1))
#define GHOST_HASH(k)	((__u32)((((k)->block << 12) ^ (k)->dev) * \
				 0x9e3779b97f4a7c15ULL >> 32) >> \
			 (32 - GHOST_FILTER_BITS))
_Static_assert(!(BHSCOPE_LRU_DEPTH_MAX & (BHSCOPE_LRU_DEPTH_MAX - 1)),
	       "BHSCOPE_LRU_DEPTH_MAX must be a power of 2");
_Static_assert(BHSCOPE_LRU_DEPTH_MAX < 65536, "filter counts are u16");

/* The key at depth d (below len). */
static __always_inline struct lru_key *ghost_at(struct lru_ghost *g, __u32 d)
{
	return &g->keys[GHOST_IDX(g->head + d)];
}

/*
 * The loops run through bpf_loop(): the verifier checks each body once
 * instead of walking every iteration of every path (with a ghost size only
 * known at run time, bhtune's, 6.1's verifier gave up with E2BIG), and
 * 5.19+ inlines the calls.
 */
struct ghost_loop {
	struct lru_ghost *g;
	const struct lru_key *key;
	__u32 depth;		/* where the key was found, or the first to drop */
};

static long ghost_find_one(__u64 i, void *data)
{
	struct ghost_loop *l = data;

	if (!lru_key_eq(ghost_at(l->g, i), l->key))
		return 0;
	l->depth = i;
	return 1;
}

/* key at depth d - i = key at d - i - 1: closes the gap at depth d. */
static long ghost_shift_one(__u64 i, void *data)
{
	struct ghost_loop *l = data;
	__u32 d = l->depth - i;

	*ghost_at(l->g, d) = *ghost_at(l->g, d - 1);
	return 0;
}

/* Forgets the key at depth d + i (the loop runs from the shallowest). */
static long ghost_drop_one(__u64 i, void *data)
{
	struct ghost_loop *l = data;

	l->g->filter[GHOST_HASH(ghost_at(l->g, l->depth + i))]--;
	return 0;
}

/* Depth of key (0: evicted last), left where it is; -1 if it is absent. */
static __always_inline int ghost_find(struct lru_ghost *g,
				      const struct lru_key *key)
{
	struct ghost_loop l = { .g = g, .key = key,
				.depth = BHSCOPE_LRU_DEPTH_MAX };
	__u32 len = g->len;

	if (!g->filter[GHOST_HASH(key)])
		return -1;
	if (len > BHSCOPE_LRU_DEPTH_MAX)
		len = BHSCOPE_LRU_DEPTH_MAX;
	bpf_loop(len, ghost_find_one, &l, 0);
	return l.depth < len ? (int)l.depth : -1;
}

/* Depth of key (0: evicted last) after removing it; -1 if it is absent. */
static __always_inline int ghost_take(struct lru_ghost *g,
				      const struct lru_key *key)
{
	struct ghost_loop l = { .g = g, .key = key,
				.depth = BHSCOPE_LRU_DEPTH_MAX };
	__u32 len = g->len, h = GHOST_HASH(key);

	if (!g->filter[h])
		return -1;
	if (len > BHSCOPE_LRU_DEPTH_MAX)
		len = BHSCOPE_LRU_DEPTH_MAX;
	bpf_loop(len, ghost_find_one, &l, 0);
	if (l.depth >= len)
		return -1;
	bpf_loop(l.depth, ghost_shift_one, &l, 0);
	g->head = GHOST_IDX(g->head + 1);
	g->len = len - 1;
	g->filter[h]--;
	return l.depth;
}

/* Puts key in front; the deepest entry falls off when cap is reached. */
static __always_inline void ghost_push(struct lru_ghost *g,
				       const struct lru_key *key, __u32 cap)
{
	struct ghost_loop l = { .g = g };
	__u32 len = g->len;
	struct lru_key *k;

	if (!cap)
		return;
	if (cap > BHSCOPE_LRU_DEPTH_MAX)
		cap = BHSCOPE_LRU_DEPTH_MAX;
	if (len > BHSCOPE_LRU_DEPTH_MAX)
		len = BHSCOPE_LRU_DEPTH_MAX;
	if (len == cap) {
		/* the deepest key falls off */
		g->filter[GHOST_HASH(ghost_at(g, cap - 1))]--;
		len--;
	} else if (len > cap) {
		/* the cap shrank (bhtune grew the LRU): so many more */
		l.depth = cap - 1;
		bpf_loop(len - l.depth, ghost_drop_one, &l, 0);
		len = cap - 1;
	}
	g->head = GHOST_IDX(g->head - 1);
	k = ghost_at(g, 0);
	*k = *key;
	g->filter[GHOST_HASH(k)]++;
	g->len = len + 1;
}

/* Forgets every key. */
static __always_inline void ghost_clear(struct lru_ghost *g)
{
	if (!g->len)
		return;
	g->len = 0;
	__builtin_memset(g->filter, 0, sizeof(g->filter));
}

#endif /* BHSCOPE_LRU_GHOST_BPF_H */
