/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A figure declared once, as ebpf_exporter declares a metric: one row of
 * its tracer's table (lru_table[], jbd2_table[]) says its JSON
 * key, its Prometheus family, type and help, its unit, where its value
 * comes from and when it is available. The text and JSON reports, serve,
 * record's checker and compare all iterate those tables, so two outputs
 * cannot disagree on a name or a null.
 *
 * The tracer gives meaning to the ints: which of its structs a row reads
 * (from), and which of its availability rules holds (avail). Names agree
 * (figure_names_agree()): a family is bhscope_<tracer>_ followed by every
 * word of the JSON key, and at most a counted noun and its unit.
 */
#ifndef BHSCOPE_FIGURE_H
#define BHSCOPE_FIGURE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a value is: its JSON type, and the range a record may hold. */
enum figure_kind {
	FIGURE_COUNT,		/* a u64 count: an integer, 0 .. 2^53 in records */
	FIGURE_RATE,		/* a double >= 0: per second, per event, an average */
	FIGURE_RATIO,		/* a double in 0 .. 1 */
	FIGURE_FLAG,		/* true or false */
	FIGURE_SHAPED,		/* an array, object or string its shape() builds */
};

/* A time's unit: Prometheus has seconds. */
enum figure_time {
	FIGURE_TIME_NONE,	/* not a time */
	FIGURE_TIME_JIFFIES,	/* the kernel's HZ */
	FIGURE_TIME_NS,
	FIGURE_TIME_US,
};

enum figure_prom {
	FIGURE_PROM_NONE,	/* not exported */
	FIGURE_PROM_COUNTER,
	FIGURE_PROM_GAUGE,
	FIGURE_PROM_HISTOGRAM,	/* written by the exporter from the row's data */
};

/* Row flags. */
enum {
	FIGURE_OMIT = 1 << 0,		/* unavailable: absent, not null */
	FIGURE_NONZERO = 1 << 1,	/* text: only when not zero */
	FIGURE_JOIN = 1 << 2,		/* text: after the one before, ", " */
	FIGURE_DETAIL = 1 << 3,		/* per CPU: only with the histograms */
};

struct figure {
	const char *json;	/* key in its report object; "a.b": member b of
				 * object a; NULL: not in JSON */
	const char *json_cpu;	/* key in a per-CPU object, if not json */
	const char *prom;	/* Prometheus family; NULL: not exported */
	enum figure_prom prom_type;
	const char *prom_label;	/* one series of a labelled family: */
	const char *prom_value;	/* label and value ("outcome", "absent") */
	const char *help;	/* the family's HELP (its first row's) */
	enum figure_kind kind;
	enum figure_time time;	/* a time's unit (Prometheus: seconds) */
	int from;		/* the tracer's source struct */
	size_t off;		/* a u64 there, or an array (histogram) */
	/* or computed from the tracer's input (its own struct): */
	double (*num)(const struct figure *f, const void *in);
	struct json_object *(*shape)(const struct figure *f, const void *in);
	/* a log2 histogram in Prometheus: the buckets written, the sum */
	int hist_first, hist_last;
	size_t hist_sum;	/* a u64 beside it (off) */
	enum figure_time hist_sum_time;
	int avail;		/* the tracer's availability rule */
	unsigned int flags;
	/* text: a column header, or a "label: %llu" part of a line */
	const char *text;
	int text_pos;		/* its place (1, 2, ...); 0: not in text */
	int text_width;		/* a column's */
	int text_avail;		/* text's own rule; 0: avail */
	/* compare (and record's checker): */
	int compare_pos;	/* its place among the compared; 0: not */
	const char *compare;	/* the row's name: "LRU hit ratio" */
	const char *compare_key; /* "<tracer>.<json>" unless this */
	const char *unit;	/* "%", "hits/s", "" */
	double scale;		/* value times this; 0: 1 */
	bool per_cpu;		/* each CPU's too ("LRU hit ratio CPU 1") */
	const char *per;	/* compared: json / per (another row's json) */
};

/* A tracer's table, and where its figures are in a record's run. */
struct figure_table {
	const char *tracer;		/* "lru": compare's keys "lru.<json>" */
	const struct figure *rows;
	size_t nr;
	const char *run_path;		/* "lru.total", "jbd2.devices.*" */
	const char *cpu_path;		/* "lru.cpus.*", or NULL */
};

/* The u64 at f->off in base. */
static inline uint64_t figure_u64(const struct figure *f, const void *base)
{
	return *(const uint64_t *)((const char *)base + f->off);
}

/*
 * Puts v (NULL: null) in o under key ("a.b": in a's object, made when
 * missing; a null a stays null, as a whole group unavailable).
 */
void figure_json_put(struct json_object *o, const char *key,
		     struct json_object *v);

/* v, of time unit t, in seconds (hz for jiffies). */
double figure_seconds(double v, enum figure_time t, int hz);

/* The value of a number row as JSON: an integer, a double or a boolean. */
struct json_object *figure_json_number(const struct figure *f, double v);

/*
 * Whether f's Prometheus name says its JSON key: bhscope_<tracer>_, each
 * word of the key in order (a plural may lose its s; a unit word of the
 * key, jiffies, ns, us or hist, may become another), then at most one
 * word and the type's suffix (_total, _seconds). True when either name is
 * missing.
 */
bool figure_names_agree(const char *tracer, const struct figure *f);

/* pattern ("jbd2.devices.*") with index for its '*', in buf. */
void figure_path(const char *pattern, long index, char *buf, size_t len);

/* The row of t whose JSON key is json, or NULL. */
const struct figure *figure_find(const struct figure_table *t,
				 const char *json);

#endif /* BHSCOPE_FIGURE_H */
