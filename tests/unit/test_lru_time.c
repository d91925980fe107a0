// SPDX-License-Identifier: GPL-2.0
/* The what-if in time: costs from sampled times, and each size's lookup time. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/cpu_busy.h"
#include "lru/lru_time.h"
#include "serve/prom.h"
#include "serve/serve_lru.h"

/* Hits timed at slots 0..7 costing a + b·slot, n each. */
static void line_of_hits(struct lru_time_stats *t, double a, double b, int n)
{
	memset(t, 0, sizeof(*t));
	for (int i = 0; i < 8; i++) {
		t->n[i] = n;
		t->ns[i] = (uint64_t)((a + b * i) * n);
	}
}

static void hits_on_a_line_give_the_line(void **state)
{
	struct lru_time_stats t;
	struct lru_costs c;

	(void)state;
	line_of_hits(&t, 100, 10, 10);
	lru_costs_from(&c, &t, 8);
	assert_true(c.slope_fitted);
	assert_float_equal(c.hit_a, 100, 1e-6);
	assert_float_equal(c.hit_b, 10, 1e-6);
	assert_int_equal(c.samples, 80);
	/* beyond the LRU's size, and at a slot with too few samples: the line */
	assert_float_equal(lru_costs_hit(&c, 40), 500, 1e-6);
	t.n[3] = 2;
	t.ns[3] = 2 * 999;
	lru_costs_from(&c, &t, 8);
	assert_float_equal(lru_costs_hit(&c, 3), c.hit_a + 3 * c.hit_b, 1e-6);
	assert_float_equal(lru_costs_hit(&c, 2), 120, 1e-6);
}

static void a_falling_slope_is_no_slope(void **state)
{
	struct lru_time_stats t;
	struct lru_costs c;

	(void)state;
	line_of_hits(&t, 300, -10, 10);
	lru_costs_from(&c, &t, 8);
	assert_float_equal(c.hit_b, 0, 0);
	/* one slot timed: a level line, not fitted */
	memset(&t, 0, sizeof(t));
	t.n[0] = 5;
	t.ns[0] = 500;
	lru_costs_from(&c, &t, 8);
	assert_false(c.slope_fitted);
	assert_float_equal(c.hit_a, 100, 1e-6);
	assert_float_equal(c.hit_b, 0, 0);
	assert_true(isnan(c.installed));
}

/*
 * 31's known answer at BH_LRU_SIZE 8: 160 hits in slot 7, 400 installs,
 * 240 of them found at depth 11 in the ghost list.
 */
static void known_answer(struct lru_dev_stats *s, struct lru_time_stats *t)
{
	memset(s, 0, sizeof(*s));
	s->hits = 160;
	s->installed = 400;
	s->lookups = 560;
	s->dist[7] = 160;
	s->dist[11] = 240;
	line_of_hits(t, 100, 10, 10);
	t->n[LRU_TIME_INSTALLED] = 10;
	t->ns[LRU_TIME_INSTALLED] = 10000;
}

/* The known answer's costs at size 8, and its curve for sizes 1-16. */
static void known_curve(struct lru_dev_stats *s, struct lru_time_stats *t,
			struct lru_costs *c, struct lru_time_point *p)
{
	known_answer(s, t);
	lru_costs_from(c, t, 8);
	lru_time_curve(s, c, p, 16);
}

static void each_size_costs_its_outcomes(void **state)
{
	struct lru_time_point p[16];
	struct lru_time_stats t;
	struct lru_dev_stats s;
	struct lru_costs c;

	(void)state;
	known_curve(&s, &t, &c, p);
	/* the kernel's size: what was timed, weighed by the outcomes */
	assert_float_equal(p[7].ns_per_lookup, (160 * 170.0 + 400 * 1000) / 560,
			   1e-9);
	assert_float_equal(p[7].hit_ratio, 160.0 / 560, 1e-12);
	/* size 4: every lookup an install over 4 slots fewer */
	assert_float_equal(p[3].ns_per_lookup, 1000 - 4 * 10, 1e-9);
	assert_float_equal(p[3].hit_ratio, 0, 0);
	/* size 12: the ghost's 240 hit at slot 11, 160 installs over 4 more */
	assert_float_equal(p[11].ns_per_lookup,
			   (160 * 170.0 + 240 * 210 + 160 * 1040) / 560, 1e-9);
	assert_true(p[11].ns_per_lookup < p[7].ns_per_lookup);
	assert_float_equal(p[15].ns_per_lookup,
			   (160 * 170.0 + 240 * 210 + 160 * 1080) / 560, 1e-9);
}

