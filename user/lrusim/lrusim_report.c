// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json_out.h"
#include "lrusim/lrusim_report.h"

static const char *const outcome_name[LRU_NR_LOOKUP_OUTCOMES] = {
	[LRU_HIT] = "hit",
	[LRU_MISS_INSTALLED] = "installed",
	[LRU_MISS_NOT_INSTALLED] = "not_installed",
	[LRU_MISS_ABSENT] = "absent",
	[LRU_UNSYNCED] = "unsynced",
};

/* One set of figures, a CPU's or all of them, with its curve. */
struct view {
	struct lrusim_figures f;
	uint64_t classified;
	uint64_t hits[BHSCOPE_LRU_DEPTH_MAX], min[BHSCOPE_LRU_DEPTH_MAX],
		 max[BHSCOPE_LRU_DEPTH_MAX];
};

static void view_fill(struct view *v, const struct lrusim_report *r)
{
	v->classified = lrusim_classified(&v->f);
	lrusim_curve(&v->f, r->hi, v->hits, v->min, v->max);
}

static double ratio(uint64_t n, uint64_t d)
{
	return d ? (double)n / (double)d : NAN;
}

static void fmt_pct(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f%%", 100 * v);
}

/* Live unsynced lookups the model classified, and the reverse. */
static uint64_t live_only_unsynced(const struct lrusim_figures *f)
{
	uint64_t n = 0;

	for (int m = 0; m < LRU_UNSYNCED; m++)
		n += f->cmp[LRU_UNSYNCED][m];
	return n;
}

static uint64_t model_only_unsynced(const struct lrusim_figures *f)
{
	uint64_t n = 0;

	for (int l = 0; l < LRU_UNSYNCED; l++)
		n += f->cmp[l][LRU_UNSYNCED];
	return n;
}

static void print_disagreements(FILE *out, const struct lrusim_figures *f)
{
	for (int l = 0; l < LRU_UNSYNCED; l++)
		for (int m = 0; m < LRU_UNSYNCED; m++)
			if (l != m && f->cmp[l][m])
				fprintf(out, "  live %s, model %s: %llu\n",
					outcome_name[l], outcome_name[m],
					(unsigned long long)f->cmp[l][m]);
	if (f->slot_differs)
		fprintf(out, "  both a hit, in another slot: %llu\n",
			(unsigned long long)f->slot_differs);
}

/* A CPU's column of the text curve: its running sums, size by size. */
struct column {
	int cpu;
	const struct lrusim_figures *f;
	uint64_t classified;
	int64_t h, uh, um;	/* the sums over sizes 1..k */
};

