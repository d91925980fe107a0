// SPDX-License-Identifier: GPL-2.0
/*
 * The offline LRU model against reference strings worked out by hand.
 * Keys are single letters (block numbers 'A', 'B', ...) on device 1, size
 * 4096, unless a test says otherwise; the traced LRU has 2 slots.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lru/lru_curve.h"
#include "lru_stats.h"
#include "lru/lrusim.h"

#define DEV 1
#define LRU 2

static struct lru_event ev(int cpu, char key, int outcome, int slot)
{
	return (struct lru_event){
		.block = (unsigned char)key,
		.dev = DEV,
		.size = 4096,
		.cpu = cpu,
		.slot = slot,
		.lru_size = LRU,
		.outcome = outcome,
	};
}

static void feed(struct lrusim *sim, struct lru_event e)
{
	assert_int_equal(lrusim_feed(sim, &e), 0);
}

static void hit(struct lrusim *sim, int cpu, char key, int slot)
{
	feed(sim, ev(cpu, key, LRU_HIT, slot));
}

static void installed(struct lrusim *sim, int cpu, char key)
{
	feed(sim, ev(cpu, key, LRU_MISS_INSTALLED, -1));
}

static void snapshot(struct lrusim *sim, int cpu, const char *keys)
{
	for (int i = 0; keys[i]; i++)
		feed(sim, ev(cpu, keys[i], LRU_SNAPSHOT, i));
}

static void curve(const struct lru_dev_stats *s, double *r, int n)
{
	lru_curve(s, r, n);
}

/*
 * A B C A B C A B C on an LRU of 2: the kernel misses every time. The
 * first three are cold; the other six have distance 2 (two other keys
 * since their last use), so an LRU of 3 would hit 6 of 9.
 */
static void cyclic_string_has_distance_k_minus_1(void **state)
{
	struct lrusim sim;
	double r[4];

	(void)state;
	assert_int_equal(lrusim_init(&sim, 4, LRU, 0), 0);
	for (int pass = 0; pass < 3; pass++)
		for (const char *k = "ABC"; *k; k++)
			installed(&sim, 0, *k);
	curve(&sim.cpus[0].stats, r, 4);
	assert_int_equal(sim.cpus[0].stats.dist[2], 6);
	assert_true(r[0] == 0 && r[1] == 0);
	assert_true(r[2] == 6.0 / 9 && r[3] == 6.0 / 9);
	/* The LRU was full (2 entries) for every install after the second. */
	assert_int_equal(sim.cpus[0].stats.evictions, 7);
	assert_int_equal(sim.desync, 0);
	lrusim_free(&sim);
}

/*
 * From a snapshot [A B]: B hits in slot 1 (stack [B A]), B again in slot
 * 0, then A in slot 1. Distances 1, 0, 1: an LRU of 1 hits 1 of 3.
 */
static void hits_follow_the_snapshot(void **state)
{
	struct lrusim sim;
	double r[2];

	(void)state;
	assert_int_equal(lrusim_init(&sim, 2, LRU, 0), 0);
	snapshot(&sim, 0, "AB");
	hit(&sim, 0, 'B', 1);
	hit(&sim, 0, 'B', 0);
	hit(&sim, 0, 'A', 1);
	curve(&sim.cpus[0].stats, r, 2);
	assert_int_equal(sim.cpus[0].stats.dist[0], 1);
	assert_int_equal(sim.cpus[0].stats.dist[1], 2);
	assert_true(r[0] == 1.0 / 3 && r[1] == 1.0);
	assert_int_equal(sim.snapshots, 1);
	assert_int_equal(sim.desync, 0);
	lrusim_free(&sim);
}

/* A hit the model puts in another slot is a desync, counted at the kernel's. */
static void wrong_slot_is_a_desync(void **state)
{
	struct lrusim sim;

	(void)state;
	assert_int_equal(lrusim_init(&sim, 2, LRU, 0), 0);
	snapshot(&sim, 0, "AB");
	hit(&sim, 0, 'A', 1);
	assert_int_equal(sim.desync, 1);
	assert_int_equal(sim.cpus[0].stats.dist[1], 1);
	/* An installed miss the model holds in the LRU is one too. */
	installed(&sim, 0, 'B');
	assert_int_equal(sim.desync, 2);
	lrusim_free(&sim);
}

