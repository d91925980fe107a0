// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/prom.h"

static const char *const type_names[] = {
	[PROM_COUNTER] = "counter",
	[PROM_GAUGE] = "gauge",
	[PROM_HISTOGRAM] = "histogram",
	[PROM_UNTYPED] = "untyped",
};

static bool buf_reserve(struct prom_buf *b, size_t more)
{
	size_t cap;
	char *data;

	if (b->oom)
		return false;
	if (b->len + more + 1 <= b->cap)
		return true;
	cap = b->cap ? b->cap : 4096;
	while (cap < b->len + more + 1)
		cap *= 2;
	data = realloc(b->data, cap);
	if (!data) {
		b->oom = true;
		return false;
	}
	b->data = data;
	b->cap = cap;
	return true;
}

static void buf_put(struct prom_buf *b, const char *s, size_t n)
{
	if (!buf_reserve(b, n))
		return;
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

static void buf_puts(struct prom_buf *b, const char *s)
{
	buf_put(b, s, strlen(s));
}

void prom_buf_reset(struct prom_buf *b)
{
	b->len = 0;
	b->oom = false;
	if (b->data)
		b->data[0] = '\0';
}

void prom_buf_free(struct prom_buf *b)
{
	free(b->data);
	*b = (struct prom_buf){};
}

void prom_buf_printf(struct prom_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !buf_reserve(b, n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, n + 1, fmt, ap);
	va_end(ap);
	b->len += n;
}

void prom_labels_add(struct prom_labels *ls, const char *name,
		     const char *value)
{
	if (ls->nr < PROM_MAX_LABELS)
		ls->l[ls->nr++] = (struct prom_label){ name, value };
}

static bool name_char(char c, bool first, bool colon)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')
		return true;
	if (c == ':')
		return colon;
	return !first && c >= '0' && c <= '9';
}

bool prom_name_valid(const char *name)
{
	if (!*name)
		return false;
	for (const char *p = name; *p; p++)
		if (!name_char(*p, p == name, true))
			return false;
	return true;
}

bool prom_label_name_valid(const char *name)
{
	if (!*name || !strncmp(name, "__", 2))
		return false;
	for (const char *p = name; *p; p++)
		if (!name_char(*p, p == name, false))
			return false;
	return true;
}

void prom_sanitize_name(char *s)
{
	for (char *p = s; *p; p++)
		if (!name_char(*p, p == s, false))
			*p = '_';
}

void prom_escape_label_value(struct prom_buf *b, const char *value)
{
	for (const char *p = value; *p; p++) {
		const char *run = p;

		while (*p && *p != '\\' && *p != '"' && *p != '\n')
			p++;
		buf_put(b, run, p - run);
		if (!*p)
			break;
		buf_puts(b, *p == '\\' ? "\\\\" : *p == '"' ? "\\\"" : "\\n");
	}
}

/* HELP text escapes only backslash and newline. */
static void escape_help(struct prom_buf *b, const char *help)
{
	for (const char *p = help; *p; p++) {
		if (*p == '\\')
			buf_puts(b, "\\\\");
		else if (*p == '\n')
			buf_puts(b, "\\n");
		else
			buf_put(b, p, 1);
	}
}

void prom_format_double(char *buf, size_t len, double v)
{
	if (isnan(v)) {
		snprintf(buf, len, "NaN");
		return;
	}
	if (isinf(v)) {
		snprintf(buf, len, v > 0 ? "+Inf" : "-Inf");
		return;
	}
	/* Whole numbers print as integers, as Go's strconv does. */
	if (v == floor(v) && fabs(v) < 1e15) {
		snprintf(buf, len, "%.0f", v);
		return;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

void prom_family(struct prom_buf *b, const char *name, enum prom_type type,
		 const char *help)
{
	buf_puts(b, "# HELP ");
	buf_puts(b, name);
	buf_puts(b, " ");
	escape_help(b, help);
	buf_puts(b, "\n# TYPE ");
	buf_puts(b, name);
	buf_puts(b, " ");
	buf_puts(b, type_names[type]);
	buf_puts(b, "\n");
}

static void put_labels(struct prom_buf *b, const struct prom_labels *ls,
		       const char *le)
{
	int nr = ls ? ls->nr : 0;

	if (!nr && !le)
		return;
	buf_puts(b, "{");
	for (int i = 0; i < nr; i++) {
		if (i)
			buf_puts(b, ",");
		buf_puts(b, ls->l[i].name);
		buf_puts(b, "=\"");
		prom_escape_label_value(b, ls->l[i].value);
		buf_puts(b, "\"");
	}
	if (le) {
		buf_puts(b, nr ? ",le=\"" : "le=\"");
		buf_puts(b, le);
		buf_puts(b, "\"");
	}
	buf_puts(b, "}");
}

static void put_sample(struct prom_buf *b, const char *name,
		       const char *suffix, const struct prom_labels *ls,
		       const char *le, const char *value)
{
	buf_puts(b, name);
	buf_puts(b, suffix);
	put_labels(b, ls, le);
	buf_puts(b, " ");
	buf_puts(b, value);
	buf_puts(b, "\n");
}

void prom_sample(struct prom_buf *b, const char *name,
		 const struct prom_labels *ls, double value)
{
	char v[32];

	prom_format_double(v, sizeof(v), value);
	put_sample(b, name, "", ls, NULL, v);
}

void prom_sample_u64(struct prom_buf *b, const char *name,
		     const struct prom_labels *ls, uint64_t value)
{
	char v[24];

	snprintf(v, sizeof(v), "%llu", (unsigned long long)value);
	put_sample(b, name, "", ls, NULL, v);
}

void prom_histogram(struct prom_buf *b, const char *name,
		    const struct prom_labels *ls, const struct prom_hist *h)
{
	uint64_t cum = 0, total = 0;
	char le[32], v[32];

	for (int i = 0; i < h->nr_slots; i++)
		total += h->slots[i];
	for (int i = 0; i < h->nr_slots && i <= h->last; i++) {
		cum += h->slots[i];
		if (i < h->first)
			continue;
		prom_format_double(le, sizeof(le), h->le[i]);
		snprintf(v, sizeof(v), "%llu", (unsigned long long)cum);
		put_sample(b, name, "_bucket", ls, le, v);
	}
	snprintf(v, sizeof(v), "%llu", (unsigned long long)total);
	put_sample(b, name, "_bucket", ls, "+Inf", v);
	prom_format_double(le, sizeof(le), h->sum);
	put_sample(b, name, "_sum", ls, NULL, le);
	put_sample(b, name, "_count", ls, NULL, v);
}

void prom_log2_le_counts(double *le, int nr, double per_base)
{
	for (int i = 0; i < nr; i++)
		le[i] = (ldexp(1.0, i) - 1.0) / per_base;
}

void prom_log2_le_truncated(double *le, int nr, double per_base)
{
	for (int i = 0; i < nr; i++)
		le[i] = ldexp(1.0, i) / per_base;
}
