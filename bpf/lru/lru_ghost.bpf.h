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

/*
 * 2048 counters for at most 254 keys (BHSCOPE_LRU_DEPTH_MAX less the
 * LRU's 2 or more slots, so a u8 holds any count): a miss whose key is
 * not here finds its counter 0 but for about one in 40 with --whatif 64
 * (48 keys), and a search costs tens of instructions a key.
 */
#define GHOST_FILTER_BITS	11
#define GHOST_FILTER_SIZE	(1U << GHOST_FILTER_BITS)

struct lru_ghost {
	__u32 len;
	__u32 head;				/* index of depth 0 */
	struct lru_key keys[BHSCOPE_LRU_DEPTH_MAX];
	__u8 filter[GHOST_FILTER_SIZE];		/* keys per hash */
};

/* The unit tests compile this header with gcc too. */
#ifdef __clang__
#define GHOST_UNROLL	_Pragma("clang loop unroll(full)")
#else
#define GHOST_UNROLL
#endif

typedef __u64 __attribute__((may_alias)) ghost_u64;

/* dev and size as one word: a key is two compares */
static __always_inline __u64 lru_key_devsize(const struct lru_key *k)
{
	return *(const ghost_u64 *)&k->dev;
}

_Static_assert(__builtin_offsetof(struct lru_key, size) ==
	       __builtin_offsetof(struct lru_key, dev) + 4,
	       "lru_key_devsize() reads dev and size as one u64");

static __always_inline bool lru_key_eq(const struct lru_key *a,
				       const struct lru_key *b)
{
	return a->block == b->block && lru_key_devsize(a) == lru_key_devsize(b);
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
_Static_assert(GHOST_FILTER_SIZE % 64 == 0, "ghost_clear() zeroes 64 bytes a step");
_Static_assert(BHSCOPE_LRU_DEPTH_MAX - 2 < 256,
	       "filter counts are u8: at most DEPTH_MAX - 2 keys");

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
	__u32 depth;		/* searched below it: where the key was found;
				 * dropping: the first key to drop */
	__u32 found;
};

/*
 * Keys a step of the search compares: a bpf_loop() step costs about as
 * much as a comparison, so each compares several.
 */
#define GHOST_FIND_STEP	8

/* Compares the keys at depths GHOST_FIND_STEP * i ... below l->depth. */
static long ghost_find_step(__u64 i, void *data)
{
	struct ghost_loop *l = data;
	__u64 block = l->key->block, devsize = lru_key_devsize(l->key);
	__u32 d = i * GHOST_FIND_STEP, end = l->depth;
	const struct lru_key *k;

GHOST_UNROLL
	for (int j = 0; j < GHOST_FIND_STEP; j++, d++) {
		if (d >= end)
			return 1;
		k = ghost_at(l->g, d);
		if (k->block == block && lru_key_devsize(k) == devsize) {
			l->depth = d;
			l->found = 1;
			return 1;
		}
	}
	return 0;
}

/*
 * ghost_take()'s walk, in one pass: each key moves one deeper, the one in
 * front of it taking its place, from depth 0 (which takes the key sought)
 * to the key sought, which is overwritten, or to depth len, which takes
 * the last one. Either way the key sought then sits at depth 0 and the
 * rest in their order behind it, so ghost_take() drops depth 0.
 */
struct ghost_walk {
	struct lru_ghost *g;
	struct lru_key sought;
	struct lru_key moving;	/* the key the next step puts down */
	__u32 head;		/* the ring's index of depth 0 */
	__u32 end;		/* and of depth len */
	__u32 depth;		/* where the key sought was */
	__u32 found;
};

