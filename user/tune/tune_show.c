// SPDX-License-Identifier: GPL-2.0
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/errmsg.h"
#include "lib/json_out.h"
#include "lib/tunables.h"
#include "tune/tune_show.h"

/* bhtune's batch times over what the filesystem set, and from where. */
static const char *effective(const struct bhtune_params *b,
			     struct journal_tunables *j)
{
	char nums[32];

	tunables_dev_numbers(j->dev, nums, sizeof(nums));
	if (tunables_journal_apply_bhtune(j, b, nums))
		return "bhtune";
	return j->from == TUNABLES_EXT4_OPTIONS ? "ext4" : "jbd2 default";
}

/* A parameter as tune shows it: -1 when unreadable. */
static long shown(long v)
{
	return v == BHTUNE_ABSENT ? -1 : v;
}

int tune_show(const char *dev, int slots, const char *slots_why, bool json,
	      bool pretty)
{
	struct journal_tunables *js;
	struct bhtune_params b;
	const char *why = tunables_bhtune_unavailable();
	int n;

	tunables_bhtune_read(&b);
	n = tunables_journals_list(&js);
	if (n < 0) {
		errmsg("cannot list /proc/fs/jbd2: %s",
		       strerror(-n));
		return 1;
	}
	if (json) {
		struct json_object *root = json_out_new("bhscope.tune/1"), *arr, *jo,
				   *bo = json_object_new_object();

		json_object_object_add(bo, "loaded", json_object_new_boolean(b.loaded));
		if (!b.loaded && why)
			json_object_object_add(bo, "unavailable", json_object_new_string(why));
		if (b.loaded) {
			json_object_object_add(bo, "lru_size", json_object_new_int64(shown(b.lru_size)));
			json_object_object_add(bo, "batch_min_us", json_object_new_int64(shown(b.batch_min_us)));
			json_object_object_add(bo, "batch_max_us", json_object_new_int64(shown(b.batch_max_us)));
			json_object_object_add(bo, "batch_dev", json_object_new_string(b.batch_dev));
		}
		json_object_object_add(root, "bhtune", bo);
		jo = json_object_new_object();
		json_object_object_add(jo, "value", b.loaded ? json_object_new_int64(shown(b.lru_size)) :
				       slots > 0 ? json_object_new_int(slots) : NULL);
		json_object_object_add(jo, "from", json_object_new_string(b.loaded ? "bhtune" : "kernel"));
		json_object_object_add(root, "lru_size", jo);
		arr = json_object_new_array();
		for (int i = 0; i < n; i++) {
			const char *from = effective(&b, &js[i]);

			if (dev && strcmp(dev, js[i].dev))
				continue;
			jo = json_object_new_object();
			json_object_object_add(jo, "device", json_object_new_string(js[i].dev));
			json_object_object_add(jo, "mount", json_object_new_string(js[i].mnt));
			json_object_object_add(jo, "min_batch_us", json_object_new_int64(js[i].min_batch_us));
			json_object_object_add(jo, "max_batch_us", json_object_new_int64(js[i].max_batch_us));
			json_object_object_add(jo, "from", json_object_new_string(from));
			json_object_array_add(arr, jo);
		}
		json_object_object_add(root, "journals", arr);
		free(js);
		/* A write error: main's stdout check says why. */
		return json_out_print(stdout, root, pretty ? JSON_OUT_PRETTY :
							       JSON_OUT_LINE) ? 1 : 0;
	}

	if (b.loaded)
		printf("bhtune.ko: loaded; batch_min_us %ld, batch_max_us %ld (-1: each filesystem's own), batch_dev %s\n",
		       shown(b.batch_min_us), shown(b.batch_max_us),
		       b.batch_dev[0] ? b.batch_dev : "all");
	else
		printf("bhtune.ko: not loaded%s%s\n", why ? ": " : "",
		       why ? why : " (insmod kmod/bhtune.ko to tune the LRU size)");
	if (b.loaded)
		printf("lru_size: %ld (bhtune's per-CPU LRU)\n", shown(b.lru_size));
	else if (slots > 0)
		printf("lru_size: %d (the kernel's BH_LRU_SIZE, fixed at build time)\n", slots);
	else
		printf("lru_size: unknown (%s)\n", slots_why);
	printf("%-12s %-32s %12s %12s  %s\n", "journal of", "mounted on",
	       "min_batch_us", "max_batch_us", "from");
	for (int i = 0; i < n; i++) {
		const char *from = effective(&b, &js[i]);

		if (dev && strcmp(dev, js[i].dev))
			continue;
		printf("%-12s %-32s %12ld %12ld  %s\n", js[i].dev,
		       js[i].mnt[0] ? js[i].mnt : "-", js[i].min_batch_us,
		       js[i].max_batch_us, from);
	}
	if (!n)
		printf("(no jbd2 journal is in use)\n");
	free(js);
	return 0;
}
