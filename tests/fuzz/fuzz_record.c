// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the record reader and everything that reads a record.
 * An input is a record file; one that record_read_parse() accepts is compared
 * with itself and printed in every format, and the chart is drawn.
 * Oracles beyond the sanitizers: JSON output holds no NaN or Infinity,
 * the chart no nan or inf, the text no escape character.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyse/chart_svg.h"
#include "analyse/compare_model.h"
#include "analyse/compare_print.h"
#include "lib/json_out.h"
#include "record/record_read.h"

static void require(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_record: %s\n", what);
		abort();
	}
}

/* NaN or Infinity as a value, outside strings: not JSON. */
static int json_has_non_number(const char *s)
{
	for (; *s; s++) {
		if (*s == '"') {
			for (s++; *s && *s != '"'; s++)
				if (*s == '\\' && s[1])
					s++;
			if (!*s)
				return 0;
		} else if (!strncmp(s, "NaN", 3) || !strncmp(s, "Infinity", 8)) {
			return 1;
		}
	}
	return 0;
}

/*
 * A number the SVG printed as nan or inf: an attribute's value (always a
 * number), or a text that is one number (an axis tick, "%g" and an
 * optional "%"; a bar's label). Other texts are names from the record: a
 * phase may be called "-infte".
 */
static int svg_has_non_number(const char *s)
{
	static const char *const bad[] = { "nan", "-nan", "inf", "-inf" };
	char attr[16];

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		snprintf(attr, sizeof(attr), "=\"%s", bad[i]);
		if (strstr(s, attr))
			return 1;
	}
	for (const char *t = strchr(s, '>'); t; t = strchr(t + 1, '>')) {
		const char *v = t + 1 + (t[1] == '-');

		if (strncmp(v, "nan", 3) && strncmp(v, "inf", 3))
			continue;
		v += 3;
		if (*v == '%')
			v++;
		if (*v == '<')
			return 1;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* compare_model_free() frees recs: as compare_model_load() makes it. */
	struct cmp_record *recs = calloc(2, sizeof(*recs));
	struct cmp_table t = { .recs = recs, .nr_recs = 2 };
	char err[1024], *out = NULL, *text = NULL;
	size_t len = 0, text_len = 0;
	FILE *f;

	require(recs != NULL, "memory");
	recs[0].path = "a.json";
	recs[1].path = "b\x1b.json";	/* a file name is text from outside too */
	if (record_read_parse((const char *)data, size, &recs[0].root, err, sizeof(err))) {
		/* It may quote the file: printed through term_safe_error(). */
		require(err[0] != '\0', "a refusal says why");
		free(recs);
		return 0;
	}
	recs[1].root = json_object_get(recs[0].root);
	if (compare_model_build(&t, err, sizeof(err))) {
		compare_model_free(&t);
		return 0;
	}
	f = open_memstream(&out, &len);
	json_out_print(f, compare_print_json(&t), JSON_OUT_PRETTY);
	fclose(f);
	require(!json_has_non_number(out), "compare -j without NaN or Infinity");
	free(out);
	out = NULL;
	f = open_memstream(&out, &len);
	chart_svg_write(f, &t);
	fclose(f);
	require(!svg_has_non_number(out), "a chart without nan or inf");
	f = open_memstream(&text, &text_len);
	compare_print_text(f, &t);
	compare_print_markdown(f, &t);
	compare_print_csv(f, &t);
	fclose(f);
	require(!memchr(text, '\x1b', text_len), "text without ESC");
	free(out);
	free(text);
	compare_model_free(&t);
	return 0;
}
