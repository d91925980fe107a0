// SPDX-License-Identifier: GPL-2.0
/* LRU intervals, the what-if curve, and the reports built from them. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bhscope.h"
#include "lru/lru_curve.h"
#include "lru/lru_report.h"
#include "lru/lru_snapshot.h"

#define NR_CPUS 2
#define RAM0 BHSCOPE_KDEV(1, 0)
#define LOOP0 BHSCOPE_KDEV(7, 0)

static void add_dev(struct lru_snapshot *s, uint32_t kdev, __u64 hits,
		    __u64 installed)
{
	struct lru_dev_stats cpu[NR_CPUS] = {};

	for (int c = 0; c < NR_CPUS; c++) {
		cpu[c].hits = hits * (c + 1);
		cpu[c].installed = installed * (c + 1);
		cpu[c].lookups = cpu[c].hits + cpu[c].installed;
		cpu[c].dist[3] = cpu[c].hits;
		cpu[c].dist[20] = cpu[c].installed;
	}
	assert_int_equal(lru_snapshot_add_dev(s, kdev, cpu), 0);
}

/* A filter that matches nothing: no devices, devs NULL (UBSan: qsort). */
static void delta_of_no_devices_is_empty(void **state)
{
	struct lru_snapshot prev = { .nr_cpus = NR_CPUS };
	struct lru_snapshot cur = { .nr_cpus = NR_CPUS }, d;

	(void)state;
	assert_int_equal(lru_snapshot_delta(&d, &cur, &prev), 0);
	assert_int_equal(d.nr_devs, 0);
	lru_snapshot_free(&d);
}

static void delta_is_per_cpu_difference_with_new_devices_from_zero(void **state)
{
	struct lru_snapshot prev = { .nr_cpus = NR_CPUS };
	struct lru_snapshot cur = { .nr_cpus = NR_CPUS }, d;
	struct lru_cpu_counters c0[NR_CPUS] = { { .resets = 1 }, { .resets = 2 } };
	struct lru_cpu_counters c1[NR_CPUS] = { { .resets = 4 }, { .resets = 2 } };
	struct lru_cpu_counters total;
	struct lru_dev_stats s;

	(void)state;
	add_dev(&prev, RAM0, 10, 1);
	assert_int_equal(lru_snapshot_set_counters(&prev, c0), 0);
	add_dev(&cur, RAM0, 15, 1);
	add_dev(&cur, LOOP0, 3, 0);
	assert_int_equal(lru_snapshot_set_counters(&cur, c1), 0);
	assert_int_equal(lru_snapshot_delta(&d, &cur, &prev), 0);

	assert_int_equal(d.nr_devs, 2);
	assert_int_equal(d.devs[0].kdev, RAM0);	/* sorted */
	assert_int_equal(d.devs[0].cpu[0].hits, 5);
	assert_int_equal(d.devs[0].cpu[1].hits, 10);
	assert_int_equal(d.devs[0].total.installed, 0);
	assert_int_equal(d.devs[1].total.hits, 3 + 6);
	lru_snapshot_cpu(&d, 1, &s);
	assert_int_equal(s.hits, 10 + 6);
	assert_int_equal(s.dist[3], 16);
	lru_snapshot_counters_total(&d, &total);
	assert_int_equal(total.resets, 3);
	lru_snapshot_free(&d);
	lru_snapshot_free(&cur);
	lru_snapshot_free(&prev);
}

/* A device counted in a bucket on one CPU and in the hash map on another. */
static void a_device_from_several_places_adds_up(void **state)
{
	struct lru_snapshot s = { .nr_cpus = NR_CPUS };
	struct lru_dev_stats one = { .lookups = 3, .hits = 2, .dist[1] = 2 };

	(void)state;
	assert_int_equal(lru_snapshot_add_cpu(&s, RAM0, 1, &one), 0);
	add_dev(&s, RAM0, 10, 1);
	assert_int_equal(lru_snapshot_add_cpu(&s, LOOP0, 0, &one), 0);
	assert_int_equal(s.nr_devs, 2);
	assert_int_equal(s.devs[0].kdev, RAM0);
	assert_int_equal(s.devs[0].cpu[0].hits, 10);
	assert_int_equal(s.devs[0].cpu[1].hits, 2 + 20);
	assert_int_equal(s.devs[0].cpu[1].dist[1], 2);
	assert_int_equal(s.devs[0].total.lookups, 3 + 11 + 22);
	assert_int_equal(s.devs[1].total.hits, 2);
	assert_int_equal(s.devs[1].cpu[1].hits, 0);
	lru_snapshot_free(&s);
}