/*
 * Misses that install nothing leave the stack alone: A B, absent C, then
 * A has distance 1, not 2.
 */
static void absent_and_not_installed_change_nothing(void **state)
{
	struct lrusim sim;

	(void)state;
	assert_int_equal(lrusim_init(&sim, 4, LRU, 0), 0);
	installed(&sim, 0, 'A');
	installed(&sim, 0, 'B');
	feed(&sim, ev(0, 'C', LRU_MISS_ABSENT, -1));
	feed(&sim, ev(0, 'D', LRU_MISS_NOT_INSTALLED, -1));
	hit(&sim, 0, 'A', 1);
	assert_int_equal(sim.cpus[0].stats.dist[1], 1);
	assert_int_equal(sim.cpus[0].stats.absent, 1);
	assert_int_equal(sim.cpus[0].stats.not_installed, 1);
	assert_int_equal(sim.cpus[0].stats.lookups, 5);
	assert_int_equal(sim.desync, 0);
	lrusim_free(&sim);
}

/* The LRU was emptied (EMPTY flag): A is cold again, not at distance 1. */
static void emptied_lru_restarts_the_stack(void **state)
{
	struct lrusim sim;
	struct lru_event e;

	(void)state;
	assert_int_equal(lrusim_init(&sim, 4, LRU, 0), 0);
	installed(&sim, 0, 'A');
	installed(&sim, 0, 'B');
	e = ev(0, 'A', LRU_MISS_INSTALLED, -1);
	e.flags = LRU_EV_EMPTY;
	feed(&sim, e);
	for (int d = 0; d < 4; d++)
		assert_int_equal(sim.cpus[0].stats.dist[d], 0);
	assert_int_equal(sim.resets, 1);
	/* bhtune's reset record does the same. */
	installed(&sim, 0, 'B');
	feed(&sim, ev(0, 0, LRU_RESET, -1));
	installed(&sim, 0, 'A');
	assert_int_equal(sim.cpus[0].stats.dist[1], 0);
	assert_int_equal(sim.resets, 2);
	lrusim_free(&sim);
}

/*
 * An unsynced lookup that left its bh in slot 0 drops what the model
 * knew; the next snapshot gives it the LRU back, and the ghost part is
 * gone: C, evicted before, is cold.
 */
static void unsynced_front_waits_for_a_snapshot(void **state)
{
	struct lrusim sim;
	struct lru_event e;

	(void)state;
	assert_int_equal(lrusim_init(&sim, 4, LRU, 0), 0);
	installed(&sim, 0, 'C');
	installed(&sim, 0, 'A');
	installed(&sim, 0, 'B');	/* stack B A C */
	e = ev(0, 'A', LRU_UNSYNCED, -1);
	e.flags = LRU_EV_RESTART;
	feed(&sim, e);
	snapshot(&sim, 0, "AB");
	hit(&sim, 0, 'B', 1);
	installed(&sim, 0, 'C');
	assert_int_equal(sim.cpus[0].stats.unsynced, 1);
	assert_int_equal(sim.cpus[0].stats.dist[1], 1);
	assert_int_equal(sim.cpus[0].stats.dist[2], 0);
	assert_int_equal(sim.desync, 0);
	/* Unsynced lookups are not in the curve's denominator. */
	assert_int_equal(lru_classified(&sim.cpus[0].stats), 5);
	lrusim_free(&sim);
}

