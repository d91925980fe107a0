// SPDX-License-Identifier: GPL-2.0
#include <math.h>

#include "lib/json_out.h"
#include "lru/lru_curve.h"
#include "lru/lru_time.h"

const char *const lru_time_group_names[LRU_NR_TIME_GROUPS] = {
	[LRU_TG_HIT] = "hit",
	[LRU_TG_INSTALLED] = "installed",
	[LRU_TG_NOT_INSTALLED] = "not_installed",
	[LRU_TG_ABSENT] = "absent",
};

static double mean(uint64_t ns, uint64_t n)
{
	return n ? (double)ns / (double)n : NAN;
}

/* hit(i) = a + b·i, least squares over the slots timed, weighted by n. */
static void fit_hits(struct lru_costs *c, const struct lru_time_stats *t,
		     int slots)
{
	double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, den;
	int distinct = 0;

	for (int i = 0; i < slots; i++) {
		if (!t->n[i])
			continue;
		distinct++;
		sw += t->n[i];
		sx += (double)t->n[i] * i;
		sxx += (double)t->n[i] * i * i;
		sy += t->ns[i];
		sxy += (double)t->ns[i] * i;
	}
	c->hit_a = sw ? sy / sw : NAN;
	c->hit_b = 0;
	den = sw * sxx - sx * sx;
	if (distinct < 2 || den <= 0)
		return;
	c->slope_fitted = true;
	/* a slot further never scans less: noise below 0 is 0 */
	c->hit_b = fmax(0, (sw * sxy - sx * sy) / den);
	c->hit_a = (sy - c->hit_b * sx) / sw;
}

void lru_costs_from(struct lru_costs *c, const struct lru_time_stats *t,
		    int lru_size)
{
	int slots = lru_size < BHSCOPE_LRU_SLOTS_MAX ? lru_size :
		    BHSCOPE_LRU_SLOTS_MAX;

	*c = (struct lru_costs){ .lru_size = lru_size };
	for (int i = 0; i < LRU_TIME_CLASSES; i++)
		c->samples += t->n[i];
	for (int i = 0; i < BHSCOPE_LRU_SLOTS_MAX; i++) {
		c->hit_n[i] = t->n[i];
		c->hit_mean[i] = mean(t->ns[i], t->n[i]);
	}
	fit_hits(c, t, slots > 0 ? slots : 0);
	c->installed_n = t->n[LRU_TIME_INSTALLED];
	c->installed = mean(t->ns[LRU_TIME_INSTALLED], c->installed_n);
	c->not_installed_n = t->n[LRU_TIME_NOT_INSTALLED];
	c->not_installed = mean(t->ns[LRU_TIME_NOT_INSTALLED],
				c->not_installed_n);
	c->absent_n = t->n[LRU_TIME_ABSENT];
	c->absent = mean(t->ns[LRU_TIME_ABSENT], c->absent_n);
	if (!c->not_installed_n) {
		c->not_installed = c->installed;
		c->not_installed_guessed = true;
	}
	if (!c->absent_n) {
		c->absent = c->installed;
		c->absent_guessed = true;
	}
}

double lru_costs_hit(const struct lru_costs *c, int slot)
{
	if (slot >= 0 && slot < c->lru_size && slot < BHSCOPE_LRU_SLOTS_MAX &&
	    c->hit_n[slot] >= LRU_COSTS_MIN_SAMPLES)
		return c->hit_mean[slot];
	return c->hit_a + c->hit_b * slot;
}

/* n lookups at cost each: 0 for none, whatever the cost (NAN: unknown). */
static double times(uint64_t n, double each)
{
	return n ? (double)n * each : 0;
}

void lru_time_curve(const struct lru_dev_stats *s, const struct lru_costs *c,
		    struct lru_time_point *out, int n)
{
	uint64_t total = lru_curve_classified(s), hits = 0;
	double hit_ns = 0;