static long ghost_take_step(__u64 i, void *data)
{
	struct ghost_walk *w = data;
	/*
	 * All in registers (for clang a store into the ring may alias w),
	 * and few of them: ring indices, not depths, until the key is found
	 */
	struct lru_key *keys = w->g->keys, moving = w->moving, seen;
	__u64 block = w->sought.block, devsize = lru_key_devsize(&w->sought);
	__u32 at = GHOST_IDX(w->head + i * GHOST_FIND_STEP), end = w->end;
	struct lru_key *k;

GHOST_UNROLL
	for (int j = 0; j < GHOST_FIND_STEP; j++, at = GHOST_IDX(at + 1)) {
		k = &keys[at];
		if (at == end) {
			*k = moving;
			return 1;
		}
		seen = *k;
		*k = moving;
		if (seen.block == block && lru_key_devsize(&seen) == devsize) {
			w->depth = GHOST_IDX(at - w->head);
			w->found = 1;
			return 1;
		}
		moving = seen;
	}
	w->moving = moving;
	return 0;
}

/* Forgets the key at depth d + i (the loop runs from the shallowest). */
static long ghost_drop_one(__u64 i, void *data)
{
	struct ghost_loop *l = data;

	l->g->filter[GHOST_HASH(ghost_at(l->g, l->depth + i))]--;
	return 0;
}

/* Searches the len keys for key: its depth, or -1. */
static __always_inline int ghost_search(struct lru_ghost *g,
					const struct lru_key *key, __u32 len)
{
	struct ghost_loop l = { .g = g, .key = key, .depth = len };

	bpf_loop((len + GHOST_FIND_STEP - 1) / GHOST_FIND_STEP,
		 ghost_find_step, &l, 0);
	return l.found ? (int)l.depth : -1;
}

/* Depth of key (0: evicted last), left where it is; -1 if it is absent. */
static __always_inline int ghost_find(struct lru_ghost *g,
				      const struct lru_key *key)
{
	__u32 len = g->len;

	if (!g->filter[GHOST_HASH(key)])
		return -1;
	if (len > BHSCOPE_LRU_DEPTH_MAX)
		len = BHSCOPE_LRU_DEPTH_MAX;
	return ghost_search(g, key, len);
}

/*
 * Depth of key (0: evicted last) after removing it; -1 if it is absent.
 * A search and then a shift of the keys in front of it cost each of them
 * two passes; ghost_take_step() moves them while it searches. A key the
 * filter let through but absent is walked over all the same, and the
 * ring is left as it was, each key one slot further round.
 */
static __always_inline int ghost_take(struct lru_ghost *g,
				      const struct lru_key *key)
{
	struct ghost_walk w = { .g = g, .sought = *key, .moving = *key };
	__u32 len = g->len, h = GHOST_HASH(key);

	if (!g->filter[h])
		return -1;
	if (len > BHSCOPE_LRU_DEPTH_MAX - 1)
		len = BHSCOPE_LRU_DEPTH_MAX - 1;	/* depth len is written */
	w.head = g->head;
	w.end = GHOST_IDX(g->head + len);
	bpf_loop(len / GHOST_FIND_STEP + 1, ghost_take_step, &w, 0);
	/* the key sought is at depth 0 now: dropped */
	g->head = GHOST_IDX(g->head + 1);
	if (!w.found)
		return -1;
	g->len = len - 1;
	g->filter[h]--;
	return w.depth;
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

/* Zeroes 8 words of the filter (too long for clang to inline a memset). */
static long ghost_clear_step(__u64 i, void *data)
{
	ghost_u64 *w = (ghost_u64 *)((struct ghost_loop *)data)->g->filter;

	i = (i * 8) & (sizeof(((struct lru_ghost *)0)->filter) / 8 - 1);
GHOST_UNROLL
	for (int j = 0; j < 8; j++)
		w[i + j] = 0;
	return 0;
}

/* Forgets every key. */
static __always_inline void ghost_clear(struct lru_ghost *g)
{
	/* 6.1's bpf_loop() takes a context on the stack only */
	struct ghost_loop l = { .g = g };

	if (!g->len)
		return;
	g->len = 0;
	bpf_loop(sizeof(g->filter) / 64, ghost_clear_step, &l, 0);
}

#endif /* BHSCOPE_LRU_GHOST_BPF_H */
