/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The jbd2 tracer's figures, each declared once (struct figure): the text
 * and JSON reports (jbd2_report_text(), jbd2_report_json()), serve
 * (serve_jbd2_write()), record's checker (record_check()) and compare
 * (compare_metrics_of_run()) iterate this table.
 */
#ifndef BHSCOPE_JBD2_TABLE_H
#define BHSCOPE_JBD2_TABLE_H

#include <stdbool.h>

#include "jbd2/jbd2_snapshot.h"
#include "lib/figure.h"

/* Where a row's value comes from (struct figure's from). */
enum jbd2_table_from {
	JBD2_FROM_DEV,		/* a journal's stats, or one CPU's */
	JBD2_FROM_JOURNAL,	/* the journal itself: its commit EWMA */
	JBD2_FROM_SNAP,		/* the snapshot: events lost */
	JBD2_FROM_CPU,		/* per CPU only, computed (the text's) */
};

/* When a row is available (struct figure's avail). */
enum jbd2_table_avail {
	JBD2_AVAIL_ALWAYS,
	JBD2_AVAIL_CHECKPOINTS,		/* jbd2_checkpoint_stats attached */
	JBD2_AVAIL_BATCH_SLEEP,		/* fentry/fexit on jbd2_journal_stop */
	JBD2_AVAIL_LOST_KNOWN,		/* the kernel counts skipped runs */
};

/* What holds, for the availability rules. */
struct jbd2_table_status {
	bool checkpoints;
	bool batch_sleep;
	bool lost_known;
};

/* What the rows read. */
struct jbd2_table_in {
	const struct jbd2_dev_stats *s;		/* a journal's, or one CPU's */
	const struct jbd2_dev_snapshot *d;	/* the journal */
	const struct jbd2_snapshot *snap;
	double elapsed_s;
	int hz;
};

extern const struct figure jbd2_table[];
extern const size_t jbd2_table_len;
extern const struct figure_table jbd2_figures_table;

bool jbd2_table_available(const struct figure *f,
			  const struct jbd2_table_status *st);

/* f's value from in: a number (not for FIGURE_SHAPED rows). */
double jbd2_table_value(const struct figure *f,
			const struct jbd2_table_in *in);

/* f's value as JSON (a number, or its shape). */
struct json_object *jbd2_table_json(const struct figure *f,
				    const struct jbd2_table_in *in);

#endif /* BHSCOPE_JBD2_TABLE_H */
