/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tunables in force for a run: the buffer-head LRU size and the jbd2
 * batch times, from bhtune.ko when it is loaded, else from the target
 * filesystem (ext4 options) and the kernel's defaults, each with its source.
 */
#ifndef BHSCOPE_RECORD_TUNABLES_H
#define BHSCOPE_RECORD_TUNABLES_H

#include <json-c/json.h>
#include <stdbool.h>

#include "record/record_target.h"


struct record_tunables {
	long lru_size;
	const char *lru_size_from;	/* "bhtune" or "kernel-default" */
	long min_batch_us, max_batch_us;
	const char *batch_from;		/* "bhtune", "ext4-options",
					   "mount-options" or "default" */
	bool bhtune;			/* the module is loaded */
	long bhtune_min_us, bhtune_max_us; /* -1: the fs's own; or ABSENT */
};

/* What bhtune_param_read returns for a parameter that is not there. */
#define BHTUNE_ABSENT	(-1000000000L)

/*
 * Reads a numeric bhtune parameter (batch times may be -1: "each
 * filesystem's own"); BHTUNE_ABSENT when absent or unreadable.
 */
long bhtune_param_read(const char *name);

/* Fills t for the target (which may be NULL: no filesystem known). */
void record_tunables_read(const struct record_target *target,
			  struct record_tunables *t);

struct json_object *record_tunables_json(const struct record_tunables *t);

#endif /* BHSCOPE_RECORD_TUNABLES_H */
