// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON envelope both workloads share:
 *   {"bhbench_schema":1,"workload":...,"params":{...},
 *    "phases"|"results":{...},"ok":true|false[,"error":"..."]}
 */
#include "bhbench.h"

#include <stdio.h>

struct json_object *report_new(const char *workload,
			       struct json_object *params)
{
	struct json_object *root = json_object_new_object();

	json_object_object_add(root, "bhbench_schema",
			       json_object_new_int(BHBENCH_SCHEMA));
	json_object_object_add(root, "workload",
			       json_object_new_string(workload));
	json_object_object_add(root, "params", params);
	return root;
}

void report_finish(struct json_object *root, bool print, const char *error)
{
	json_object_object_add(root, "ok", json_object_new_boolean(!error));
	if (error)
		json_object_object_add(root, "error",
				       json_object_new_string(error));
	if (print) {
		puts(json_object_to_json_string_ext(root,
				JSON_C_TO_STRING_PLAIN |
				JSON_C_TO_STRING_NOSLASHESCAPE));
		fflush(stdout);
	}
	json_object_put(root);
}

/*
 * json-c prints doubles with 17 significant digits; readers want
 * "1234.5", so keep our own rendering next to the value.
 */
struct json_object *json_fixed(double v, int decimals)
{
	char s[64];

	snprintf(s, sizeof(s), "%.*f", decimals, v);
	return json_object_new_double_s(v, s);
}

double per_sec(uint64_t ops, uint64_t ns)
{
	return ns ? (double)ops * 1e9 / (double)ns : 0.0;
}
