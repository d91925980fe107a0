// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/record_schema.h"
#include "record/record_tunables.h"
#include "lib/tunables.h"

long bhtune_param_read(const char *name)
{
	long v;

	return bhtune_param_get(name, &v) ? BHTUNE_ABSENT : v;
}

/* /proc/fs/ext4/<dev>/options holds every option, defaults included. */
static char *ext4_options(const char *device)
{
	char path[256], *buf;
	size_t len;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/fs/ext4/%s/options", device);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	buf = calloc(1, 8192);
	if (buf) {
		len = fread(buf, 1, 8191, f);
		buf[len] = '\0';
	}
	fclose(f);
	return buf;
}

static void batch_from_fs(const struct record_target *target,
			  struct record_tunables *t)
{
	char *opts = NULL;
	long min, max;

	t->min_batch_us = RECORD_EXT4_MIN_BATCH_US;
	t->max_batch_us = RECORD_EXT4_MAX_BATCH_US;
	t->batch_from = "default";
	if (!target)
		return;
	if (target->device[0] && !strcmp(target->fstype, "ext4"))
		opts = ext4_options(target->device);
	if (opts) {
		t->batch_from = "ext4-options";
	} else {
		opts = strdup(target->super_options);
		if (!opts)
			return;
		t->batch_from = "mount-options";
	}
	min = options_value(opts, "min_batch_time");
	max = options_value(opts, "max_batch_time");
	if (min >= 0)
		t->min_batch_us = min;
	if (max >= 0)
		t->max_batch_us = max;
	free(opts);
}

void record_tunables_read(const struct record_target *target,
			  struct record_tunables *t)
{
	long lru = bhtune_param_read("lru_size");

	memset(t, 0, sizeof(*t));
	t->bhtune = lru != BHTUNE_ABSENT;
	t->lru_size = t->bhtune ? lru : RECORD_KERNEL_LRU_SIZE;
	t->lru_size_from = t->bhtune ? "bhtune" : "kernel-default";
	t->bhtune_min_us = bhtune_param_read("batch_min_us");
	t->bhtune_max_us = bhtune_param_read("batch_max_us");
	batch_from_fs(target, t);
	/* bhtune's -1 means "each filesystem's own" (bhtune_main.c). */
	if (t->bhtune_min_us >= 0) {
		t->min_batch_us = t->bhtune_min_us;
		t->batch_from = "bhtune";
	}
	if (t->bhtune_max_us >= 0) {
		t->max_batch_us = t->bhtune_max_us;
		t->batch_from = "bhtune";
	}
}

struct json_object *record_tunables_json(const struct record_tunables *t)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "lru_size", json_object_new_int64(t->lru_size));
	json_object_object_add(o, "lru_size_from",
			       json_object_new_string(t->lru_size_from));
	json_object_object_add(o, "min_batch_time_us",
			       json_object_new_int64(t->min_batch_us));
	json_object_object_add(o, "max_batch_time_us",
			       json_object_new_int64(t->max_batch_us));
	json_object_object_add(o, "batch_from",
			       json_object_new_string(t->batch_from));
	json_object_object_add(o, "bhtune_loaded",
			       json_object_new_boolean(t->bhtune));
	if (t->bhtune) {
		struct json_object *b = json_object_new_object();

		json_object_object_add(b, "lru_size",
				       json_object_new_int64(t->lru_size));
		json_object_object_add(b, "batch_min_us",
				       json_object_new_int64(t->bhtune_min_us));
		json_object_object_add(b, "batch_max_us",
				       json_object_new_int64(t->bhtune_max_us));
		json_object_object_add(o, "bhtune", b);
	}
	return o;
}
