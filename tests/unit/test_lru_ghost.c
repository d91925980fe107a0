// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF ghost list (bpf/lru_ghost.bpf.h, compiled here as plain C) and
 * the claim the live what-if curve rests on: a real LRU of N slots plus the
 * ghost list of its evictions gives every lookup the same stack distance as
 * one exact LRU stack (the offline model, user/lrusim/lrusim.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <linux/types.h>

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/* The helper, as the kernel runs it: stop when the callback returns 1. */
static long bpf_loop(__u32 nr, long (*fn)(__u64, void *), void *ctx,
		     __u64 flags)
{
	(void)flags;
	for (__u32 i = 0; i < nr; i++)
		if (fn(i, ctx))
			return i + 1;
	return nr;
}

#include "../../bpf/lru/lru_ghost.bpf.h"
#include "lrusim/lrusim.h"

static struct lru_key key(__u64 block)
{
	return (struct lru_key){ .block = block, .dev = 1, .size = 4096 };
}

static void push_take_keep_recency_order(void **state)
{
	static struct lru_ghost g;
	struct lru_key k;

	(void)state;
	for (int b = 1; b <= 5; b++) {
		k = key(b);
		ghost_push(&g, &k, 4);	/* cap 4: 1 falls off */
	}
	assert_int_equal(g.len, 4);
	k = key(1);
	assert_int_equal(ghost_take(&g, &k), -1);
	k = key(3);
	assert_int_equal(ghost_take(&g, &k), 2);	/* 5 4 [3] 2 */
	assert_int_equal(g.len, 3);
	k = key(2);
	assert_int_equal(ghost_take(&g, &k), 2);	/* 5 4 [2] */
	k = key(5);
	assert_int_equal(ghost_take(&g, &k), 0);
	assert_int_equal(g.len, 1);
	assert_true(ghost_at(&g, 0)->block == 4);
}

/* The filter counts exactly the keys in the ring, by hash. */
static void assert_filter_counts_ring(struct lru_ghost *g)
{
	__typeof__(g->filter[0]) want[GHOST_FILTER_SIZE] = {};

	for (__u32 d = 0; d < g->len; d++)
		want[GHOST_HASH(ghost_at(g, d))]++;
	assert_memory_equal(want, g->filter, sizeof(want));
}

/* The ring wraps, and a cap that shrinks (bhtune grew the LRU) drops keys. */
static void ring_wraps_and_cap_shrinks(void **state)
{
	static struct lru_ghost g;
	struct lru_key k;

	(void)state;
	for (int b = 1; b <= 3 * BHSCOPE_LRU_DEPTH_MAX; b++) {
		k = key(b);
		ghost_push(&g, &k, 40);
	}
	assert_int_equal(g.len, 40);
	assert_filter_counts_ring(&g);
	k = key(3 * BHSCOPE_LRU_DEPTH_MAX - 39);
	assert_int_equal(ghost_take(&g, &k), 39);
	k = key(3 * BHSCOPE_LRU_DEPTH_MAX - 38);
	assert_int_equal(ghost_take(&g, &k), 38);
	k = key(3 * BHSCOPE_LRU_DEPTH_MAX - 40);
	assert_int_equal(ghost_take(&g, &k), -1);
	k = key(1);
	ghost_push(&g, &k, 10);	/* the cap shrank from 40 to 10 */
	assert_int_equal(g.len, 10);
	assert_filter_counts_ring(&g);
	assert_true(ghost_at(&g, 0)->block == 1);
	assert_true(ghost_at(&g, 9)->block == 3 * BHSCOPE_LRU_DEPTH_MAX - 8);
	ghost_clear(&g);
	assert_int_equal(g.len, 0);
	assert_filter_counts_ring(&g);
}

/*
 * A key absent whose filter counter another key holds: ghost_take()
 * walks the whole ring, moving every key, and must leave each at its
 * depth, the deepest included.
 */
static void absent_key_in_filter_leaves_ring(void **state)
{
	static struct lru_ghost g;
	struct lru_key k = key(1), twin;
	__u64 b = 1000;

	(void)state;
	for (int i = 1; i <= 13; i++) {	/* past one step of the walk */
		k = key(i);
		ghost_push(&g, &k, 40);
	}
	k = key(1);
	do
		twin = key(++b);
	while (GHOST_HASH(&twin) != GHOST_HASH(&k));
	assert_int_equal(ghost_take(&g, &twin), -1);
	assert_int_equal(g.len, 13);
	assert_filter_counts_ring(&g);
	for (int i = 1; i <= 13; i++) {
		k = key(i);
		assert_int_equal(ghost_find(&g, &k), 13 - i);
	}
	k = key(1);
	assert_int_equal(ghost_take(&g, &k), 12);
	assert_filter_counts_ring(&g);
}

static void zero_cap_keeps_nothing(void **state)
{
	static struct lru_ghost g;
	struct lru_key k = key(7);

	(void)state;
	ghost_push(&g, &k, 0);
	assert_int_equal(g.len, 0);
	assert_int_equal(ghost_take(&g, &k), -1);
}

/* The kernel's LRU of n slots, as fs/buffer.c keeps it. */
struct kernel_lru {
	struct lru_key bhs[BHSCOPE_LRU_SLOTS_MAX];
	int len, n;
};

static int kernel_lookup(struct kernel_lru *l, const struct lru_key *k)
{
	for (int i = 0; i < l->len; i++) {
		if (lru_key_eq(&l->bhs[i], k)) {
			memmove(&l->bhs[1], &l->bhs[0], i * sizeof(*k));
			l->bhs[0] = *k;
			return i;
		}
	}
	return -1;
}

/* Installs k; returns true and the victim when the LRU was full. */
static bool kernel_install(struct kernel_lru *l, const struct lru_key *k,
			   struct lru_key *victim)
{
	bool full = l->len == l->n;

	if (full)
		*victim = l->bhs[l->n - 1];
	else
		l->len++;
	memmove(&l->bhs[1], &l->bhs[0], (l->len - 1) * sizeof(*k));
	l->bhs[0] = *k;
	return full;
}

/* Skewed keys: a few hot ones, a long tail, and now and then a sweep. */
static __u64 next_block(unsigned int *seed, int i)
{
	int r = rand_r(seed) % 100;

	if (i % 500 < 40)
		return 1000 + i % 500;	/* sweep */
	if (r < 50)
		return rand_r(seed) % 6;
	if (r < 85)
		return 6 + rand_r(seed) % 20;
	return 26 + rand_r(seed) % 200;
}

static void live_ghost_matches_exact_stack(void **state)
{
	enum { N = 4, W = 24, LOOKUPS = 20000 };
	static struct lru_ghost g;
	struct lru_dev_stats live = {};
	struct kernel_lru l = { .n = N };
	struct lrusim sim;
	struct lru_event e = { .slot = -1, .lru_size = N, .outcome = LRU_SNAPSHOT };
	uint64_t hits[BHSCOPE_LRU_SLOTS_MAX], lo[BHSCOPE_LRU_SLOTS_MAX],
		 hi[BHSCOPE_LRU_SLOTS_MAX], below = 0;
	unsigned int seed = 42;
	uint64_t ghost_hits = 0;

	(void)state;
	assert_int_equal(lrusim_init(&sim, BHSCOPE_LRU_SLOTS_MAX, 1, 0, true), 0);
	/* the replay starts from the kernel's LRU: empty */
	assert_int_equal(lrusim_feed(&sim, &e), 0);
	for (int i = 0; i < LOOKUPS; i++) {
		struct lru_key k = key(next_block(&seed, i)), victim;
		int slot = kernel_lookup(&l, &k), depth;

		e = (struct lru_event){
			.block = k.block, .dev = k.dev, .size = k.size,
			.lru_size = N, .slot = -1,
			.flags = LRU_EV_FOUND | LRU_EV_FRONT,
		};
		/* What bpf/lru.bpf.c does with the lookup... */
		if (slot >= 0) {
			live.hits++;
			live.dist[slot]++;
			e.outcome = LRU_HIT;
			e.slot = slot;
		} else {
			live.installed++;
			depth = ghost_take(&g, &k);
			if (depth >= 0)
				live.dist[N + depth]++;
			if (kernel_install(&l, &k, &victim))
				ghost_push(&g, &victim, W - N);
			e.outcome = LRU_MISS_INSTALLED;
		}
		/* ...and what the offline model makes of its record. */
		assert_int_equal(lrusim_feed(&sim, &e), 0);
	}
	assert_int_equal(lrusim_disagreements(lrusim_cpu(&sim, 0)), 0);
	assert_filter_counts_ring(&g);
	lrusim_curve(lrusim_cpu(&sim, 0), W, hits, lo, hi);
	for (int d = 0; d < W; d++) {
		below += live.dist[d];
		/* hits at size d + 1: every distance below it */
		assert_int_equal(hits[d], below);
		assert_int_equal(lo[d], hi[d]);
		ghost_hits += d >= N ? live.dist[d] : 0;
	}
	/* The stream exercised hits, ghost hits and misses beyond W. */
	assert_true(live.hits > 1000);
	assert_true(ghost_hits > 1000);
	assert_true(live.installed - ghost_hits > 1000);
	lrusim_free(&sim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(push_take_keep_recency_order),
		cmocka_unit_test(zero_cap_keeps_nothing),
		cmocka_unit_test(ring_wraps_and_cap_shrinks),
		cmocka_unit_test(absent_key_in_filter_leaves_ring),
		cmocka_unit_test(live_ghost_matches_exact_stack),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