static void curve_is_cumulative_distance_over_classified_lookups(void **state)
{
	struct lru_dev_stats s = {};
	double r[32];

	(void)state;
	lru_curve(&s, r, 32);
	assert_true(isnan(r[0]) && isnan(lru_curve_hit_ratio(&s)));
	s.hits = 6;
	s.installed = 3;
	s.absent = 1;
	s.unsynced = 90;	/* not classified: not in the denominator */
	s.dist[0] = 4;
	s.dist[1] = 2;
	s.dist[17] = 2;		/* installed misses found in the ghost list */
	lru_curve(&s, r, 32);
	assert_true(r[0] == 0.4 && r[1] == 0.6 && r[16] == 0.6);
	assert_true(r[17] == 0.8 && r[31] == 0.8);
	assert_true(lru_curve_hit_ratio(&s) == 0.6);
	assert_int_equal(lru_curve_classified(&s), 10);
}

static struct lru_hooks hooks_in(enum lru_mode mode)
{
	struct lru_hooks s = { .mode = mode, .lru_size = 16 };

	for (int f = 0; f < LRU_NR_FIGURES; f++) {
		s.fig[f].available = mode != LRU_MODE_TRACEPOINT ||
				     f == LRU_FIG_HITS || f == LRU_FIG_LRU_SIZE;
		snprintf(s.fig[f].why, sizeof(s.fig[f].why), "reason %d", f);
	}
	snprintf(s.hook, sizeof(s.hook), "%s:x", lru_mode_names[mode]);
	return s;
}

static struct json_object *report_json(const struct lru_hooks *sess,
				       int whatif)
{
	struct lru_snapshot d = { .nr_cpus = NR_CPUS };
	struct lru_report_ctx ctx = { .elapsed_s = 2, .whatif = whatif,
				      .lru_size = 16, .hooks = sess,
				      .per_cpu = true };
	struct json_object *o;

	add_dev(&d, RAM0, 10, 5);
	o = lru_report_json(&ctx, &d);
	lru_snapshot_free(&d);
	return o;
}

static struct json_object *get(struct json_object *o, const char *path)
{
	char buf[128], *key, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (key = strtok_r(buf, ".", &save); key && o;
	     key = strtok_r(NULL, ".", &save))
		if (!json_object_object_get_ex(o, key, &o))
			return (struct json_object *)-1;
	return o;
}

static void tracepoint_mode_reports_null_not_zero(void **state)
{
	struct lru_hooks sess = hooks_in(LRU_MODE_TRACEPOINT);
	struct json_object *o = report_json(&sess, 64);

	(void)state;
	assert_string_equal(json_object_get_string(get(o, "schema")),
			    LRU_JSON_SCHEMA);
	assert_int_equal(json_object_get_int(get(o, "total.hits")), 30);
	assert_null(get(o, "total.lookups"));
	assert_null(get(o, "total.hit_ratio"));
	assert_null(get(o, "total.slots"));
	assert_null(get(o, "total.whatif"));
	assert_null(get(o, "total.evictions"));
	assert_null(get(o, "counters.resets"));
	assert_string_equal(json_object_get_string(get(o, "unavailable.lookups")),
			    "reason 1");
	assert_true(get(o, "unavailable.hits") == (struct json_object *)-1);
	json_object_put(o);
}

