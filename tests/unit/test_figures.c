// SPDX-License-Identifier: GPL-2.0
/*
 * Each figure is declared once (lru_table, jbd2_table), and every output
 * says the same of it: its JSON key and its Prometheus family agree in
 * name, a figure JSON reports as null has no family, and the queries that
 * contrib/ ships name families serve exports.
 */
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bhscope.h"
#include "jbd2/jbd2_report.h"
#include "jbd2/jbd2_table.h"
#include "lru/lru_report.h"
#include "lru/lru_table.h"
#include "serve/prom.h"
#include "serve/serve_jbd2.h"
#include "serve/serve_lru.h"

#define NR_CPUS 2
#define LOOP0 BHSCOPE_KDEV(7, 0)

static const struct figure_table *const tables[] = {
	&lru_figures_table, &jbd2_figures_table,
};

/* The hooks of a session in mode m, as the tracer's figures say them. */
static struct lru_hooks hooks_in(enum lru_mode m)
{
	struct lru_hooks h = { .mode = m, .lru_size = 16 };

	for (int f = 0; f < LRU_NR_FIGURES; f++)
		h.fig[f].available = m != LRU_MODE_TRACEPOINT ||
				     f == LRU_FIG_HITS || f == LRU_FIG_LRU_SIZE;
	/* bhtune: installs inside its lookup; emptyings counted as resets */
	if (m == LRU_MODE_BHTUNE)
		h.fig[LRU_FIG_INSTALLS].available = false;
	snprintf(h.hook, sizeof(h.hook), "%s:x", lru_mode_names[m]);
	return h;
}

/* One device's cumulative LRU figures on two CPUs, every counter set. */
static void lru_snapshot_of(struct lru_snapshot *s)
{
	struct lru_dev_stats cpu[NR_CPUS] = {};
	struct lru_cpu_counters c[NR_CPUS];

	for (int i = 0; i < NR_CPUS; i++) {
		cpu[i] = (struct lru_dev_stats){ .hits = 5, .installed = 2,
			.not_installed = 1, .absent = 1, .unsynced = 3,
			.evictions = 2, .unsynced_misses = 1 };
		cpu[i].lookups = 12;
		cpu[i].dist[0] = 5;
		memset(&c[i], 0, sizeof(c[i]));
		c[i].invalidate_all = 4;
		c[i].resets = 1;
	}
	*s = (struct lru_snapshot){ .nr_cpus = NR_CPUS, .misses_known = true };
	assert_int_equal(lru_snapshot_add_dev(s, LOOP0, cpu), 0);
	assert_int_equal(lru_snapshot_set_counters(s, c), 0);
}

/* serve's LRU families for snap in mode m (the text, to free). */
static char *lru_exposition(const struct lru_hooks *h,
			    const struct lru_snapshot *snap)
{
	static const char *const cpus[] = { "0", "1" };
	struct serve_view v = { .nr_cpus = NR_CPUS, .cpu_names = cpus };
	struct serve_lru_row row = { .s = &snap->devs[0].total };
	struct prom_buf out = {};
	struct lru_snapshot read = *snap;	/* shares its devices */

	read.hooks = *h;
	read.lru_size = 16;
	prom_labels_add(&row.ls, "device", "loop0");
	serve_lru_write(&out, &v, &read, &row, 1);
	assert_false(out.oom);
	return out.data;
}

/* "\n# TYPE name " is in the exposition: the family is exported. */
static bool exported(const char *text, const char *family)
{
	char line[160];

	snprintf(line, sizeof(line), "# TYPE %s ", family);
	return strstr(text, line) != NULL;
}

/* The row's value in the LRU report's JSON: total, top level, counters. */
static struct json_object *lru_json_value(struct json_object *o,
					  const struct figure *f, bool *found)
{
	static const char *const places[] = { "total", NULL, "counters" };
	struct json_object *v;

	for (size_t i = 0; i < sizeof(places) / sizeof(*places); i++) {
		struct json_object *in = o;

		if (places[i] && !json_object_object_get_ex(o, places[i], &in))
			continue;
		if (in && json_object_object_get_ex(in, f->json, &v)) {
			*found = true;
			return v;
		}
	}
	*found = false;
	return NULL;
}

