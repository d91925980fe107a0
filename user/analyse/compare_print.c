// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "record/record_json.h"
#include "analyse/compare_print.h"
#include "record/record_read.h"
#include "lib/json_out.h"
#include "lib/term_safe.h"

#define MAX_COLS	64
#define CELL		160

void compare_print_value(char *buf, size_t len, double v)
{
	double a = fabs(v);

	if (isnan(v))
		snprintf(buf, len, "-");
	else if (a >= 1000 || a == floor(a))
		snprintf(buf, len, "%.0f", v);
	else if (a >= 10)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.2f", v);
}

void compare_print_change(char *buf, size_t len, const struct cmp_cell *c)
{
	if (!c->s.n || isnan(c->pct))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%+.1f%%%s", c->pct, c->noise ? " ~" : "");
}

/* "8366", or "8366 (8200..8400)" with repeats. */
static void format_cell(char *buf, size_t len, const struct cmp_cell *c)
{
	char v[40], lo[40], hi[40];

	if (!c->s.n) {
		snprintf(buf, len, "-");
		return;
	}
	compare_print_value(v, sizeof(v), c->s.median);
	if (c->s.n < 2) {
		snprintf(buf, len, "%s", v);
		return;
	}
	compare_print_value(lo, sizeof(lo), c->s.min);
	compare_print_value(hi, sizeof(hi), c->s.max);
	snprintf(buf, len, "%s (%s..%s)", v, lo, hi);
}

static void metric_name(char *buf, size_t len, const struct cmp_row *r)
{
	if (r->unit[0])
		snprintf(buf, len, "%s, %s", r->name, r->unit);
	else
		snprintf(buf, len, "%s", r->name);
}

static bool any_repeats(const struct cmp_table *t)
{
	for (int r = 0; r < t->nr_recs; r++)
		if (t->recs[r].nr_ok > 1)
			return true;
	return false;
}

/* A record's string, safe for a terminal, or what to say when absent. */
static const char *text_of(struct json_object *root, const char *path,
			   const char *absent, char *buf, size_t len)
{
	const char *s = record_json_string(root, path);

	if (s)
		return term_safe(buf, len, s);
	snprintf(buf, len, "%s", absent);
	return buf;
}

/*
 * Text from a record (already terminal-safe) inside a Markdown line or
 * table cell: the punctuation that means something there is
 * backslash-escaped (CommonMark), so a label cannot split a cell with
 * "|", open HTML with "<", make a link, code or emphasis, or start an
 * entity with "&". (It never starts a line: no heading or list marks.)
 */
static const char *md_text(char *buf, size_t len, const char *s)
{
	size_t o = 0;

	for (; *s && o + 2 < len; s++) {
		if (strchr("\\`*_[]<>|&~", *s))
			buf[o++] = '\\';
		buf[o++] = *s;
	}
	buf[o] = '\0';
	return buf;
}

static void describe_record(FILE *out, const struct cmp_table *t, int r,
			    bool markdown)
{
	static const struct {
		const char *path, *absent;
	} field[] = {
		{ "host.kernel", "?" },		{ "target.fstype", "no fs" },
		{ "target.device", "" },	{ "target.super_options", "" },
		{ "tunables.lru_size_from", "?" }, { "tunables.batch_from", "?" },
	};
	enum { NF = sizeof(field) / sizeof(*field) };
	struct json_object *root = t->recs[r].root;
	char safe[NF][1024], md[NF + 1][2048], e[64];
	const char *v[NF], *label = t->recs[r].label;
	double lru = 0, min = 0, max = 0;

	record_json_number(root, "tunables.lru_size", &lru, e, sizeof(e));
	record_json_number(root, "tunables.min_batch_time_us", &min, e, sizeof(e));
	record_json_number(root, "tunables.max_batch_time_us", &max, e, sizeof(e));
	for (int i = 0; i < NF; i++) {
		v[i] = text_of(root, field[i].path, field[i].absent, safe[i],
			       sizeof(safe[i]));
		if (markdown)
			v[i] = md_text(md[i], sizeof(md[i]), v[i]);
	}
	if (markdown)
		label = md_text(md[NF], sizeof(md[NF]), label);
	fprintf(out, "%s%c %-12s %s, %s %s %s, lru_size %.0f (%s), batch %.0f..%.0f us (%s), %d/%d runs ok\n",
		markdown ? "- " : "  ", 'A' + r, label, v[0], v[1], v[2], v[3],
		lru, v[4], min, max, v[5], t->recs[r].nr_ok, t->recs[r].nr_runs);
}

