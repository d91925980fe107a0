// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lib/json_out.h"
#include "lib/clock.h"
#include "lib/g6_text.h"
#include "lib/stdout_check.h"

struct json_object *json_out_new(const char *schema)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "schema", json_object_new_string(schema));
	return o;
}

void json_out_utc_now(char *buf, size_t len)
{
	clock_now_text(buf, len, "%Y-%m-%dT%H:%M:%SZ", true);
}

struct json_object *json_out_envelope(const char *schema)
{
	struct json_object *o = json_out_new(schema);
	char when[32];

	json_out_utc_now(when, sizeof(when));
	json_object_object_add(o, "time", json_object_new_string(when));
	return o;
}

struct json_object *json_out_double(double v)
{
	double a = fabs(v);
	char text[64];

	if (!isfinite(v))
		return NULL;
	if (a < 1e6)
		g6_text(v, text, sizeof(text));	/* "%.6g" */
	else if (a < 1e15)
		snprintf(text, sizeof(text), "%.0f", v);	/* every digit */
	else
		snprintf(text, sizeof(text), "%.15g", v);
	return json_object_new_double_s(v, text);
}

/* The end of a print: flushed, a write error noted for stdout. */
static int printed(FILE *out)
{
	int ret = fflush(out) || ferror(out) ? -1 : 0;

	if (ret && out == stdout)
		stdout_check_note(errno);
	return ret;
}

int json_out_print_array_member(FILE *out, struct json_object *o,
				const char *key,
				struct json_object *(*next)(void *arg),
				void *arg)
{
	const int flags = JSON_C_TO_STRING_NOSLASHESCAPE | JSON_C_TO_STRING_PLAIN;
	const char *text = json_object_to_json_string_ext(o, flags);
	size_t len = strlen(text);
	struct json_object *e;
	bool first = true;

	/* "{...}" without its "}", then the member, element by element */
	fprintf(out, "%.*s%s\"%s\":[", (int)len - 1, text, len > 2 ? "," : "",
		key);
	json_object_put(o);
	while ((e = next(arg))) {
		fprintf(out, "%s%s", first ? "" : ",",
			json_object_to_json_string_ext(e, flags));
		json_object_put(e);
		first = false;
		if (ferror(out))
			break;
	}
	fputs("]}\n", out);
	return printed(out);
}

int json_out_print(FILE *out, struct json_object *o, enum json_out_style s)
{
	int flags = JSON_C_TO_STRING_NOSLASHESCAPE |
		    (s == JSON_OUT_PRETTY ? JSON_C_TO_STRING_PRETTY :
					    JSON_C_TO_STRING_PLAIN);
	int ret;

	fprintf(out, "%s\n", json_object_to_json_string_ext(o, flags));
	ret = printed(out);
	json_object_put(o);
	return ret;
}