void lrusim_report_text(FILE *out, const struct lrusim_report *r)
{
	const struct lrusim *sim = r->sim;
	const struct lru_trace_header *h = r->h;
	struct view *all = calloc(1, sizeof(*all));
	struct column *cols = NULL;
	int ncol = 0, S = h->lru_size;
	char buf[32], range[40];
	uint64_t dis;

	if (!all)
		return;
	lrusim_total(sim, &all->f);
	view_fill(all, r);
	/* only the CPUs with lookups: never as many as the header claims */
	for (int c = 0; r->per_cpu && c < sim->nr_cpus; c++) {
		const struct lrusim_figures *f = lrusim_cpu(sim, c);
		struct column *grown;

		if (!f || !f->lookups)
			continue;
		if (!(ncol & (ncol - 1))) {
			grown = realloc(cols, (ncol ? 2 * ncol : 1) * sizeof(*cols));
			if (!grown)
				break;
			cols = grown;
		}
		cols[ncol++] = (struct column){ .cpu = c, .f = f,
						.classified = lrusim_classified(f) };
	}
	fprintf(out, "trace %s: format %u, Linux %s, lookups from %s, LRU size %u, %u CPU%s%s\n",
		r->file, h->version, h->kernel, h->hook, h->lru_size,
		h->nr_cpus, h->nr_cpus == 1 ? "" : "s", r->truncated ? " (cut short)" :
		(h->flags & LRU_TRACE_COMPLETE) ? "" : " (not finished)");
	fprintf(out, "records %llu, events lost %llu (gaps %llu); snapshots %llu (%llu agreed with the model, %llu resynced it), resets %llu, restarts %llu, splits %llu\n",
		(unsigned long long)sim->records, (unsigned long long)h->lost,
		(unsigned long long)sim->gaps,
		(unsigned long long)sim->snapshots,
		(unsigned long long)sim->snapshots_agreed,
		(unsigned long long)sim->resyncs,
		(unsigned long long)sim->resets,
		(unsigned long long)sim->restarts,
		(unsigned long long)sim->splits);
	if (!(h->flags & LRU_TRACE_RAW_BITS))
		fprintf(out, "this trace has no FOUND/FRONT bits (an older bhscope wrote it): the model takes them from the live outcomes\n");
	fmt_pct(buf, sizeof(buf), ratio(all->f.model[LRU_HIT], all->classified));
	fprintf(out, "lookups %llu: model hits %llu (%s), installed %llu, not installed %llu, absent %llu, evictions %llu; not classified %llu\n",
		(unsigned long long)all->f.lookups,
		(unsigned long long)all->f.model[LRU_HIT], buf,
		(unsigned long long)all->f.model[LRU_MISS_INSTALLED],
		(unsigned long long)all->f.model[LRU_MISS_NOT_INSTALLED],
		(unsigned long long)all->f.model[LRU_MISS_ABSENT],
		(unsigned long long)all->f.evictions,
		(unsigned long long)all->f.model[LRU_UNSYNCED]);
	dis = lrusim_disagreements(&all->f);
	fprintf(out, "live and model disagree on %llu lookups%s (live unsynced where the model classified: %llu; the model, learning, could not classify where live did: %llu; kernel moves the model contradicts: %llu)\n",
		(unsigned long long)dis, dis ? ":" : "",
		(unsigned long long)live_only_unsynced(&all->f),
		(unsigned long long)model_only_unsynced(&all->f),
		(unsigned long long)all->f.conflicts);
	if (dis)
		print_disagreements(out, &all->f);

	fprintf(out, "what-if: hit ratio at each LRU size (* = the traced size; where the model cannot decide, the range the ratio lies in, and ~)\n");
	fprintf(out, "%6s %9s %17s", "SIZE", "TOTAL", "RANGE");
	for (int i = 0; i < ncol; i++) {
		snprintf(buf, sizeof(buf), "CPU%d", cols[i].cpu);
		fprintf(out, " %10s", buf);
	}
	fprintf(out, "\n");
	for (int k = 1; k <= r->hi && k < LRUSIM_SIZES - 1; k++) {
		const struct view *v = all;
		char lo[16], hi[16];

		for (int i = 0; i < ncol; i++) {
			cols[i].h += cols[i].f->hit[k];
			cols[i].uh += cols[i].f->und_hit[k];
			cols[i].um += cols[i].f->und_miss[k];
		}
		if (k < r->lo)
			continue;
		fmt_pct(buf, sizeof(buf), ratio(v->hits[k - 1], v->classified));
		range[0] = '\0';
		if (v->min[k - 1] != v->max[k - 1]) {
			/* rounded outwards: a range never looks like a point */
			snprintf(lo, sizeof(lo), "%.2f",
				 floor(1e4 * ratio(v->min[k - 1], v->classified)) / 100);
			snprintf(hi, sizeof(hi), "%.2f%%",
				 ceil(1e4 * ratio(v->max[k - 1], v->classified)) / 100);
			snprintf(range, sizeof(range), "%s-%s", lo, hi);
		}
		fprintf(out, "%5d%c %9s %17s", k, k == S ? '*' : ' ', buf, range);
		for (int i = 0; i < ncol; i++) {
			const struct column *c = &cols[i];

			fmt_pct(buf, sizeof(buf), ratio(c->h, c->classified));
			if (c->uh || c->um)
				strcat(buf, "~");
			fprintf(out, " %10s", buf);
		}
		fprintf(out, "\n");
	}
	if (S)
		fprintf(out, "sizes 1-%d are exact; ", S);
	fprintf(out, "above, the model cannot know what a larger LRU held before its last snapshot of a full LRU, nor reorderings by misses of keys it did not hold (bhscope simulate --help)\n");
	free(all);
	free(cols);
}