static void print_legend(FILE *out, const struct cmp_table *t)
{
	if (any_repeats(t))
		fprintf(out, "\nmedian (min..max) over successful runs; %% change of the median vs A; ~ = within the noise (ranges overlap or change below the relative MAD)\n");
	else
		fprintf(out, "\nsingle runs: no spread measured, so no change can be called noise; record with -r N\n");
}

void compare_print_text(FILE *out, const struct cmp_table *t)
{
	char cell[MAX_COLS][CELL], name[128];
	int w[MAX_COLS] = { 0 }, ncol = 1 + 2 * t->nr_recs - 1;

	if (ncol > MAX_COLS)
		ncol = MAX_COLS;
	fprintf(out, "Records:\n");
	for (int r = 0; r < t->nr_recs; r++)
		describe_record(out, t, r, false);
	fprintf(out, "\n");

	/* Two passes: widths, then the table. */
	for (int pass = 0; pass < 2; pass++) {
		for (int i = -1; i < t->nr_rows; i++) {
			int c = 0;

			if (i < 0) {
				snprintf(cell[c++], CELL, "metric");
				for (int r = 0; r < t->nr_recs && c < ncol; r++) {
					snprintf(cell[c++], CELL, "%c %s", 'A' + r,
						 t->recs[r].label);
					if (r && c < ncol)
						snprintf(cell[c++], CELL, "%c vs A", 'A' + r);
				}
			} else {
				const struct cmp_row *row = &t->rows[i];

				metric_name(name, sizeof(name), row);
				snprintf(cell[c++], CELL, "%s", name);
				for (int r = 0; r < t->nr_recs && c < ncol; r++) {
					format_cell(cell[c++], CELL, &row->cells[r]);
					if (r && c < ncol)
						compare_print_change(
							cell[c++], CELL,
							&row->cells[r]);
				}
			}
			for (int k = 0; k < ncol; k++) {
				int len = (int)strlen(cell[k]);

				if (!pass) {
					if (len > w[k])
						w[k] = len;
					continue;
				}
				fprintf(out, k ? "  %*s" : "%-*s", w[k], cell[k]);
			}
			if (pass)
				fprintf(out, "\n");
		}
	}
	print_legend(out, t);
}

/*
 * One CSV field (RFC 4180): quoted when it holds a comma, a quote or a
 * line break (quotes doubled). A field a spreadsheet would take for a
 * formula (starting with =, +, -, @, a tab or a carriage return) gets a
 * leading ' and quotes (OWASP's CSV injection advice).
 */
