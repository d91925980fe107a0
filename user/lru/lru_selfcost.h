/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --self-cost: what the probes cost, from the kernel's own BPF statistics
 * (run_time_ns and run_cnt per program, counted while BPF_STATS_RUN_TIME
 * is enabled, which this module does for the run).
 */
#ifndef BHSCOPE_LRU_SELFCOST_H
#define BHSCOPE_LRU_SELFCOST_H

#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>

struct lru_session;

#define LRU_SELFCOST_MAX_PROGS	10

struct lru_prog_cost {
	char what[96];		/* what the program is attached to */
	char name[64];		/* the BPF program's name */
	uint64_t run_cnt;
	uint64_t run_time_ns;
	uint64_t misses;	/* runs the kernel skipped (recursion) */
	int per_lookup;		/* runs once per lookup */
	int lookup_exit;	/* the lookup's exit: its runs count lookups */
};

struct lru_selfcost {
	int stats_fd;		/* keeps the statistics on; -1 when off */
	int nr;
	struct lru_prog_cost prog[LRU_SELFCOST_MAX_PROGS];
};

/* Turns the kernel's BPF run-time statistics on. 0 or a negative errno. */
int lru_selfcost_enable(struct lru_selfcost *c);

/* Reads every attached program's figures since it was loaded. */
int lru_selfcost_read(struct lru_selfcost *c, const struct lru_session *s);

/*
 * ns of BPF per lookup: the per-lookup programs' run time over the exit
 * programs' run count; a negative value when nothing ran.
 */
double lru_selfcost_per_lookup(const struct lru_selfcost *c);

void lru_selfcost_print(FILE *out, const struct lru_selfcost *c);
struct json_object *lru_selfcost_json(const struct lru_selfcost *c);

void lru_selfcost_disable(struct lru_selfcost *c);

#endif /* BHSCOPE_LRU_SELFCOST_H */
