// SPDX-License-Identifier: GPL-2.0
#include <json-c/json.h>
#include <math.h>

#include "lib/json_out.h"
#include "record/record_per_op.h"

/* o's member key, if it is of type t; else NULL. */
static struct json_object *member(struct json_object *o, const char *key,
				  enum json_type t)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, t))
		return NULL;
	return v;
}

/* The operations of every phase of a bhbench result; 0 if none. */
static double result_ops(struct json_object *run)
{
	struct json_object *phases =
		member(member(run, "result", json_type_object), "phases",
		       json_type_object);
	double ops = 0;

	if (!phases)
		return 0;
	json_object_object_foreach(phases, name, ph) {
		struct json_object *n = member(ph, "ops", json_type_int);

		(void)name;
		if (n)
			ops += (double)json_object_get_int64(n);
	}
	return ops;
}

/* A number of arr, or NAN (null, or not a number). */
static double num_at(struct json_object *arr, size_t i)
{
	struct json_object *v = json_object_array_get_idx(arr, i);

	if (!v || !(json_object_is_type(v, json_type_double) ||
		    json_object_is_type(v, json_type_int)))
		return NAN;
	return json_object_get_double(v);
}

void record_per_op_add(struct json_object *run)
{
	struct json_object *lru = member(run, "lru", json_type_object);
	struct json_object *t = member(lru, "lookup_time", json_type_object);
	struct json_object *sizes = member(t, "sizes", json_type_array);
	struct json_object *ns = member(t, "ns_per_lookup", json_type_array);
	struct json_object *lookups = member(member(lru, "total",
						    json_type_object),
					     "lookups", json_type_int);
	struct json_object *size = member(lru, "lru_size", json_type_int);
	struct json_object *per_op, *change;
	double ops = result_ops(run), n, base = NAN;
	size_t len;

	if (!sizes || !ns || !lookups || ops <= 0)
		return;
	len = json_object_array_length(ns);
	if (json_object_array_length(sizes) != len)
		return;
	n = (double)json_object_get_int64(lookups);
	for (size_t k = 0; size && k < len; k++)
		if (num_at(sizes, k) == json_object_get_int(size))
			base = num_at(ns, k) * n / ops;
	per_op = json_object_new_array();
	change = json_object_new_array();
	for (size_t k = 0; k < len; k++) {
		double v = num_at(ns, k) * n / ops;

		json_object_array_add(per_op, isnan(v) ? NULL :
				      json_out_double(v));
		json_object_array_add(change, isnan(v) || isnan(base) ? NULL :
				      json_out_double(v - base));
	}
	json_object_object_add(t, "ops", json_out_double(ops));
	json_object_object_add(t, "ns_per_op", per_op);
	json_object_object_add(t, "change_ns_per_op", change);
}