static void add_u64(struct json_object *o, const char *k, uint64_t v)
{
	json_object_object_add(o, k, json_object_new_uint64(v));
}

static struct json_object *json_ratio(uint64_t n, uint64_t d)
{
	return d ? json_out_double(ratio(n, d)) : NULL;
}

static struct json_object *json_outcomes(const uint64_t *o)
{
	struct json_object *j = json_object_new_object();

	add_u64(j, "hits", o[LRU_HIT]);
	add_u64(j, "installed", o[LRU_MISS_INSTALLED]);
	add_u64(j, "not_installed", o[LRU_MISS_NOT_INSTALLED]);
	add_u64(j, "absent", o[LRU_MISS_ABSENT]);
	add_u64(j, "unsynced", o[LRU_UNSYNCED]);
	return j;
}

static struct json_object *json_view(const struct view *v,
				     const struct lrusim_report *r)
{
	const struct lrusim_figures *f = &v->f;
	struct json_object *j = json_object_new_object(), *cmp, *m, *w, *a[4];

	/* the model's figures, at the top like `bhscope lru`'s */
	add_u64(j, "lookups", f->lookups);
	add_u64(j, "hits", f->model[LRU_HIT]);
	add_u64(j, "installed", f->model[LRU_MISS_INSTALLED]);
	add_u64(j, "not_installed", f->model[LRU_MISS_NOT_INSTALLED]);
	add_u64(j, "absent", f->model[LRU_MISS_ABSENT]);
	add_u64(j, "unsynced", f->model[LRU_UNSYNCED]);
	add_u64(j, "evictions", f->evictions);
	json_object_object_add(j, "hit_ratio",
			       json_ratio(f->model[LRU_HIT], v->classified));
	m = json_object_new_array();
	for (int s = 0; s < (int)r->h->lru_size && s < BHSCOPE_LRU_SLOTS_MAX; s++)
		json_object_array_add(m, json_object_new_uint64(f->slots[s]));
	json_object_object_add(j, "slots", m);
	json_object_object_add(j, "live", json_outcomes(f->live));

	cmp = json_object_new_object();
	add_u64(cmp, "disagree", lrusim_disagreements(f));
	add_u64(cmp, "slot_differs", f->slot_differs);
	add_u64(cmp, "live_unsynced_model_classified", live_only_unsynced(f));
	add_u64(cmp, "model_unsynced_live_classified", model_only_unsynced(f));
	add_u64(cmp, "kernel_conflicts", f->conflicts);
	m = json_object_new_object();
	for (int l = 0; l < LRU_NR_LOOKUP_OUTCOMES; l++) {
		struct json_object *row = json_object_new_object();

		for (int o = 0; o < LRU_NR_LOOKUP_OUTCOMES; o++)
			add_u64(row, outcome_name[o], f->cmp[l][o]);
		json_object_object_add(m, outcome_name[l], row);
	}
	json_object_object_add(cmp, "live_by_model", m);
	json_object_object_add(j, "compare", cmp);

	w = json_object_new_object();
	for (int i = 0; i < 4; i++)
		a[i] = json_object_new_array();
	for (int k = r->lo; k <= r->hi; k++) {
		json_object_array_add(a[0], json_object_new_int(k));
		json_object_array_add(a[1], json_ratio(v->hits[k - 1], v->classified));
		json_object_array_add(a[2], json_ratio(v->min[k - 1], v->classified));
		json_object_array_add(a[3], json_ratio(v->max[k - 1], v->classified));
	}
	json_object_object_add(w, "sizes", a[0]);
	json_object_object_add(w, "hit_ratio", a[1]);
	json_object_object_add(w, "hit_ratio_min", a[2]);
	json_object_object_add(w, "hit_ratio_max", a[3]);
	a[0] = json_object_new_array();
	for (int k = r->lo; k <= r->hi; k++)
		json_object_array_add(a[0], json_object_new_boolean(
					      v->min[k - 1] == v->max[k - 1]));
	json_object_object_add(w, "exact", a[0]);
	json_object_object_add(j, "whatif", w);
	return j;
}

