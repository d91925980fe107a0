// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json_out.h"
#include "record/record_fsmark.h"

int record_fsmark_is(const char *argv0)
{
	const char *base = strrchr(argv0, '/');

	return !strcmp(base ? base + 1 : argv0, "fs_mark");
}

static struct json_object *row_json(double use, double count, double size,
				    double fps, double overhead)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "fs_use_pct", json_out_double(use));
	json_object_object_add(o, "count", json_object_new_int64((int64_t)count));
	json_object_object_add(o, "size", json_object_new_int64((int64_t)size));
	json_object_object_add(o, "files_per_sec", json_out_double(fps));
	json_object_object_add(o, "app_overhead_us",
			       json_object_new_int64((int64_t)overhead));
	return o;
}

struct json_object *record_fsmark_parse(const char *out)
{
	struct json_object *res, *rows;
	const char *p = out ? strstr(out, "Files/sec") : NULL;
	double sum = 0;
	int n = 0;

	if (!p || !(p = strchr(p, '\n')))
		return NULL;
	rows = json_object_new_array();
	for (p++; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
		double use, count, size, fps, overhead;

		if (sscanf(p, "%lf %lf %lf %lf %lf", &use, &count, &size, &fps,
			   &overhead) != 5)
			continue;	/* fs_mark interleaves comments */
		json_object_array_add(rows, row_json(use, count, size, fps,
						     overhead));
		sum += fps;
		n++;
	}
	if (!n) {
		json_object_put(rows);
		return NULL;
	}
	res = json_object_new_object();
	json_object_object_add(res, "files_per_sec",
			       json_out_double(sum / n));
	json_object_object_add(res, "rows", rows);
	return res;
}