	for (int k = 1; k <= n && k <= BHSCOPE_LRU_DEPTH_MAX; k++) {
		uint64_t misses, absent, not_inst;
		double more = k - c->lru_size, ns;

		hits += s->dist[k - 1];
		hit_ns += times(s->dist[k - 1], lru_costs_hit(c, k - 1));
		misses = total > hits ? total - hits : 0;
		absent = s->absent < misses ? s->absent : misses;
		not_inst = s->not_installed < misses - absent ?
			   s->not_installed : misses - absent;
		/* a miss scans every slot; an installed one shifts them too */
		ns = hit_ns +
		     times(misses - absent - not_inst,
			   c->installed + c->hit_b * more) +
		     times(not_inst, c->not_installed + c->hit_b / 2 * more) +
		     times(absent, c->absent + c->hit_b / 2 * more);
		out[k - 1] = (struct lru_time_point){
			.size = k,
			.hit_ratio = total ? (double)hits / (double)total : NAN,
			.ns_per_lookup = total ? ns / (double)total : NAN,
		};
	}
}

/* Lookups a second (every lookup: the unsynced cost like the others). */
static double lookups_per_s(const struct lru_time_input *in)
{
	return in->elapsed_s > 0 ? (double)in->s->lookups / in->elapsed_s : 0;
}

static double busy_per_s(const struct lru_time_input *in)
{
	return in->elapsed_s > 0 && in->busy_ns ?
	       (double)in->busy_ns / in->elapsed_s : NAN;
}

static void text_ns(FILE *out, const char *what, double ns, uint64_t n)
{
	if (n)
		fprintf(out, "%s %.0f ns (%llu)", what, ns,
			(unsigned long long)n);
	else
		fprintf(out, "%s - (0)", what);
}

static void text_costs(FILE *out, const struct lru_time_input *in,
		       const struct lru_costs *c)
{
	fprintf(out, "lookup times: 1 lookup in %u timed per CPU", in->sample);
	if (in->period_ms)
		fprintf(out, " in windows of %g s every %g s",
			in->window_ms / 1e3, in->period_ms / 1e3);
	fprintf(out, ": %llu timed of %llu seen, %llu dropped (switched or preempted inside, unsynced, or no room for the device)\n",
		(unsigned long long)c->samples, (unsigned long long)in->seen,
		(unsigned long long)in->dropped);
	fprintf(out, "  hit by slot:");
	for (int i = 0; i < c->lru_size && i < BHSCOPE_LRU_SLOTS_MAX; i++)
		if (c->hit_n[i]) {
			char what[16];

			snprintf(what, sizeof(what), " %d", i);
			text_ns(out, what, c->hit_mean[i], c->hit_n[i]);
		}
	if (isnan(c->hit_a))
		fprintf(out, " none timed\n");
	else if (c->slope_fitted)
		fprintf(out, "; line %.0f + %.1f ns a slot\n", c->hit_a,
			c->hit_b);
	else
		fprintf(out, "; one slot timed: no slope (larger sizes scan for free in the model)\n");
	text_ns(out, "  installed miss", c->installed, c->installed_n);
	text_ns(out, ", not installed", c->not_installed, c->not_installed_n);
	text_ns(out, ", absent", c->absent, c->absent_n);
	if (c->not_installed_guessed || c->absent_guessed)
		fprintf(out, " (a kind never timed costs as an installed miss: the same number at every size, it moves no change)");
	fprintf(out, "\n");
}

/* The size that costs least, and its change against the LRU's size. */
static int best_size(const struct lru_time_point *p, int n)
{
	int best = 0;

	for (int k = 1; k < n; k++)
		if (!isnan(p[k].ns_per_lookup) &&
		    (isnan(p[best].ns_per_lookup) ||
		     p[k].ns_per_lookup < p[best].ns_per_lookup))
			best = k;
	return best;
}

