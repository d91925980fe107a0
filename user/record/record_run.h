/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Recording: run a workload N times under the tracers and write one
 * bhscope.record file. Shared by `bhscope record` and `bhscope sweep`.
 */
#ifndef BHSCOPE_RECORD_RUN_H
#define BHSCOPE_RECORD_RUN_H

#include <json-c/json.h>
#include <stdbool.h>

struct record_opts {
	const char *out;	/* -o FILE */
	const char *label;	/* --label, NULL = none */
	const char *dir;	/* --dir, NULL = from the workload's arguments */
	bool jbd2;
	bool lru;
	int whatif;
	int repeats;		/* -r, >= 1 */
	bool bench;		/* argv is bhbench's arguments */
	bool quiet;		/* no progress lines, no workload echo */
	struct json_object *sweep; /* the sweep cell, kept as "sweep", or NULL */
	char **argv;		/* the workload, NULL-terminated */
	int argc;
};

/*
 * Runs and writes the record. Returns 0 when every run succeeded and the
 * record was written; 1 after one-line errors otherwise (a failed workload
 * still gets its record, saying so).
 */
int record_run(const struct record_opts *o);

#endif /* BHSCOPE_RECORD_RUN_H */