static void a_cost_never_timed_leaves_its_sizes_unknown(void **state)
{
	struct lru_time_point p[8];
	struct lru_time_stats t;
	struct lru_dev_stats s;
	struct lru_costs c;

	(void)state;
	known_answer(&s, &t);
	t.n[LRU_TIME_INSTALLED] = 0;
	t.ns[LRU_TIME_INSTALLED] = 0;
	lru_costs_from(&c, &t, 8);
	lru_time_curve(&s, &c, p, 8);
	assert_true(isnan(p[7].ns_per_lookup));
	/* an outcome that never happened costs nothing, timed or not */
	s.installed = 0;
	s.dist[11] = 0;
	s.lookups = s.hits = 160;
	lru_time_curve(&s, &c, p, 8);
	assert_float_equal(p[7].ns_per_lookup, 170, 1e-9);
}

/* Absent lookups never timed: costed as installed misses, the changes kept. */
static void a_miss_kind_never_timed_costs_as_an_install(void **state)
{
	struct lru_time_point p[16], q[16];
	struct lru_time_stats t;
	struct lru_dev_stats s;
	struct lru_costs c;

	(void)state;
	known_curve(&s, &t, &c, p);
	s.absent = 40;
	lru_time_curve(&s, &c, q, 16);
	assert_true(c.absent_guessed);
	assert_float_equal(c.absent, c.installed, 0);
	for (int k = 0; k < 16; k++) {
		double dp = p[k].ns_per_lookup * 560 - p[7].ns_per_lookup * 560;
		double dq = q[k].ns_per_lookup * 600 - q[7].ns_per_lookup * 600;

		/* 40 absent lookups scan b/2 a slot more: the only change */
		assert_float_equal(dq - dp, 40 * 5.0 * (k - 7), 1e-6);
	}
}

static char *text_of(const struct lru_time_input *in)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	lru_time_text(f, in);
	fclose(f);
	return buf;
}

static void the_text_says_what_the_best_size_saves(void **state)
{
	struct lru_time_stats t;
	struct lru_dev_stats s;
	struct lru_time_input in = {
		.s = &s, .t = &t, .lru_size = 8, .n = 16, .every = 64, .sample = 64,
		.elapsed_s = 1, .busy_ns = 1000000000,
	};
	char *text;

	(void)state;
	known_answer(&s, &t);
	s.lookups = 560000;	/* a second of them: ns/lookup = ns/s / 560000 */
	text = text_of(&in);
	/* the ghost's hits make size 12 cheapest (see above) */
	assert_non_null(strstr(text, "what-if in time"));
	assert_non_null(strstr(text, "an LRU of 12 would save"));
	assert_non_null(strstr(text, "% of this host's busy CPU time"));
	free(text);
	/* nothing timed (a window not reached yet): no table of unknowns */
	{
		struct lru_time_stats none = {};
		struct lru_time_input empty = in;

		empty.t = &none;
		empty.period_ms = 60000;
		text = text_of(&empty);
		assert_non_null(strstr(text, "what-if in time: no lookup timed yet (timed in windows"));
		assert_null(strstr(text, "SIZE"));
		free(text);
	}
	/* no ghost hits: a larger LRU only scans more */
	s.dist[11] = 0;
	text = text_of(&in);
	assert_non_null(strstr(text, "no LRU size of 1-16 would take less lookup time than 8"));
	free(text);
}

static void busy_time_is_read_from_proc_stat(void **state)
{
	static const char stat[] =
		"cpu  100 20 30 400 50 6 7 8 0 0\ncpu0 50 10 15 200 25 3 3 4 0 0\nintr 1\n";
	FILE *f = fmemopen((void *)stat, sizeof(stat) - 1, "r");

	(void)state;
	/* user nice system irq softirq steal: not idle, not iowait */
	assert_int_equal(cpu_busy_ns_parse(f, 100), 171 * 10000000ULL);
	fclose(f);
	f = fmemopen((void *)"intr 1\n", 7, "r");
	assert_int_equal(cpu_busy_ns_parse(f, 100), 0);
	fclose(f);
	assert_true(cpu_busy_ns() > 0);
}