/* The CPUs of -C, one JSON object at a time (json_out streams them). */
struct cpu_iter {
	const struct lrusim_report *r;
	struct view *v;
	int next;
};

static struct json_object *next_cpu(void *arg)
{
	struct cpu_iter *it = arg;
	const struct lrusim *sim = it->r->sim;

	for (; it->next < sim->nr_cpus; it->next++) {
		const struct lrusim_figures *f = lrusim_cpu(sim, it->next);
		struct json_object *o;

		if (!f)
			continue;
		it->v->f = *f;
		view_fill(it->v, it->r);
		o = json_view(it->v, it->r);
		json_object_object_add(o, "cpu", json_object_new_int(it->next++));
		return o;
	}
	return NULL;
}

int lrusim_report_json_print(FILE *out, const struct lrusim_report *r)
{
	const struct lrusim *sim = r->sim;
	const struct lru_trace_header *h = r->h;
	struct json_object *j = json_out_new(LRUSIM_JSON_SCHEMA);
	struct view *v = calloc(1, sizeof(*v));
	struct cpu_iter it = { .r = r, .v = v };
	int ret;

	if (!v) {
		json_object_put(j);
		errno = ENOMEM;
		return -1;
	}
	json_object_object_add(j, "file", json_object_new_string(r->file));
	json_object_object_add(j, "format", json_object_new_int(h->version));
	json_object_object_add(j, "kernel", json_object_new_string(h->kernel));
	json_object_object_add(j, "hook", json_object_new_string(h->hook));
	json_object_object_add(j, "lru_size", json_object_new_int(h->lru_size));
	json_object_object_add(j, "nr_cpus", json_object_new_int(h->nr_cpus));
	json_object_object_add(j, "complete", json_object_new_boolean(
				       (h->flags & LRU_TRACE_COMPLETE) && !r->truncated));
	json_object_object_add(j, "truncated", json_object_new_boolean(r->truncated));
	json_object_object_add(j, "raw_bits", json_object_new_boolean(
				       h->flags & LRU_TRACE_RAW_BITS));
	add_u64(j, "records", sim->records);
	add_u64(j, "lost", h->lost);
	add_u64(j, "gaps", sim->gaps);
	add_u64(j, "snapshots", sim->snapshots);
	add_u64(j, "snapshots_agreed", sim->snapshots_agreed);
	add_u64(j, "resyncs", sim->resyncs);
	add_u64(j, "bad_snapshots", sim->bad_snapshots);
	add_u64(j, "resets", sim->resets);
	add_u64(j, "restarts", sim->restarts);
	add_u64(j, "waiting", sim->waiting);
	add_u64(j, "splits", sim->splits);
	json_object_object_add(j, "exact_sizes",
			       json_object_new_int(h->lru_size));
	lrusim_total(sim, &v->f);
	view_fill(v, r);
	add_u64(j, "disagreements", lrusim_disagreements(&v->f));
	json_object_object_add(j, "total", json_view(v, r));
	/* per CPU: streamed, one CPU's objects in memory at a time */
	ret = r->per_cpu ? json_out_print_array_member(out, j, "cpus", next_cpu, &it) :
			   json_out_print(out, j, JSON_OUT_LINE);
	free(v);
	return ret;
}
