// SPDX-License-Identifier: GPL-2.0
/* jbd2 interval arithmetic and its JSON report. */
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
#include "jbd2/jbd2_snapshot.h"

#define NR_CPUS 3

static void fill(struct jbd2_dev_stats *cpu, __u64 transactions, __u64 handles)
{
	memset(cpu, 0, sizeof(*cpu));
	cpu->transactions = transactions;
	cpu->handles = handles;
	cpu->handles_stopped = handles;
	cpu->phase_jiffies[JBD2_PHASE_RUNNING] = 5 * transactions;
}

static void snapshot_of(struct jbd2_snapshot *s, uint32_t kdev, __u64 scale)
{
	struct jbd2_dev_stats cpu[NR_CPUS];

	for (int c = 0; c < NR_CPUS; c++)
		fill(&cpu[c], scale * (c + 1), 10 * scale * (c + 1));
	assert_int_equal(jbd2_snapshot_add_dev(s, kdev, cpu), 0);
}

static void snapshot_sums_cpus(void **state)
{
	struct jbd2_snapshot s = { .nr_cpus = NR_CPUS };

	(void)state;
	snapshot_of(&s, BHSCOPE_KDEV(7, 0), 1);
	assert_int_equal(s.devs[0].total.transactions, 1 + 2 + 3);
	assert_int_equal(s.devs[0].total.handles, 60);
	jbd2_snapshot_free(&s);
}

static void delta_subtracts_per_cpu_and_keeps_new_devices(void **state)
{
	struct jbd2_snapshot prev = { .nr_cpus = NR_CPUS };
	struct jbd2_snapshot cur = { .nr_cpus = NR_CPUS }, d;
	struct jbd2_dev_snapshot *loop0, *loop1;

	(void)state;
	snapshot_of(&prev, BHSCOPE_KDEV(7, 0), 1);
	snapshot_of(&cur, BHSCOPE_KDEV(7, 1), 2);	/* new since prev */
	snapshot_of(&cur, BHSCOPE_KDEV(7, 0), 3);
	assert_int_equal(jbd2_snapshot_delta(&d, &cur, &prev), 0);
	assert_int_equal(d.nr_devs, 2);
	/* Sorted by device. */
	loop0 = &d.devs[0];
	loop1 = &d.devs[1];
	assert_int_equal(loop0->kdev, BHSCOPE_KDEV(7, 0));
	assert_int_equal(loop0->cpu[2].transactions, 9 - 3);
	assert_int_equal(loop0->total.transactions, (3 - 1) * 6);
	assert_int_equal(loop0->total.phase_jiffies[JBD2_PHASE_RUNNING], 5 * 12);
	assert_int_equal(loop1->total.transactions, 2 * 6);
	jbd2_snapshot_free(&prev);
	jbd2_snapshot_free(&cur);
	jbd2_snapshot_free(&d);
}

static struct json_object *device0(struct json_object *report)
{
	struct json_object *devs = json_object_object_get(report, "devices");

	assert_int_equal(json_object_array_length(devs), 1);
	return json_object_array_get_idx(devs, 0);
}

static double dbl(struct json_object *o, const char *k)
{
	struct json_object *v = json_object_object_get(o, k);

	assert_non_null(v);
	return json_object_get_double(v);
}

/* A filter that matches nothing: no devices, devs NULL (UBSan: qsort). */
static void delta_of_no_devices_is_empty(void **state)
{
	struct jbd2_snapshot prev = { .nr_cpus = NR_CPUS };
	struct jbd2_snapshot cur = { .nr_cpus = NR_CPUS }, d;

	(void)state;
	assert_int_equal(jbd2_snapshot_delta(&d, &cur, &prev), 0);
	assert_int_equal(d.nr_devs, 0);
	assert_int_equal(jbd2_snapshot_delta(&d, &cur, NULL), 0);
	assert_int_equal(d.nr_devs, 0);
	jbd2_snapshot_free(&d);
}