static void text_verdict(FILE *out, const struct lru_time_input *in,
			 const struct lru_time_point *p, int n)
{
	int k0 = in->lru_size - 1, b = best_size(p, n);
	double d, busy = busy_per_s(in);

	if (k0 < 0 || k0 >= n || isnan(p[k0].ns_per_lookup) ||
	    isnan(p[b].ns_per_lookup)) {
		fprintf(out, "what-if in time: a cost the model needs was never timed\n");
		return;
	}
	d = (p[k0].ns_per_lookup - p[b].ns_per_lookup) * lookups_per_s(in);
	if (b == k0 || d <= 0) {
		fprintf(out, "no LRU size of 1-%d would take less lookup time than %d\n",
			n, in->lru_size);
		return;
	}
	fprintf(out, "an LRU of %d would save %.3f ms of CPU a second against %d",
		p[b].size, d / 1e6, in->lru_size);
	if (!isnan(busy) && busy > 0)
		fprintf(out, ", %.2f %% of this host's busy CPU time", 100 * d / busy);
	fprintf(out, " (%s)\n", p[b].size > in->lru_size ?
		"at most: misses at a larger size are costed with the hit line's slope, and the ghost list's hits are exact or fewer" :
		"model: hits by the line, misses by their measured times less the slots not scanned");
}

void lru_time_text(FILE *out, const struct lru_time_input *in)
{
	struct lru_time_point p[BHSCOPE_LRU_DEPTH_MAX];
	double lps = lookups_per_s(in), busy = busy_per_s(in), base;
	int n = in->n < BHSCOPE_LRU_DEPTH_MAX ? in->n : BHSCOPE_LRU_DEPTH_MAX;
	struct lru_costs c;
	char ratio[16];

	lru_costs_from(&c, in->t, in->lru_size);
	text_costs(out, in, &c);
	if (n < 1 || !lru_curve_classified(in->s))
		return;
	if (!c.samples) {
		fprintf(out, "what-if in time: no lookup timed yet%s\n",
			in->period_ms ? " (timed in windows, the first at the start: a shorter run may see none; --timing below 60 times throughout)" : "");
		return;
	}
	lru_time_curve(in->s, &c, p, n);
	base = in->lru_size >= 1 && in->lru_size <= n ?
	       p[in->lru_size - 1].ns_per_lookup : NAN;
	fprintf(out, "what-if in time: lookup CPU time at each LRU size, %.0f lookups/s\n",
		lps);
	fprintf(out, "%6s %9s %9s %10s %12s %8s\n", "SIZE", "HIT", "NS/LOOKUP",
		"CPU MS/S", "CHANGE MS/S", "OF BUSY");
	for (int k = 0; k < n; k++) {
		double ms = p[k].ns_per_lookup * lps / 1e6;
		double dms = (p[k].ns_per_lookup - base) * lps / 1e6;

		if (isnan(p[k].hit_ratio))
			snprintf(ratio, sizeof(ratio), "-");
		else
			snprintf(ratio, sizeof(ratio), "%.2f%%",
				 100 * p[k].hit_ratio);
		fprintf(out, "%5d%c %9s %9.0f %10.3f %+12.3f", p[k].size,
			p[k].size == in->lru_size ? '*' : ' ', ratio,
			p[k].ns_per_lookup, ms, dms);
		if (isnan(busy) || busy <= 0 || isnan(dms))
			fprintf(out, " %8s\n", "-");
		else
			fprintf(out, " %+7.2f%%\n", 100 * dms * 1e6 / busy);
	}
	text_verdict(out, in, p, n);
}

static struct json_object *json_class(double ns, uint64_t n)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "timed", json_object_new_int64(n));
	json_object_object_add(o, "mean_ns", n ? json_out_double(ns) : NULL);
	return o;
}

static struct json_object *json_hist(const __u64 *h)
{
	struct json_object *a = json_object_new_array();

	for (int i = 0; i < BHSCOPE_LOG2_SLOTS; i++)
		json_object_array_add(a, json_object_new_int64(h[i]));
	return a;
}

