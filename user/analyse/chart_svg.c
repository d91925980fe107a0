// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyse/chart_svg.h"
#include "analyse/compare_print.h"
#include "lib/atomic_file.h"
#include "lib/errmsg.h"

#define WIDTH		960
#define PANEL_H		300
#define LEFT		70
#define RIGHT		20
#define TOP		50
#define BOTTOM		60

static const char *const colors[] = {
	"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948",
	"#b07aa1", "#ff9da7",
};
#define NR_COLORS (sizeof(colors) / sizeof(colors[0]))

struct bar {
	double v, lo, hi;	/* in panel units; NAN = none */
	char label[40];
};

/* Escapes the XML specials of s. */
static void text_esc(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(*s, out);
		}
	}
}

/*
 * A ratio of two finite figures can still overflow (1e15 / 1e-300): such a
 * bar is not drawn, so no "inf" or "nan" reaches the SVG.
 */
static double finite_or_nan(double v)
{
	return isfinite(v) ? v : NAN;
}

/* A "nice" axis top: 1, 2, 2.5 or 5 times a power of ten above max. */
static double nice_top(double max)
{
	double p, steps[] = { 1, 2, 2.5, 5, 10 };

	if (!(max > 0) || !isfinite(max))
		return 1;
	p = pow(10, floor(log10(max)));
	for (size_t i = 0; i < sizeof(steps) / sizeof(*steps); i++)
		if (steps[i] * p >= max)
			return steps[i] * p;
	return 10 * p;
}

static void axis(FILE *out, double y0, double top, const char *unit)
{
	double h = PANEL_H - TOP - BOTTOM;

	for (int i = 0; i <= 4; i++) {
		double v = top * i / 4, y = y0 + TOP + h - h * i / 4;

		fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
			LEFT, y, WIDTH - RIGHT, y);
		fprintf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\">%g%s</text>\n",
			LEFT - 6, y + 4, v, unit);
	}
}

static void panel(FILE *out, double y0, const char *title, const char *unit,
		  int ngroups, char (*names)[128], const struct bar *bars,
		  int nrecs, double top)
{
	double h = PANEL_H - TOP - BOTTOM, gw, bw;

	fprintf(out, "<text x=\"%d\" y=\"%.1f\" font-size=\"15\" font-weight=\"bold\">",
		LEFT, y0 + 25);
	text_esc(out, title);
	fprintf(out, "</text>\n");
	axis(out, y0, top, unit);
	gw = (double)(WIDTH - LEFT - RIGHT) / ngroups;
	bw = fmin(gw * 0.8 / nrecs, 90);
	for (int g = 0; g < ngroups; g++) {
		double gx = LEFT + g * gw + gw * 0.1;

		for (int r = 0; r < nrecs; r++) {
			const struct bar *b = &bars[g * nrecs + r];
			double x = gx + r * bw, bh, y;

			if (isnan(b->v))
				continue;
			bh = h * fmin(b->v, top) / top;
			y = y0 + TOP + h - bh;
			fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n",
				x, y, bw * 0.9, bh, colors[r % NR_COLORS]);
			if (!isnan(b->lo) && !isnan(b->hi) && b->hi > b->lo) {
				double cx = x + bw * 0.45;
				double ylo = y0 + TOP + h - h * fmin(b->lo, top) / top;
				double yhi = y0 + TOP + h - h * fmin(b->hi, top) / top;

				fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n",
					cx, ylo, cx, yhi);
			}
			fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"10\">",
				x + bw * 0.45, y - 3);
			text_esc(out, b->label);
			fprintf(out, "</text>\n");
		}
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"12\">",
			gx + gw * 0.4, y0 + TOP + h + 18);
		text_esc(out, names[g]);
		fprintf(out, "</text>\n");
	}
}

static void legend(FILE *out, const struct cmp_table *t, double y)
{
	double x = LEFT;

	for (int r = 0; r < t->nr_recs; r++) {
		fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n",
			x, y - 10, colors[r % NR_COLORS]);
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">%c ", x + 16,
			y, 'A' + r);
		text_esc(out, t->recs[r].label);
		fprintf(out, "</text>\n");
		x += 40 + 8 * strlen(t->recs[r].label);
	}
}