static void json_reports_ratios_and_units(void **state)
{
	struct jbd2_report_ctx ctx = { .elapsed_s = 2.0, .hz = 250 };
	struct jbd2_snapshot s = { .nr_cpus = NR_CPUS };
	struct json_object *o, *dev, *phases;

	(void)state;
	ctx.checkpoints.available = true;
	snapshot_of(&s, BHSCOPE_KDEV(7, 0), 1);	/* 6 transactions, 60 handles */
	o = jbd2_report_json(&ctx, &s);
	assert_string_equal(json_object_get_string(json_object_object_get(o, "schema")),
			    JBD2_JSON_SCHEMA);
	dev = device0(o);
	assert_string_equal(json_object_get_string(json_object_object_get(dev, "dev")), "7:0");
	assert_float_equal(dbl(dev, "transactions_per_s"), 3.0, 1e-9);
	assert_float_equal(dbl(dev, "handles_per_transaction"), 10.0, 1e-9);
	phases = json_object_object_get(dev, "phase_avg_ms");
	/* 5 jiffies per transaction at HZ=250 are 20 ms. */
	assert_float_equal(dbl(phases, "running"), 20.0, 1e-9);
	json_object_put(o);
	jbd2_snapshot_free(&s);
}

static void unmeasured_figures_are_null_with_a_reason(void **state)
{
	struct jbd2_report_ctx ctx = { .elapsed_s = 1.0, .hz = 1000 };
	struct jbd2_snapshot s = { .nr_cpus = NR_CPUS };
	struct json_object *o, *dev, *probe, *sleep;

	(void)state;
	strcpy(ctx.batch_sleep.why, "fentry refused");
	ctx.checkpoints.available = true;
	snapshot_of(&s, BHSCOPE_KDEV(8, 1), 1);
	o = jbd2_report_json(&ctx, &s);
	dev = device0(o);
	assert_true(json_object_object_get_ex(dev, "batch_sleep", &sleep));
	assert_null(sleep);
	probe = json_object_object_get(json_object_object_get(o, "probes"),
				       "batch_sleep");
	assert_false(json_object_get_boolean(json_object_object_get(probe, "available")));
	assert_string_equal(json_object_get_string(json_object_object_get(probe, "reason")),
			    "fentry refused");
	json_object_put(o);
	jbd2_snapshot_free(&s);
}

/* Events the kernel skipped: counted from a delta, null where not counted. */
static void lost_events_are_counted_or_unknown(void **state)
{
	struct jbd2_report_ctx ctx = { .elapsed_s = 1.0, .hz = 1000 };
	struct jbd2_snapshot prev = { .nr_cpus = NR_CPUS, .lost_known = true,
				      .lost_events = 4 };
	struct jbd2_snapshot cur = { .nr_cpus = NR_CPUS, .lost_known = true,
				     .lost_events = 11 }, d;
	struct json_object *o, *lost;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	ctx.checkpoints.available = true;
	snapshot_of(&cur, BHSCOPE_KDEV(7, 0), 1);
	assert_int_equal(jbd2_snapshot_delta(&d, &cur, &prev), 0);
	o = jbd2_report_json(&ctx, &d);
	assert_int_equal(json_object_get_uint64(json_object_object_get(o, "lost_events")), 7);
	json_object_put(o);
	f = open_memstream(&text, &len);
	jbd2_report_text(f, &ctx, &d);
	fclose(f);
	assert_non_null(strstr(text, "warning: 7 events lost"));
	free(text);
	jbd2_snapshot_free(&d);

	/* one snapshot from programs whose skipped runs are not counted */
	prev.lost_known = false;
	assert_int_equal(jbd2_snapshot_delta(&d, &cur, &prev), 0);
	o = jbd2_report_json(&ctx, &d);
	assert_true(json_object_object_get_ex(o, "lost_events", &lost));
	assert_null(lost);
	json_object_put(o);
	f = open_memstream(&text, &len);
	jbd2_report_text(f, &ctx, &d);
	fclose(f);
	assert_non_null(strstr(text, "lost: unknown"));
	assert_null(strstr(text, "events lost"));
	free(text);
	jbd2_snapshot_free(&d);
	jbd2_snapshot_free(&cur);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(snapshot_sums_cpus),
		cmocka_unit_test(delta_subtracts_per_cpu_and_keeps_new_devices),
		cmocka_unit_test(delta_of_no_devices_is_empty),
		cmocka_unit_test(json_reports_ratios_and_units),
		cmocka_unit_test(unmeasured_figures_are_null_with_a_reason),
		cmocka_unit_test(lost_events_are_counted_or_unknown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
