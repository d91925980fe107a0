// SPDX-License-Identifier: GPL-2.0
/* --self-cost figures, as text and JSON, from plain struct lru_selfcost. */
#include <stdio.h>

#include "lib/json_out.h"
#include "lru/lru_selfcost.h"

double lru_selfcost_per_lookup(const struct lru_selfcost *c)
{
	uint64_t ns = 0, runs = 0;

	for (int i = 0; i < c->nr; i++) {
		if (!c->prog[i].per_lookup)
			continue;
		ns += c->prog[i].run_time_ns;
		/* one exit per lookup, whichever function it returns from */
		if (c->prog[i].lookup_exit)
			runs += c->prog[i].run_cnt;
	}
	return runs ? (double)ns / (double)runs : -1;
}

static double ns_per_run(const struct lru_prog_cost *p)
{
	return p->run_cnt ? (double)p->run_time_ns / (double)p->run_cnt : 0;
}

void lru_selfcost_print(FILE *out, const struct lru_selfcost *c)
{
	double per_lookup = lru_selfcost_per_lookup(c);

	fprintf(out, "self-cost since start (kernel BPF stats):\n");
	fprintf(out, "  %-40s %12s %10s\n", "PROGRAM", "RUNS", "NS/RUN");
	for (int i = 0; i < c->nr; i++)
		fprintf(out, "  %-40s %12llu %10.1f\n", c->prog[i].what,
			(unsigned long long)c->prog[i].run_cnt,
			ns_per_run(&c->prog[i]));
	if (per_lookup >= 0)
		fprintf(out, "  %-40s %12s %10.1f\n", "per lookup (all of its probes)",
			"", per_lookup);
}

struct json_object *lru_selfcost_json(const struct lru_selfcost *c)
{
	struct json_object *o = json_object_new_object();
	struct json_object *progs = json_object_new_array();
	double per_lookup = lru_selfcost_per_lookup(c);

	for (int i = 0; i < c->nr; i++) {
		struct json_object *p = json_object_new_object();

		json_object_object_add(p, "hook",
				       json_object_new_string(c->prog[i].what));
		json_object_object_add(p, "program",
				       json_object_new_string(c->prog[i].name));
		json_object_object_add(p, "run_cnt",
				       json_object_new_uint64(c->prog[i].run_cnt));
		json_object_object_add(p, "run_time_ns",
				       json_object_new_uint64(c->prog[i].run_time_ns));
		json_object_object_add(p, "ns_per_run",
				       json_out_double(ns_per_run(&c->prog[i])));
		json_object_object_add(p, "recursion_misses",
				       json_object_new_uint64(c->prog[i].misses));
		json_object_array_add(progs, p);
	}
	json_object_object_add(o, "programs", progs);
	json_object_object_add(o, "ns_per_lookup", per_lookup >= 0 ?
			       json_out_double(per_lookup) : NULL);
	return o;
}