static void names_agree_in_every_table(void **state)
{
	(void)state;
	for (size_t t = 0; t < sizeof(tables) / sizeof(*tables); t++) {
		for (size_t i = 0; i < tables[t]->nr; i++) {
			const struct figure *f = &tables[t]->rows[i];

			if (!figure_names_agree(tables[t]->tracer, f))
				fail_msg("%s: JSON %s and Prometheus %s disagree",
					 tables[t]->tracer, f->json, f->prom);
			if (f->prom)
				assert_true(prom_name_valid(f->prom));
			assert_true(f->json || f->prom || f->text);
		}
	}
}

static void the_rule_refuses_the_old_names(void **state)
{
	struct figure unsynced = { .json = "unsynced",
				   .prom = "bhscope_lru_unclassified_lookups_total" };
	struct figure inval = { .json = "invalidate_bh_lrus",
				.prom = "bhscope_lru_invalidate_all_total" };
	struct figure renamed = { .json = "unsynced",
				  .prom = "bhscope_lru_unsynced_lookups_total" };

	(void)state;
	assert_false(figure_names_agree("lru", &unsynced));
	assert_false(figure_names_agree("lru", &inval));
	assert_true(figure_names_agree("lru", &renamed));
	assert_false(figure_names_agree("jbd2", &renamed));
}

/*
 * In every mode, serve exports a family exactly where the JSON report has
 * a value: bhtune counts its invalidations as resets, so JSON's
 * invalidate_bh_lrus is null there, and serve must not say 0.
 */
static void a_json_null_is_no_family(void **state)
{
	static const enum lru_mode modes[] = {
		LRU_MODE_FENTRY, LRU_MODE_KPROBE, LRU_MODE_BHTUNE,
		LRU_MODE_TRACEPOINT,
	};
	struct lru_snapshot snap;

	(void)state;
	lru_snapshot_of(&snap);
	for (size_t m = 0; m < sizeof(modes) / sizeof(*modes); m++) {
		struct lru_hooks h = hooks_in(modes[m]);
		struct lru_report_ctx ctx = { .elapsed_s = 1, .lru_size = 16,
					      .hooks = &h };
		struct json_object *o = lru_report_json(&ctx, &snap);
		char *text = lru_exposition(&h, &snap);

		for (size_t i = 0; i < lru_table_len; i++) {
			const struct figure *f = &lru_table[i];
			bool found;
			struct json_object *v;

			if (!f->json || !f->prom)
				continue;
			v = lru_json_value(o, f, &found);
			if ((found && v) != exported(text, f->prom))
				fail_msg("mode %s: %s is %s in JSON but %s",
					 lru_mode_names[modes[m]], f->json,
					 found && v ? "a value" : "null",
					 exported(text, f->prom) ?
					 "exported" : "not exported");
		}
		if (modes[m] == LRU_MODE_BHTUNE)
			assert_false(exported(text, "bhscope_lru_invalidate_bh_lrus_total"));
		if (modes[m] == LRU_MODE_FENTRY)
			assert_non_null(strstr(text, "bhscope_lru_invalidate_bh_lrus_total{cpu") ?
					text : strstr(text, "bhscope_lru_invalidate_bh_lrus_total 8"));
		json_object_put(o);
		free(text);
	}
	lru_snapshot_free(&snap);
}

/* What JSON calls unsynced, Prometheus calls unsynced too. */
static void unsynced_is_unsynced_everywhere(void **state)
{
	struct lru_hooks h = hooks_in(LRU_MODE_FENTRY);
	struct lru_snapshot snap;
	char *text;

	(void)state;
	lru_snapshot_of(&snap);
	text = lru_exposition(&h, &snap);
	assert_non_null(strstr(text, "bhscope_lru_unsynced_lookups_total{device=\"loop0\"} 6\n"));
	assert_non_null(strstr(text, "bhscope_lru_unsynced_misses_total{device=\"loop0\"} 2\n"));
	assert_null(strstr(text, "unclassified"));
	free(text);
	lru_snapshot_free(&snap);
}