static void lookup_mode_reports_slots_and_curve(void **state)
{
	struct lru_hooks sess = hooks_in(LRU_MODE_FENTRY);
	struct json_object *o = report_json(&sess, 32), *cpus, *w;

	(void)state;
	assert_int_equal(json_object_get_int(get(o, "total.lookups")), 45);
	assert_true(json_object_get_double(get(o, "total.hit_ratio")) == 30.0 / 45);
	assert_int_equal(json_object_array_length(get(o, "total.slots")), 16);
	assert_int_equal(json_object_get_int(
				 json_object_array_get_idx(get(o, "total.slots"), 3)), 30);
	w = get(o, "total.whatif.hit_ratio");
	assert_int_equal(json_object_array_length(w), 32);
	assert_true(json_object_get_double(json_object_array_get_idx(w, 2)) == 0);
	assert_true(json_object_get_double(json_object_array_get_idx(w, 3)) == 30.0 / 45);
	assert_true(json_object_get_double(json_object_array_get_idx(w, 20)) == 1);
	/* runs of one ratio share an object: the text is each one's */
	assert_string_equal(json_object_to_json_string_ext(w, JSON_C_TO_STRING_PLAIN),
			    "[0,0,0,0.666667,0.666667,0.666667,0.666667,0.666667,"
			    "0.666667,0.666667,0.666667,0.666667,0.666667,0.666667,"
			    "0.666667,0.666667,0.666667,0.666667,0.666667,0.666667,"
			    "1,1,1,1,1,1,1,1,1,1,1,1]");
	cpus = get(o, "cpus");
	assert_int_equal(json_object_array_length(cpus), NR_CPUS);
	assert_int_equal(json_object_get_int(get(json_object_array_get_idx(cpus, 1),
						 "hits")), 20);
	assert_true(json_object_get_double(get(o, "total.lookups_per_s")) == 22.5);
	json_object_put(o);
}

static char *text_of(const struct lru_hooks *sess, int whatif)
{
	struct lru_snapshot d = { .nr_cpus = NR_CPUS };
	struct lru_report_ctx ctx = { .elapsed_s = 1, .whatif = whatif,
				      .lru_size = 16, .hooks = sess };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	add_dev(&d, RAM0, 10, 5);
	lru_report_text(f, &ctx, &d);
	fclose(f);
	lru_snapshot_free(&d);
	return buf;
}

static void text_says_only_what_was_measured(void **state)
{
	struct lru_hooks tp = hooks_in(LRU_MODE_TRACEPOINT);
	struct lru_hooks fe = hooks_in(LRU_MODE_FENTRY);
	char *t = text_of(&tp, 0), *f = text_of(&fe, 24);

	(void)state;
	assert_non_null(strstr(t, "HITS/s"));
	assert_null(strstr(t, "LOOKUPS"));
	assert_null(strstr(t, "what-if"));
	assert_non_null(strstr(f, "LOOKUPS/s"));
	assert_non_null(strstr(f, "66.67%"));
	assert_non_null(strstr(f, "hit slot"));
	/* The curve marks the kernel's size and ends at --whatif. */
	assert_non_null(strstr(f, "   16*    66.67%"));
	assert_non_null(strstr(f, "   21    100.00%"));
	assert_non_null(strstr(f, "   24    100.00%"));
	assert_null(strstr(f, "   25 "));
	free(t);
	free(f);
}

/* Lookup times asked for and not there (the deferred hook, bhtune) are
 * said in the text, as JSON's figures_unavailable says them; not asked
 * for, nothing. */
static void text_says_asked_times_are_unavailable(void **state)
{
	struct lru_hooks asked = hooks_in(LRU_MODE_FENTRY);
	struct lru_hooks unasked = hooks_in(LRU_MODE_FENTRY);
	char *a, *u;

	(void)state;
	asked.time_every = 64;
	asked.fig[LRU_FIG_TIMES].available = false;
	snprintf(asked.fig[LRU_FIG_TIMES].why,
		 sizeof(asked.fig[LRU_FIG_TIMES].why), "no exit to time to");
	unasked.fig[LRU_FIG_TIMES].available = false;
	a = text_of(&asked, 0);
	u = text_of(&unasked, 0);
	assert_non_null(strstr(a, "\nlookup times: unavailable: no exit to time to\n"));
	assert_null(strstr(u, "lookup times"));
	free(a);
	free(u);
}

