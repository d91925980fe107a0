// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "record/record_schema.h"
#include "record/record_tunables.h"

/*
 * ext4 lists every option, defaults included, in /proc/fs/ext4/<dev>/
 * options; other filesystems may name batch times among the mount's.
 */
static void batch_from_fs(const struct record_target *target,
			  struct journal_tunables *j)
{
	tunables_journal_parse(NULL, j);
	if (!target)
		return;
	if (target->device[0] && !strcmp(target->fstype, "ext4") &&
	    tunables_journal_read(target->device, j))
		return;
	tunables_journal_parse(target->super_options, j);
	j->from = TUNABLES_MOUNT_OPTIONS;
}

void record_tunables_read(const struct record_target *target,
			  struct journal_tunables *j, struct bhtune_params *b)
{
	char numbers[32] = "";

	memset(j, 0, sizeof(*j));
	tunables_bhtune_read(b);
	batch_from_fs(target, j);
	if (target)
		snprintf(numbers, sizeof(numbers), "%u:%u", target->major,
			 target->minor);
	tunables_journal_apply_bhtune(j, b, numbers);
}

static const char *const batch_from[] = {
	[TUNABLES_DEFAULT] = "default",
	[TUNABLES_EXT4_OPTIONS] = "ext4-options",
	[TUNABLES_MOUNT_OPTIONS] = "mount-options",
	[TUNABLES_BHTUNE] = "bhtune",
};

struct json_object *record_tunables_json(const struct journal_tunables *j,
					 const struct bhtune_params *b)
{
	struct json_object *o = json_object_new_object();
	bool bhtune = b->lru_size != BHTUNE_ABSENT;

	json_object_object_add(o, "lru_size", json_object_new_int64(
		bhtune ? b->lru_size : RECORD_KERNEL_LRU_SIZE));
	json_object_object_add(o, "lru_size_from", json_object_new_string(
		bhtune ? "bhtune" : "kernel-default"));
	json_object_object_add(o, "min_batch_time_us",
			       json_object_new_int64(j->min_batch_us));
	json_object_object_add(o, "max_batch_time_us",
			       json_object_new_int64(j->max_batch_us));
	json_object_object_add(o, "batch_from",
			       json_object_new_string(batch_from[j->from]));
	json_object_object_add(o, "tunables_bhtune_loaded",
			       json_object_new_boolean(bhtune));
	if (bhtune) {
		struct json_object *t = json_object_new_object();

		json_object_object_add(t, "lru_size",
				       json_object_new_int64(b->lru_size));
		json_object_object_add(t, "batch_min_us",
				       json_object_new_int64(b->batch_min_us));
		json_object_object_add(t, "batch_max_us",
				       json_object_new_int64(b->batch_max_us));
		json_object_object_add(o, "bhtune", t);
	}
	return o;
}