/* serve's jbd2 families: every probe attached, one journal. */
static char *jbd2_exposition(bool batch, bool checkpoints)
{
	static const char *const cpus[] = { "0", "1" };
	struct jbd2_dev_stats cpu[NR_CPUS] = {
		{ .transactions = 2, .commits = 2, .commit_ns = 4000 },
		{ .handles_stopped = 3, .batch_stops = 1, .batch_ns = 900 },
	};
	struct jbd2_snapshot snap = { .nr_cpus = NR_CPUS, .lost_known = true };
	struct serve_devices devs = { .ok = true, .nr = 1 };
	struct serve_view v = { .hz = 250, .nr_cpus = NR_CPUS, .devs = &devs,
				.cpu_names = cpus };
	struct jbd2_table_status st = { .checkpoints = checkpoints,
					.batch_sleep = batch,
					.lost_known = true };
	struct prom_buf out = {};

	devs.dev[0] = (struct serve_dev){ .kdev = LOOP0, .name = "loop0",
					  .selected = true, .journal = true };
	assert_int_equal(jbd2_snapshot_add_dev(&snap, LOOP0, cpu), 0);
	snap.devs[0].avg_commit_ns = 2000;
	serve_jbd2_write(&out, &st, &v, &snap);
	assert_false(out.oom);
	jbd2_snapshot_free(&snap);
	return out.data;
}

/* jbd2: the groups JSON makes null (checkpoints, batch_sleep) export nothing. */
static void jbd2_groups_unavailable_export_nothing(void **state)
{
	char *all = jbd2_exposition(true, true);
	char *none = jbd2_exposition(false, false);

	(void)state;
	for (size_t i = 0; i < jbd2_table_len; i++) {
		const struct figure *f = &jbd2_table[i];

		if (!f->prom)
			continue;
		assert_true(exported(all, f->prom));
		if (exported(none, f->prom) !=
		    (f->avail == JBD2_AVAIL_ALWAYS ||
		     f->avail == JBD2_AVAIL_LOST_KNOWN))
			fail_msg("%s exported without its probe", f->prom);
	}
	free(all);
	free(none);
}

/* Every bhscope_lru_ and bhscope_jbd2_ family a file of contrib/ names. */
static void check_contrib_file(const char *path, const char *exposition)
{
	regex_t re;
	regmatch_t m;
	char *text, name[128];
	const char *p;
	FILE *f = fopen(path, "r");
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	text = calloc(n + 1, 1);
	assert_int_equal(fread(text, 1, n, f), n);
	fclose(f);
	assert_int_equal(regcomp(&re, "bhscope_(lru|jbd2)_[a-z_]+", REG_EXTENDED), 0);
	for (p = text; !regexec(&re, p, 1, &m, 0); p += m.rm_eo) {
		size_t len = m.rm_eo - m.rm_so;
		char *end;

		/* a recording rule's name (level:metric:operations) */
		if (m.rm_so > 0 && p[m.rm_so - 1] == ':')
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)len, p + m.rm_so);
		for (const char *sfx = "_bucket\0_sum\0_count\0"; *sfx;
		     sfx += strlen(sfx) + 1) {
			end = name + strlen(name) - strlen(sfx);
			if (end > name && !strcmp(end, sfx) && !exported(exposition, name))
				*end = '\0';
		}
		if (!exported(exposition, name))
			fail_msg("%s names %s, which serve does not export", path,
				 name);
	}
	regfree(&re);
	free(text);
}

/* serve --lru-whatif's families for snap's device, with timed lookups. */
static char *whatif_exposition(const struct lru_snapshot *snap)
{
	struct lru_time_stats t = {};
	struct lru_costs c;
	struct serve_lru_row row = { .s = &snap->devs[0].total };
	struct serve_lru_whatif w = {
		.lru_size = 16, .max_size = 64, .above = "exact", .costs = &c,
	};
	struct prom_buf out = {};

	t.n[0] = 10;	/* hits at slot 0 */
	t.ns[0] = 3000;
	t.n[LRU_TIME_INSTALLED] = 10;
	t.ns[LRU_TIME_INSTALLED] = 9000;
	lru_costs_from(&c, &t, 16);
	prom_labels_add(&row.ls, "device", "loop0");
	serve_lru_write_whatif(&out, &w, &row, 1);
	assert_false(out.oom);
	assert_non_null(out.data);
	return out.data;
}

static void contrib_names_families_serve_exports(void **state)
{
	struct lru_hooks h = hooks_in(LRU_MODE_FENTRY);
	struct lru_snapshot snap;
	char *lru, *whatif, *jbd2, *both;

	(void)state;
	lru_snapshot_of(&snap);
	lru = lru_exposition(&h, &snap);
	whatif = whatif_exposition(&snap);
	jbd2 = jbd2_exposition(true, true);
	assert_true(asprintf(&both, "%s%s%s", lru, whatif, jbd2) > 0);
	check_contrib_file("contrib/prometheus/bhscope.rules.yml", both);
	check_contrib_file("contrib/prometheus/bhscope.rules.test.yml", both);
	check_contrib_file("contrib/grafana/bhscope.json", both);
	free(both);
	free(jbd2);
	free(whatif);
	free(lru);
	lru_snapshot_free(&snap);
}