/* The figures of a probe that lost lookups and could not prove some. */
static struct json_object *lossy_json(enum lru_mode mode, bool known,
				      char **text)
{
	struct lru_hooks sess = hooks_in(mode);
	struct lru_snapshot prev = { .nr_cpus = NR_CPUS }, cur = prev, d;
	struct lru_cpu_counters c0[NR_CPUS] = {
		{ .entries = 100, .exits = 100 }, { .entries = 50, .exits = 50 },
	};
	struct lru_cpu_counters c1[NR_CPUS] = {
		{ .entries = 140, .exits = 130, .lookups_lost = 2, .resyncs = 1 },
		{ .entries = 50, .exits = 55, .unsynced_nodev = 1 },
	};
	struct lru_report_ctx ctx = { .elapsed_s = 1, .whatif = 32,
				      .lru_size = 16, .hooks = &sess };
	struct json_object *o;
	size_t len = 0;
	FILE *f;

	assert_int_equal(lru_snapshot_set_counters(&prev, c0), 0);
	prev.exit_misses = 7;
	prev.entry_misses = 1;
	prev.misses_known = true;
	add_dev(&cur, RAM0, 10, 5);	/* 15 + 30 lookups */
	assert_int_equal(lru_snapshot_set_counters(&cur, c1), 0);
	cur.exit_misses = 10;
	cur.entry_misses = 4;
	cur.misses_known = known;
	cur.emptied_misses = 2;
	assert_int_equal(lru_snapshot_delta(&d, &cur, &prev), 0);
	o = lru_report_json(&ctx, &d);
	f = open_memstream(text, &len);
	lru_report_text(f, &ctx, &d);
	fclose(f);
	lru_snapshot_free(&prev);
	lru_snapshot_free(&cur);
	lru_snapshot_free(&d);
	return o;
}

static void lost_lookups_are_reported_and_marked(void **state)
{
	char *text;
	struct json_object *o = lossy_json(LRU_MODE_FENTRY, true, &text);

	(void)state;
	/* fexit: skipped exits (recursion_misses) + exits that found it busy */
	assert_int_equal(json_object_get_int(get(o, "lost_lookups")), 3 + 2);
	assert_int_equal(json_object_get_int(get(o, "unsynced_lookups")), 1);
	assert_true(json_object_get_double(get(o, "lost_share")) == 5.0 / (45 + 1 + 5));
	assert_string_equal(json_object_get_string(get(o, "whatif_exact_sizes")), "1-16");
	assert_string_equal(json_object_get_string(get(o, "whatif_above")), "lower bound");
	assert_non_null(strstr(text, "lost: 5 lookups"));
	assert_non_null(strstr(text, "every figure above misses them"));
	assert_non_null(strstr(text, "sizes 17-32: lower bound"));
	/* an emptying the model did not see: hits of a lone entry unsure */
	assert_int_equal(json_object_get_int(get(o, "counters.emptied_misses")), 2);
	assert_non_null(strstr(text, "emptyings unseen: 2 runs"));
	json_object_put(o);
	free(text);
}

static void kprobe_lost_lookups_are_entries_without_a_return(void **state)
{
	char *text;
	struct json_object *o = lossy_json(LRU_MODE_KPROBE, true, &text);

	(void)state;
	/*
	 * 40 + 0 entries ran and 3 were skipped, 30 + 5 exits ran: 8 lookups
	 * without a return, + 2 busy
	 */
	assert_int_equal(json_object_get_int(get(o, "lost_lookups")), 8 + 2);
	assert_true(json_object_get_boolean(get(o, "lost_lookups_complete")));
	assert_int_equal(json_object_get_int(get(o, "counters.entry_misses")), 3);
	assert_null(strstr(text, "lower bound: this kernel"));
	json_object_put(o);
	free(text);
}

/* Where the kernel does not count skipped runs, lost is a lower bound. */
static void uncounted_misses_make_lost_a_lower_bound(void **state)
{
	char *text;
	struct json_object *o = lossy_json(LRU_MODE_KPROBE, false, &text);

	(void)state;
	assert_false(json_object_get_boolean(get(o, "lost_lookups_complete")));
	assert_non_null(strstr(text, "lost: at least 10 lookups"));
	assert_non_null(strstr(text, "lost is a lower bound"));
	json_object_put(o);
	free(text);
}

static void lookups_in_a_clean_interval_are_exact(void **state)
{
	struct lru_cpu_counters clean = {}, reread = { .resyncs = 1 },
				moved = { .resyncs = 1, .ghost_not_installed = 1 },
				pinned = { .ghost_absent = 1 };

	(void)state;
	assert_string_equal(lru_curve_above_exactness(&clean), "exact");
	assert_string_equal(lru_curve_above_exactness(&reread), "lower bound");
	assert_string_equal(lru_curve_above_exactness(&moved), "approximate");
	/* a larger LRU would have pinned a buffer the kernel found absent */
	assert_string_equal(lru_curve_above_exactness(&pinned), "approximate");
}