static void throughput_panel(FILE *out, const struct cmp_table *t, double y0)
{
	int n = 0, nr = t->nr_recs;
	char (*names)[128] = calloc(t->nr_rows + 1, sizeof(*names));
	struct bar *bars = calloc((t->nr_rows + 1) * nr, sizeof(*bars));
	double max = 0;

	if (!names || !bars)
		goto out;
	for (int i = 0; i < t->nr_rows; i++) {
		const struct cmp_row *row = &t->rows[i];
		double base = row->cells[0].s.median;

		if (!row->throughput || !(base > 0))
			continue;
		snprintf(names[n], 128, "%s, %s", row->name, row->unit);
		for (int r = 0; r < nr; r++) {
			const struct cmp_cell *c = &row->cells[r];
			struct bar *b = &bars[n * nr + r];

			b->v = c->s.n ? finite_or_nan(100 * c->s.median / base) : NAN;
			b->lo = finite_or_nan(100 * c->s.min / base);
			b->hi = finite_or_nan(100 * c->s.max / base);
			compare_print_value(b->label, sizeof(b->label),
					    c->s.median);
			if (b->v > max)
				max = b->v;
			if (b->hi > max)
				max = b->hi;
		}
		n++;
	}
	if (!n) {
		fprintf(out, "<text x=\"%d\" y=\"%.1f\" font-size=\"13\">no throughput figures in these records</text>\n",
			LEFT, y0 + 40);
		goto out;
	}
	panel(out, y0, "Throughput, % of A (labels: medians; whiskers: min..max)",
	      "%", n, names, bars, nr, nice_top(max * 1.1));
out:
	free(names);
	free(bars);
}

/*
 * Per CPU: the hit ratio where lookups are classified, else (hits seen
 * through block:block_touch_buffer only) the hit rate.
 */
static void lru_panel(FILE *out, const struct cmp_table *t, double y0)
{
	bool ratio = compare_model_row(t, "lru.cpu0.hit_ratio") != NULL;
	const char *fmt = ratio ? "lru.cpu%d.hit_ratio" : "lru.cpu%d.hits_per_s";
	int nr = t->nr_recs, n = 0;
	double max = 0;
	char key[64];
	char (*names)[128] = NULL;
	struct bar *bars = NULL;

	/* Count first: one allocation, however many CPUs the records have. */
	for (snprintf(key, sizeof(key), fmt, n); compare_model_row(t, key);
	     snprintf(key, sizeof(key), fmt, ++n))
		;
	names = calloc(n + 1, sizeof(*names));
	bars = calloc((size_t)(n + 1) * nr, sizeof(*bars));
	if (!names || !bars)
		goto out;
	for (int i = 0; i < n; i++) {
		const struct cmp_row *row;

		snprintf(key, sizeof(key), fmt, i);
		row = compare_model_row(t, key);
		snprintf(names[i], 128, "CPU %d", i);
		for (int r = 0; r < nr; r++) {
			const struct cmp_cell *c = &row->cells[r];
			struct bar *b = &bars[i * nr + r];

			b->v = c->s.n ? c->s.median : NAN;
			b->lo = c->s.min;
			b->hi = c->s.max;
			compare_print_value(b->label, sizeof(b->label),
					    c->s.median);
			if (c->s.n && fmax(b->v, b->hi) > max)
				max = fmax(b->v, b->hi);
		}
	}
	if (!n) {
		fprintf(out, "<text x=\"%d\" y=\"%.1f\" font-size=\"15\" font-weight=\"bold\">Buffer-head LRU hit ratio per CPU</text>\n",
			LEFT, y0 + 25);
		fprintf(out, "<text x=\"%d\" y=\"%.1f\" font-size=\"13\">no LRU figures in these records (record with --lru where the LRU tracer runs)</text>\n",
			LEFT, y0 + 55);
		goto out;
	}
	if (ratio)
		panel(out, y0, "Buffer-head LRU hit ratio per CPU, %", "%", n,
		      names, bars, nr, 100);
	else
		panel(out, y0, "Buffer-head LRU hits per CPU, /s (no lookups seen: no hit ratio on this kernel)",
		      "", n, names, bars, nr, nice_top(max * 1.1));
out:
	free(names);
	free(bars);
}

void chart_svg_write(FILE *out, const struct cmp_table *t)
{
	int height = 2 * PANEL_H + 40;

	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		     "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n"
		     "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		WIDTH, height, WIDTH, height);
	legend(out, t, 20);
	throughput_panel(out, t, 20);
	lru_panel(out, t, 20 + PANEL_H);
	fprintf(out, "</svg>\n");
}

int chart_svg_save(const char *path, const struct cmp_table *t)
{
	char *buf = NULL, err[PATH_MAX + 128];
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	int ret;

	if (!mem) {
		errmsg("%s: %s", path, strerror(errno));
		return -1;
	}
	chart_svg_write(mem, t);
	fclose(mem);
	ret = atomic_file_write(AT_FDCWD, path, buf, len, ATOMIC_FILE_SYNC, err,
				sizeof(err));
	if (ret && errno == EEXIST)
		errmsg("%s", err);
	else if (ret)
		errmsg("%s: writing the chart failed: %s",
		       path, strerror(errno));
	free(buf);
	return ret;
}
