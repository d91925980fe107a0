/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tunables in force for a run, as its record says them: the
 * buffer-head LRU size and the jbd2 batch times, from bhtune.ko when it is
 * loaded, else from the target filesystem (ext4 options, mount options)
 * and the kernel's defaults, each with its source. lib/tunables reads them.
 */
#ifndef BHSCOPE_RECORD_TUNABLES_H
#define BHSCOPE_RECORD_TUNABLES_H

#include <json-c/json.h>

#include "lib/tunables.h"
#include "record/record_target.h"

/*
 * The target's batch times (target may be NULL: no filesystem known),
 * bhtune's applied over them where they reach the target (batch_dev empty
 * or naming it), and bhtune's parameters.
 */
void record_tunables_read(const struct record_target *target,
			  struct journal_tunables *j, struct bhtune_params *b);

/* The record's "tunables" object. */
struct json_object *record_tunables_json(const struct journal_tunables *j,
					 const struct bhtune_params *b);

#endif /* BHSCOPE_RECORD_TUNABLES_H */