/* The value of the exposition's line that starts with series; NAN if none. */
static double series_value(const char *text, const char *series)
{
	size_t len = strlen(series);
	const char *l = text;

	while (l) {
		if (!strncmp(l, series, len) && l[len] == ' ')
			return strtod(l + len + 1, NULL);
		l = strchr(l, '\n');
		if (l)
			l++;
	}
	return NAN;
}

static void serve_exports_the_whatif_at_bounded_sizes(void **state)
{
	struct lru_time_point p[16];
	struct lru_time_stats t;
	struct lru_dev_stats s;
	struct lru_costs c;
	struct prom_buf out = {};
	struct serve_lru_row row = { .s = &s };
	struct serve_lru_whatif w = {
		.lru_size = 8, .max_size = 12, .above = "exact", .costs = &c,
	};

	(void)state;
	known_curve(&s, &t, &c, p);
	prom_labels_add(&row.ls, "device", "ram0");
	serve_lru_write_whatif(&out, &w, &row, 1);
	assert_false(out.oom);
	/* the powers of two, the LRU's size and the largest: nothing else */
	assert_float_equal(series_value(out.data, "bhscope_lru_whatif_hits_total{device=\"ram0\",size=\"1\"}"), 0, 0);
	assert_float_equal(series_value(out.data, "bhscope_lru_whatif_hits_total{device=\"ram0\",size=\"4\"}"), 0, 0);
	assert_float_equal(series_value(out.data, "bhscope_lru_whatif_hits_total{device=\"ram0\",size=\"8\"}"), 160, 0);
	assert_float_equal(series_value(out.data, "bhscope_lru_whatif_hits_total{device=\"ram0\",size=\"12\"}"), 400, 0);
	assert_true(isnan(series_value(out.data, "bhscope_lru_whatif_hits_total{device=\"ram0\",size=\"11\"}")));
	assert_true(isnan(series_value(out.data, "bhscope_lru_whatif_hits_total{device=\"ram0\",size=\"16\"}")));
	/* each size's time as the what-if in time has it, the saving against 8 */
	assert_float_equal(series_value(out.data, "bhscope_lru_whatif_lookup_seconds{device=\"ram0\",size=\"12\"}"),
			   p[11].ns_per_lookup / 1e9, 1e-15);
	assert_float_equal(series_value(out.data, "bhscope_lru_whatif_lookup_saved_seconds{device=\"ram0\",size=\"12\"}"),
			   (p[7].ns_per_lookup - p[11].ns_per_lookup) / 1e9, 1e-15);
	assert_float_equal(series_value(out.data, "bhscope_lru_whatif_lookup_saved_seconds{device=\"ram0\",size=\"8\"}"), 0, 0);
	assert_true(series_value(out.data, "bhscope_lru_whatif_lookup_saved_seconds{device=\"ram0\",size=\"4\"}") < 0);
	assert_non_null(strstr(out.data, "bhscope_lru_whatif_info{max_size=\"12\",above=\"exact\"} 1\n"));
	/* nothing timed yet: the hits alone */
	prom_buf_reset(&out);
	c.samples = 0;
	serve_lru_write_whatif(&out, &w, &row, 1);
	assert_null(strstr(out.data, "lookup_seconds"));
	assert_non_null(strstr(out.data, "bhscope_lru_whatif_hits_total{"));
	prom_buf_free(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hits_on_a_line_give_the_line),
		cmocka_unit_test(a_falling_slope_is_no_slope),
		cmocka_unit_test(each_size_costs_its_outcomes),
		cmocka_unit_test(a_cost_never_timed_leaves_its_sizes_unknown),
		cmocka_unit_test(a_miss_kind_never_timed_costs_as_an_install),
		cmocka_unit_test(the_text_says_what_the_best_size_saves),
		cmocka_unit_test(busy_time_is_read_from_proc_stat),
		cmocka_unit_test(serve_exports_the_whatif_at_bounded_sizes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
