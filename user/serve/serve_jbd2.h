/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jbd2's Prometheus families, from plain data, in base units: the rows of
 * jbd2_table that have a family, where their probe is attached (so a
 * figure JSON reports as null has no family), for each journal present
 * and selected, and its batch times. The source that reads the tracer is
 * serve_jbd2_source.
 */
#ifndef BHSCOPE_SERVE_JBD2_H
#define BHSCOPE_SERVE_JBD2_H

#include "jbd2/jbd2_table.h"
#include "serve/serve.h"

/* Writes the families of cumulative snapshot snap (st: what holds). */
void serve_jbd2_write(struct prom_buf *out, const struct jbd2_table_status *st,
		      const struct serve_view *v,
		      const struct jbd2_snapshot *snap);

#endif /* BHSCOPE_SERVE_JBD2_H */
