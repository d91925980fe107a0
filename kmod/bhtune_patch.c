// SPDX-License-Identifier: GPL-2.0
/*
 * bhtune's livepatch: the functions it replaces, its callbacks and system
 * state, and enabling it.
 *
 * klp_enable_patch() fills in the kobjects and lists inside these
 * structures, and a call that fails has released them again, so each try
 * starts from the const templates below (bhtune_patch_fresh()).
 */
#define pr_fmt(fmt) "bhtune: " fmt

#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/livepatch.h>
#include <linux/module.h>
#include <linux/string.h>

#include "bhtune.h"
#include "bhtune_klp_state.h"

/*
 * How long to keep trying while the livepatch core answers EAGAIN (see
 * bhtune_patch_enable()), and the pause between tries.
 */
#define BHTUNE_PATCH_RETRY_SECS	10
#define BHTUNE_PATCH_RETRY_MS	20

static void bhtune_post_patch(struct klp_object *obj)
{
	bhtune_lru_takeover();
}

static void bhtune_pre_unpatch(struct klp_object *obj)
{
	bhtune_lru_release();
}

static const struct klp_func bhtune_funcs_template[] = {
#ifdef BHTUNE_HAVE_FIND_GET_BLOCK_COMMON
	/*
	 * 6.12.31+ and 6.15+: __find_get_block() and
	 * __find_get_block_nonatomic() are wrappers; the lookup, and the only
	 * caller of the LRU functions, is this static function.
	 */
	{
		.old_name = "find_get_block_common",
		.new_func = bhtune_find_get_block_common,
	},
#else
	{
		.old_name = "__find_get_block",
		.new_func = bhtune___find_get_block,
	},
#endif
	{
		.old_name = "invalidate_bh_lrus",
		.new_func = bhtune_invalidate_bh_lrus,
	},
	{
		.old_name = "invalidate_bh_lrus_cpu",
		.new_func = bhtune_invalidate_bh_lrus_cpu,
	},
	{
		.old_name = "has_bh_in_lru",
		.new_func = bhtune_has_bh_in_lru,
	},
	{ }
};
static struct klp_func bhtune_funcs[ARRAY_SIZE(bhtune_funcs_template)];

static const struct klp_object bhtune_objs_template[] = {
	{
		/* name NULL: vmlinux */
		.funcs = bhtune_funcs,
		.callbacks = {
			.post_patch = bhtune_post_patch,
			.pre_unpatch = bhtune_pre_unpatch,
		},
	},
	{ }
};
static struct klp_object bhtune_objs[ARRAY_SIZE(bhtune_objs_template)];

/* A cumulative replacement hands the LRU back through these (see the .h). */
static void bhtune_state_release(void)
{
	pr_info("a cumulative livepatch takes over\n");
	bhtune_lru_release();
}

static const struct bhtune_klp_state_data bhtune_state_data = {
	.release = bhtune_state_release,
	.takeover = bhtune_lru_takeover,
};

static struct klp_state bhtune_states[] = {
	{
		.id = BHTUNE_KLP_STATE_ID,
		.version = BHTUNE_KLP_STATE_VERSION,
		.data = (void *)&bhtune_state_data,
	},
	{ }
};

static struct klp_patch bhtune_patch;

static void bhtune_patch_fresh(void)
{
	memcpy(bhtune_funcs, bhtune_funcs_template, sizeof(bhtune_funcs));
	memcpy(bhtune_objs, bhtune_objs_template, sizeof(bhtune_objs));
	bhtune_patch = (struct klp_patch){
		.mod = THIS_MODULE,
		.objs = bhtune_objs,
		.states = bhtune_states,
	};
}

/*
 * The livepatch core answers EAGAIN while a BPF program is being attached
 * to or detached from a function this patch replaces: ftrace asks the
 * function's BPF trampoline to make room for the patch, and the trampoline
 * only trylocks its mutex for that (bpf_tramp_ftrace_ops_func(),
 * kernel/bpf/trampoline.c), so a tracer opening or closing a window on the
 * lookup (bhscope serve --lru-duty) makes the load fail. The kernel means
 * it as "try again", as kpatch's loader does; each failed try logs the
 * livepatch core's three lines and then bhtune's "trying again".
 */
int bhtune_patch_enable(void)
{
	unsigned long give_up = jiffies + BHTUNE_PATCH_RETRY_SECS * HZ;
	unsigned int try;
	int ret;

	for (try = 1;; try++) {
		bhtune_patch_fresh();
		ret = klp_enable_patch(&bhtune_patch);
		if (ret != -EAGAIN || time_after(jiffies, give_up))
			break;
		pr_info("try %u: the livepatch core answered EAGAIN (a BPF program on a function to patch is being attached or detached): trying again\n",
			try);
		msleep(BHTUNE_PATCH_RETRY_MS);
	}
	if (ret == -EAGAIN)
		pr_err("the livepatch core answered EAGAIN for %d s (%u tries): a BPF program on a function to patch kept being attached or detached\n",
		       BHTUNE_PATCH_RETRY_SECS, try);
	else if (!ret && try > 1)
		pr_info("patch enabled at try %u\n", try);
	return ret;
}