static void csv_field(FILE *out, const char *text)
{
	char buf[1024];
	const char *s = term_safe(buf, sizeof(buf), text);
	bool formula = strchr("=+-@\t\r", s[0]) && s[0];

	if (!formula && !strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	if (formula)
		fputc('\'', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void csv_num(FILE *out, double v)
{
	if (isnan(v))
		fprintf(out, ",");
	else
		fprintf(out, ",%.6g", v);
}

void compare_print_csv(FILE *out, const struct cmp_table *t)
{
	fprintf(out, "metric,name,unit,record,file,label,runs,median,min,max,mad,pct_change,noise\n");
	for (int i = 0; i < t->nr_rows; i++) {
		const struct cmp_row *row = &t->rows[i];

		for (int r = 0; r < t->nr_recs; r++) {
			const struct cmp_cell *c = &row->cells[r];

			csv_field(out, row->key);
			fputc(',', out);
			csv_field(out, row->name);
			fputc(',', out);
			csv_field(out, row->unit);
			fprintf(out, ",%c,", 'A' + r);
			csv_field(out, t->recs[r].path);
			fputc(',', out);
			csv_field(out, t->recs[r].label);
			fprintf(out, ",%zu", c->s.n);
			csv_num(out, c->s.median);
			csv_num(out, c->s.min);
			csv_num(out, c->s.max);
			csv_num(out, c->s.mad);
			csv_num(out, r ? c->pct : NAN);
			fprintf(out, ",%s\n", r && c->s.n ? (c->noise ? "yes" : "no") : "");
		}
	}
}

void compare_print_markdown(FILE *out, const struct cmp_table *t)
{
	char cell[CELL], name[128], label[2 * sizeof(t->recs[0].label)];

	for (int r = 0; r < t->nr_recs; r++)
		describe_record(out, t, r, true);
	fprintf(out, "\n| metric |");
	for (int r = 0; r < t->nr_recs; r++) {
		fprintf(out, " %c %s |", 'A' + r,
			md_text(label, sizeof(label), t->recs[r].label));
		if (r)
			fprintf(out, " %c vs A |", 'A' + r);
	}
	fprintf(out, "\n|---|");
	for (int r = 0; r < t->nr_recs; r++)
		fprintf(out, r ? "---:|---:|" : "---:|");
	fprintf(out, "\n");
	for (int i = 0; i < t->nr_rows; i++) {
		const struct cmp_row *row = &t->rows[i];

		metric_name(name, sizeof(name), row);
		fprintf(out, "| %s |", md_text(cell, sizeof(cell), name));
		for (int r = 0; r < t->nr_recs; r++) {
			format_cell(cell, sizeof(cell), &row->cells[r]);
			fprintf(out, " %s |", cell);
			if (r) {
				compare_print_change(cell, sizeof(cell),
						     &row->cells[r]);
				fprintf(out, " %s |", cell);
			}
		}
		fprintf(out, "\n");
	}
	print_legend(out, t);
}

static struct json_object *num(double v)
{
	return json_out_double(v);
}

static struct json_object *cell_json(const struct cmp_cell *c, int r)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "runs", json_object_new_int((int)c->s.n));
	json_object_object_add(o, "median", num(c->s.median));
	json_object_object_add(o, "min", num(c->s.min));
	json_object_object_add(o, "max", num(c->s.max));
	json_object_object_add(o, "mad", num(c->s.mad));
	json_object_object_add(o, "pct_change", r ? num(c->pct) : NULL);
	json_object_object_add(o, "noise", r && c->s.n ?
				json_object_new_boolean(c->noise) : NULL);
	return o;
}

static struct json_object *record_json(const struct cmp_record *rec)
{
	struct json_object *o = json_object_new_object(), *v;

	json_object_object_add(o, "file", json_object_new_string(rec->path));
	json_object_object_add(o, "label", json_object_new_string(rec->label));
	json_object_object_add(o, "runs", json_object_new_int(rec->nr_runs));
	json_object_object_add(o, "runs_ok", json_object_new_int(rec->nr_ok));
	v = record_json_get(rec->root, "host.kernel");
	json_object_object_add(o, "kernel", json_object_get(v));
	v = record_json_get(rec->root, "target");
	json_object_object_add(o, "target", json_object_get(v));
	v = record_json_get(rec->root, "tunables");
	json_object_object_add(o, "tunables", json_object_get(v));
	return o;
}

struct json_object *compare_print_json(const struct cmp_table *t)
{
	struct json_object *o = json_out_new(COMPARE_JSON_SCHEMA), *a, *m, *vals;

	a = json_object_new_array();
	for (int r = 0; r < t->nr_recs; r++)
		json_object_array_add(a, record_json(&t->recs[r]));
	json_object_object_add(o, "records", a);
	a = json_object_new_array();
	for (int i = 0; i < t->nr_warnings; i++)
		json_object_array_add(a, json_object_new_string(t->warnings[i]));
	json_object_object_add(o, "warnings", a);
	a = json_object_new_array();
	for (int i = 0; i < t->nr_rows; i++) {
		const struct cmp_row *row = &t->rows[i];

		m = json_object_new_object();
		json_object_object_add(m, "key", json_object_new_string(row->key));
		json_object_object_add(m, "name", json_object_new_string(row->name));
		json_object_object_add(m, "unit", json_object_new_string(row->unit));
		vals = json_object_new_array();
		for (int r = 0; r < t->nr_recs; r++)
			json_object_array_add(vals, cell_json(&row->cells[r], r));
		json_object_object_add(m, "values", vals);
		json_object_array_add(a, m);
	}
	json_object_object_add(o, "metrics", a);
	return o;
}
