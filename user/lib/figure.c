// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "lib/figure.h"
#include "lib/json_out.h"

void figure_json_put(struct json_object *o, const char *key,
		     struct json_object *v)
{
	const char *dot = strchr(key, '.');
	struct json_object *group;
	char name[64];

	if (!dot) {
		json_object_object_add(o, key, v);
		return;
	}
	snprintf(name, sizeof(name), "%.*s", (int)(dot - key), key);
	if (!json_object_object_get_ex(o, name, &group)) {
		group = v ? json_object_new_object() : NULL;
		json_object_object_add(o, name, group);
	}
	if (group)
		figure_json_put(group, dot + 1, v);
	else
		json_object_put(v);
}

double figure_seconds(double v, enum figure_time t, int hz)
{
	switch (t) {
	case FIGURE_TIME_JIFFIES:
		return hz > 0 ? v / hz : 0;
	case FIGURE_TIME_NS:
		return v / 1e9;
	case FIGURE_TIME_US:
		return v / 1e6;
	default:
		return v;
	}
}

struct json_object *figure_json_number(const struct figure *f, double v)
{
	switch (f->kind) {
	case FIGURE_COUNT:
		return json_object_new_uint64((uint64_t)v);
	case FIGURE_FLAG:
		return json_object_new_boolean(v != 0);
	default:
		return json_out_double(v);
	}
}

/* Words of a name, split at '_' and '.'. Returns how many. */
static int words(const char *s, char w[][32], int max)
{
	int n = 0;

	while (*s && n < max) {
		size_t len = strcspn(s, "_.");

		snprintf(w[n++], sizeof(w[0]), "%.*s", (int)len, s);
		s += len + (s[len] != '\0');
	}
	return n;
}

static bool is_unit(const char *w)
{
	static const char *const units[] = { "jiffies", "ns", "us", "ms",
					     "seconds", "hist", "total" };

	for (size_t i = 0; i < sizeof(units) / sizeof(*units); i++)
		if (!strcmp(w, units[i]))
			return true;
	return false;
}

/* The same word, but for a plural's s. */
static bool same_word(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (la == lb + 1 && a[la - 1] == 's')
		la--;
	else if (lb == la + 1 && b[lb - 1] == 's')
		lb--;
	return la == lb && !strncmp(a, b, la);
}

static bool has_word(char w[][32], int n, const char *word)
{
	for (int i = 0; i < n; i++)
		if (same_word(w[i], word))
			return true;
	return false;
}

bool figure_names_agree(const char *tracer, const struct figure *f)
{
	char jw[16][32], pw[16][32], prefix[32];
	int nj, np, extra = 0;

	if (!f->json || !f->prom)
		return true;
	snprintf(prefix, sizeof(prefix), "bhscope_%s_", tracer);
	if (strncmp(f->prom, prefix, strlen(prefix)))
		return false;
	/* one series of a labelled family: the label says the key ("a.b": b) */
	if (f->prom_label) {
		const char *dot = strrchr(f->json, '.');

		return !strcmp(f->prom_value, dot ? dot + 1 : f->json);
	}
	nj = words(f->json, jw, 16);
	np = words(f->prom + strlen(prefix), pw, 16);
	for (int i = 0; i < nj; i++)
		if (strcmp(jw[i], "per") && !is_unit(jw[i]) &&
		    !has_word(pw, np, jw[i]))
			return false;
	for (int i = 0; i < np; i++)
		if (!is_unit(pw[i]) && !has_word(jw, nj, pw[i]))
			extra++;
	return extra <= 1;
}

const struct figure *figure_find(const struct figure_table *t,
				 const char *json)
{
	for (size_t i = 0; i < t->nr; i++)
		if (t->rows[i].json && !strcmp(t->rows[i].json, json))
			return &t->rows[i];
	return NULL;
}

void figure_path(const char *pattern, long index, char *buf, size_t len)
{
	const char *star = strchr(pattern, '*');

	if (!star)
		snprintf(buf, len, "%s", pattern);
	else
		snprintf(buf, len, "%.*s%ld%s", (int)(star - pattern), pattern,
			 index, star + 1);
}
