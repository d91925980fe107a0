/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Prometheus text exposition format (version 0.0.4), written into a
 * growable buffer that is reused from one scrape to the next. Pure code, so
 * it is unit tested without a kernel.
 *
 * Usage: prom_family() once per metric family, then its samples; families
 * must not repeat. Histograms are written whole by prom_histogram().
 */
#ifndef BHSCOPE_PROM_H
#define BHSCOPE_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* Labels per sample, not counting a histogram's "le". */
#define PROM_MAX_LABELS 6

struct prom_buf {
	char *data;
	size_t len;
	size_t cap;
	bool oom;		/* an append failed: the text is incomplete */
};

enum prom_type {
	PROM_COUNTER,
	PROM_GAUGE,
	PROM_HISTOGRAM,
	PROM_UNTYPED,
};

struct prom_label {
	const char *name;
	const char *value;
};

struct prom_labels {
	int nr;
	struct prom_label l[PROM_MAX_LABELS];
};

/* Empties the buffer, keeping its memory. */
void prom_buf_reset(struct prom_buf *b);
void prom_buf_free(struct prom_buf *b);
void prom_buf_printf(struct prom_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Appends a label (the strings must outlive the labels' use). */
void prom_labels_add(struct prom_labels *ls, const char *name,
		     const char *value);

/* True for a valid metric name ([a-zA-Z_:][a-zA-Z0-9_:]*). */
bool prom_name_valid(const char *name);

/* True for a valid label name ([a-zA-Z_][a-zA-Z0-9_]*, not "__" reserved). */
bool prom_label_name_valid(const char *name);

/* Rewrites s into a valid metric/label name part: invalid bytes become '_'. */
void prom_sanitize_name(char *s);

/* Appends a label value escaped (\\, \", \n). */
void prom_escape_label_value(struct prom_buf *b, const char *value);

/*
 * A float as Prometheus parses it: the shortest text that reads back as the
 * same double; "+Inf", "-Inf", "NaN" for the special values.
 */
void prom_format_double(char *buf, size_t len, double v);

/* "# HELP name help" (help escaped) and "# TYPE name type". */
void prom_family(struct prom_buf *b, const char *name, enum prom_type type,
		 const char *help);

/* name{labels} value */
void prom_sample(struct prom_buf *b, const char *name,
		 const struct prom_labels *ls, double value);

/* name{labels} value, exact for every u64 (counters). */
void prom_sample_u64(struct prom_buf *b, const char *name,
		     const struct prom_labels *ls, uint64_t value);

/*
 * A histogram from per-slot counts (not cumulative): slot i holds values
 * <= le[i], le increasing. Buckets are written for slots first..last only
 * (cumulative counts stay exact: slots below first count in its bucket,
 * slots after last only in +Inf), then +Inf, _sum and _count; _count is the
 * sum of all slots, so it always equals the +Inf bucket.
 */
struct prom_hist {
	const __u64 *slots;
	const double *le;
	int nr_slots;
	int first;
	int last;
	double sum;
};

void prom_histogram(struct prom_buf *b, const char *name,
		    const struct prom_labels *ls, const struct prom_hist *h);

/*
 * Upper bounds of bhscope's log2 slots (slot 0 holds 0, slot i holds
 * [2^(i-1), 2^i)) for values that are whole numbers of a unit, in base
 * units (per_base units make one base unit: 1e6 for µs in seconds): slot
 * i <= (2^i - 1) / per_base. For counts (per_base 1): 0, 1, 3, 7, ...
 */
void prom_log2_le_counts(double *le, int nr, double per_base);

/*
 * The same for durations truncated to whole units (the BPF side stores
 * ns / 1000 as µs): slot i holds durations < 2^i units, so
 * le = 2^i / per_base. Dividing (not multiplying by 1e-6) keeps the bounds
 * the nearest doubles to 2^i µs, so they print short: 0.000128, not
 * 0.00012800000000000002.
 */
void prom_log2_le_truncated(double *le, int nr, double per_base);

/* Base units: seconds from jiffies at the kernel's HZ, and from ns. */
static inline double prom_seconds_from_jiffies(uint64_t jiffies, int hz)
{
	return (double)jiffies / hz;
}

static inline double prom_seconds_from_ns(uint64_t ns)
{
	return (double)ns / 1e9;
}

#endif /* BHSCOPE_PROM_H */