/* CPUs have their own stacks: A on CPU 0 says nothing about CPU 3. */
static void cpus_are_independent(void **state)
{
	struct lrusim sim;

	(void)state;
	assert_int_equal(lrusim_init(&sim, 4, LRU, 0), 0);
	installed(&sim, 0, 'A');
	installed(&sim, 0, 'B');
	installed(&sim, 3, 'A');
	installed(&sim, 0, 'C');
	installed(&sim, 0, 'A');
	assert_int_equal(sim.nr_cpus, 4);
	assert_int_equal(sim.cpus[3].stats.installed, 1);
	assert_int_equal(sim.cpus[3].stats.dist[0] + sim.cpus[3].stats.dist[1], 0);
	assert_int_equal(sim.cpus[0].stats.dist[2], 1);
	lrusim_free(&sim);
}

/* -d: only that device is counted, but every device is in the model. */
static void device_filter_counts_but_keeps_modelling(void **state)
{
	struct lrusim sim;
	struct lru_event e;
	struct lru_dev_stats total;

	(void)state;
	assert_int_equal(lrusim_init(&sim, 4, LRU, DEV), 0);
	installed(&sim, 0, 'A');
	e = ev(0, 'X', LRU_MISS_INSTALLED, -1);
	e.dev = DEV + 1;
	feed(&sim, e);
	installed(&sim, 0, 'B');
	installed(&sim, 0, 'A');	/* distance 2: X and B since */
	lrusim_total(&sim, &total);
	assert_int_equal(total.lookups, 3);
	assert_int_equal(total.dist[2], 1);
	lrusim_free(&sim);
}

/* Beyond the depth asked for, keys fall off: A is cold after 4 others. */
static void stack_keeps_depth_keys(void **state)
{
	struct lrusim sim;

	(void)state;
	assert_int_equal(lrusim_init(&sim, 4, LRU, 0), 0);
	for (const char *k = "ABCDEA"; *k; k++)
		installed(&sim, 0, *k);
	for (int d = 0; d < 4; d++)
		assert_int_equal(sim.cpus[0].stats.dist[d], 0);
	installed(&sim, 0, 'D');	/* D: distance 2 (A, E) */
	assert_int_equal(sim.cpus[0].stats.dist[2], 1);
	lrusim_free(&sim);
}

/* Lost events: the CPU's model starts over at the flagged record. */
static void gap_restarts_the_cpu(void **state)
{
	struct lrusim sim;
	struct lru_event e;

	(void)state;
	assert_int_equal(lrusim_init(&sim, 4, LRU, 0), 0);
	installed(&sim, 0, 'A');
	installed(&sim, 0, 'B');
	e = ev(0, 'A', LRU_MISS_INSTALLED, -1);
	e.flags = LRU_EV_GAP;
	feed(&sim, e);
	assert_int_equal(sim.gaps, 1);
	assert_int_equal(sim.cpus[0].stats.dist[1], 0);
	lrusim_free(&sim);
}

static void bad_input_is_refused(void **state)
{
	struct lrusim sim;
	struct lru_event e = ev(0, 'A', 99, -1);

	(void)state;
	assert_int_equal(lrusim_init(&sim, 0, LRU, 0), -EINVAL);
	assert_int_equal(lrusim_init(&sim, BHSCOPE_LRU_DEPTH_MAX + 1, LRU, 0),
			 -EINVAL);
	assert_int_equal(lrusim_init(&sim, 4, LRU, 0), 0);
	assert_int_equal(lrusim_feed(&sim, &e), -EINVAL);
	e = ev(1 << 30, 'A', LRU_HIT, 0);
	assert_int_equal(lrusim_feed(&sim, &e), -EINVAL);
	lrusim_free(&sim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cyclic_string_has_distance_k_minus_1),
		cmocka_unit_test(hits_follow_the_snapshot),
		cmocka_unit_test(wrong_slot_is_a_desync),
		cmocka_unit_test(absent_and_not_installed_change_nothing),
		cmocka_unit_test(emptied_lru_restarts_the_stack),
		cmocka_unit_test(unsynced_front_waits_for_a_snapshot),
		cmocka_unit_test(cpus_are_independent),
		cmocka_unit_test(device_filter_counts_but_keeps_modelling),
		cmocka_unit_test(stack_keeps_depth_keys),
		cmocka_unit_test(gap_restarts_the_cpu),
		cmocka_unit_test(bad_input_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