/* serve --lru-duty's families for last (the text, to free). */
static char *window_exposition(const struct serve_lru_window_last *last)
{
	struct serve_lru_window_view w = {
		.window_ms = 2000, .period_ms = 60000, .last = last,
	};
	struct serve_lru_row row = {
		.s = last->snap.nr_devs ? &last->snap.devs[0].total : NULL,
	};
	struct prom_buf out = {};

	prom_labels_add(&row.ls, "device", "loop0");
	serve_lru_write_window(&out, &w, &row, last->snap.nr_devs ? 1 : 0);
	assert_false(out.oom);
	assert_non_null(out.data);
	return out.data;
}

/*
 * A window's figures are the continuous ones as gauges of their own: each
 * counter of serve_lru_write() is there as bhscope_lru_window_X with the
 * same value, and no continuous family is.
 */
static void window_families_mirror_the_continuous_ones(void **state)
{
	struct serve_lru_window_last last = {
		.complete = 3, .failed = 1, .seconds = 2.01, .end_time = 1e9,
	};
	char *lru, *win, *line, *save, name[160], want[256];
	int mirrored = 0;

	(void)state;
	lru_snapshot_of(&last.snap);
	last.snap.hooks = hooks_in(LRU_MODE_FENTRY);
	last.snap.lru_size = 16;
	lru = lru_exposition(&last.snap.hooks, &last.snap);
	win = window_exposition(&last);
	for (line = strtok_r(lru, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *rest = line + strlen("bhscope_lru_");
		const char *end = strstr(line, "_total");

		if (line[0] == '#' || !end || strncmp(line, "bhscope_lru_", 12))
			continue;
		snprintf(name, sizeof(name), "bhscope_lru_window_%.*s%s",
			 (int)(end - rest), rest, end + strlen("_total"));
		if (!strstr(win, name))
			fail_msg("%s has no window sample %s", line, name);
		snprintf(want, sizeof(want), "# TYPE bhscope_lru_window_%.*s gauge",
			 (int)(end - rest), rest);
		assert_non_null(strstr(win, want));
		mirrored++;
	}
	assert_true(mirrored >= 10);
	assert_non_null(strstr(win, "bhscope_lru_window_hits{device=\"loop0\"} 10\n"));
	assert_non_null(strstr(win, "bhscope_lru_windows_total{result=\"complete\"} 3\n"));
	assert_non_null(strstr(win, "bhscope_lru_windows_total{result=\"failed\"} 1\n"));
	assert_non_null(strstr(win, "mode=\"fentry\",hook=\"fentry:x\",why=\"\"} 1\n"));
	assert_non_null(strstr(win, "bhscope_lru_window_seconds 2.01\n"));
	/* no continuous family: only the windows' count is a counter */
	for (line = strstr(win, "# TYPE "); line; line = strstr(line + 1, "# TYPE "))
		if (strncmp(line, "# TYPE bhscope_lru_window", 24))
			fail_msg("not a window family: %.60s", line);
	assert_null(strstr(win, "_total{device"));
	free(win);
	free(lru);

	/* before the first window: why the last one failed, no figure */
	lru_snapshot_free(&last.snap);
	last = (struct serve_lru_window_last){ .failed = 2 };
	snprintf(last.why, sizeof(last.why), "fentry: refused");
	win = window_exposition(&last);
	assert_non_null(strstr(win, "mode=\"\",hook=\"\",why=\"fentry: refused\"} 1\n"));
	assert_non_null(strstr(win, "bhscope_lru_windows_total{result=\"complete\"} 0\n"));
	assert_null(strstr(win, "bhscope_lru_window_hits"));
	assert_null(strstr(win, "bhscope_lru_window_seconds"));
	free(win);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names_agree_in_every_table),
		cmocka_unit_test(the_rule_refuses_the_old_names),
		cmocka_unit_test(a_json_null_is_no_family),
		cmocka_unit_test(unsynced_is_unsynced_everywhere),
		cmocka_unit_test(jbd2_groups_unavailable_export_nothing),
		cmocka_unit_test(contrib_names_families_serve_exports),
		cmocka_unit_test(window_families_mirror_the_continuous_ones),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