/*
 * 60 hits and 20 misses classified, 20 unsynced of which 5 proven misses:
 * over all 100 lookups the ratio lies between 60/100 (every other
 * unsynced one a miss) and 75/100 (each a hit); HIT% (75 %) is over the
 * classified ones only, and leans high.
 */
static void unsynced_lookups_give_the_ratio_a_range(void **state)
{
	struct lru_dev_stats s = { .hits = 60, .installed = 15, .absent = 5,
				   .unsynced = 20, .unsynced_misses = 5 };
	struct lru_dev_stats none = {}, exact = { .hits = 3, .installed = 1 };
	double lo, hi;

	(void)state;
	assert_true(fabs(lru_curve_hit_ratio(&s) - 0.75) < 1e-12);
	lru_curve_hit_ratio_range(&s, &lo, &hi);
	assert_true(fabs(lo - 0.60) < 1e-12);
	assert_true(fabs(hi - 0.75) < 1e-12);
	/* every unsynced one proven a miss: one value */
	s.unsynced_misses = 20;
	lru_curve_hit_ratio_range(&s, &lo, &hi);
	assert_true(lo == hi && fabs(lo - 0.60) < 1e-12);
	lru_curve_hit_ratio_range(&exact, &lo, &hi);
	assert_true(lo == 0.75 && hi == 0.75);
	lru_curve_hit_ratio_range(&none, &lo, &hi);
	assert_true(isnan(lo) && isnan(hi));
}

static void range_is_in_the_text_and_json(void **state)
{
	struct lru_hooks fe = hooks_in(LRU_MODE_FENTRY);
	struct lru_snapshot prev = { .nr_cpus = NR_CPUS }, cur = prev, d;
	struct lru_dev_stats cpu[NR_CPUS] = {
		{ .lookups = 10, .hits = 6, .installed = 2, .unsynced = 2,
		  .unsynced_misses = 1, .dist = { [0] = 6 } },
	};
	struct lru_report_ctx ctx = { .elapsed_s = 1, .lru_size = 16,
				      .hooks = &fe };
	struct json_object *o, *r;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(lru_snapshot_add_dev(&cur, RAM0, cpu), 0);
	assert_int_equal(lru_snapshot_delta(&d, &cur, &prev), 0);
	o = lru_report_json(&ctx, &d);
	r = get(o, "total.hit_ratio_range");
	assert_int_equal(json_object_array_length(r), 2);
	assert_true(fabs(json_object_get_double(json_object_array_get_idx(r, 0)) - 0.6) < 1e-9);
	assert_true(fabs(json_object_get_double(json_object_array_get_idx(r, 1)) - 0.7) < 1e-9);
	assert_int_equal(json_object_get_int(get(o, "total.unsynced_misses")), 1);
	f = open_memstream(&text, &len);
	lru_report_text(f, &ctx, &d);
	fclose(f);
	assert_non_null(strstr(text, "hit ratio over every lookup: 60.00% to 70.00% (of 2 unsynced, 1 proven misses"));
	json_object_put(o);
	free(text);
	lru_snapshot_free(&prev);
	lru_snapshot_free(&cur);
	lru_snapshot_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(delta_of_no_devices_is_empty),
		cmocka_unit_test(delta_is_per_cpu_difference_with_new_devices_from_zero),
		cmocka_unit_test(a_device_from_several_places_adds_up),
		cmocka_unit_test(curve_is_cumulative_distance_over_classified_lookups),
		cmocka_unit_test(tracepoint_mode_reports_null_not_zero),
		cmocka_unit_test(lookup_mode_reports_slots_and_curve),
		cmocka_unit_test(text_says_only_what_was_measured),
		cmocka_unit_test(text_says_asked_times_are_unavailable),
		cmocka_unit_test(lost_lookups_are_reported_and_marked),
		cmocka_unit_test(kprobe_lost_lookups_are_entries_without_a_return),
		cmocka_unit_test(uncounted_misses_make_lost_a_lower_bound),
		cmocka_unit_test(lookups_in_a_clean_interval_are_exact),
		cmocka_unit_test(unsynced_lookups_give_the_ratio_a_range),
		cmocka_unit_test(range_is_in_the_text_and_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