static struct json_object *json_costs(const struct lru_time_input *in,
				      const struct lru_costs *c)
{
	struct json_object *o = json_object_new_object(), *slots, *h;

	json_object_object_add(o, "every", json_object_new_int64(in->every));
	json_object_object_add(o, "sample_every", json_object_new_int64(in->sample));
	json_object_object_add(o, "window_ms", in->period_ms ?
			       json_object_new_int64(in->window_ms) : NULL);
	json_object_object_add(o, "period_ms", in->period_ms ?
			       json_object_new_int64(in->period_ms) : NULL);
	json_object_object_add(o, "seen", json_object_new_int64(in->seen));
	json_object_object_add(o, "timed", json_object_new_int64(c->samples));
	json_object_object_add(o, "dropped", json_object_new_int64(in->dropped));
	slots = json_object_new_array();
	for (int i = 0; i < c->lru_size && i < BHSCOPE_LRU_SLOTS_MAX; i++)
		json_object_array_add(slots, json_class(c->hit_mean[i],
							c->hit_n[i]));
	json_object_object_add(o, "hit_slots", slots);
	json_object_object_add(o, "hit_line_ns", isnan(c->hit_a) ? NULL :
			       json_out_double(c->hit_a));
	json_object_object_add(o, "hit_slope_ns", c->slope_fitted ?
			       json_out_double(c->hit_b) : NULL);
	json_object_object_add(o, "installed",
			       json_class(c->installed, c->installed_n));
	json_object_object_add(o, "not_installed",
			       json_class(c->not_installed, c->not_installed_n));
	json_object_object_add(o, "absent", json_class(c->absent, c->absent_n));
	/* log2 buckets of ns: bucket i holds [2^(i-1), 2^i) */
	h = json_object_new_object();
	for (int g = 0; g < LRU_NR_TIME_GROUPS; g++)
		json_object_object_add(h, lru_time_group_names[g],
				       json_hist(in->t->hist[g]));
	json_object_object_add(o, "log2_ns_hist", h);
	return o;
}

struct json_object *lru_time_json(const struct lru_time_input *in)
{
	struct lru_time_point p[BHSCOPE_LRU_DEPTH_MAX];
	int n = in->n < BHSCOPE_LRU_DEPTH_MAX ? in->n : BHSCOPE_LRU_DEPTH_MAX;
	struct json_object *o, *sizes, *ns, *ms, *share;
	double lps = lookups_per_s(in), busy = busy_per_s(in), base = NAN;
	struct lru_costs c;

	lru_costs_from(&c, in->t, in->lru_size);
	o = json_object_new_object();
	json_object_object_add(o, "costs", json_costs(in, &c));
	if (n < 1 || !lru_curve_classified(in->s))
		return o;
	lru_time_curve(in->s, &c, p, n);
	if (in->lru_size >= 1 && in->lru_size <= n)
		base = p[in->lru_size - 1].ns_per_lookup;
	sizes = json_object_new_array();
	ns = json_object_new_array();
	ms = json_object_new_array();
	share = json_object_new_array();
	for (int k = 0; k < n; k++) {
		double d = (p[k].ns_per_lookup - base) * lps;

		json_object_array_add(sizes, json_object_new_int(p[k].size));
		json_object_array_add(ns, json_out_double(p[k].ns_per_lookup));
		json_object_array_add(ms, json_out_double(d / 1e6));
		json_object_array_add(share, isnan(busy) || busy <= 0 ? NULL :
				      json_out_double(d / busy));
	}
	json_object_object_add(o, "sizes", sizes);
	json_object_object_add(o, "ns_per_lookup", ns);
	json_object_object_add(o, "change_ms_per_s", ms);
	json_object_object_add(o, "change_busy_share", share);
	json_object_object_add(o, "busy_cpu_s_per_s", isnan(busy) ? NULL :
			       json_out_double(busy / 1e9));
	return o;
}
