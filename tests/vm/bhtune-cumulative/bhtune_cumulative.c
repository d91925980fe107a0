// SPDX-License-Identifier: GPL-2.0
/*
 * bhtune_cumulative.ko: a small cumulative livepatch (replace = true) for
 * 69-bhtune-replaced-by-cumulative-livepatch.  While it is in force,
 * /proc/cmdline reads "bhtune_cumulative".  It also replaces pause(2)
 * with an identical copy, so that a task sleeping in pause() holds its
 * patching transition open (livepatch sends it a fake signal only after
 * 15 s): the test reverses that transition half-way.
 *
 * take_over=0: it does not declare bhtune's system state, so livepatch
 * must refuse it while bhtune is loaded.  take_over=1: it declares the
 * state and takes bhtune's LRU over as kmod/bhtune_klp_state.h says.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/livepatch.h>
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>

#include "bhtune_klp_state.h"

static bool take_over;
module_param(take_over, bool, 0444);
MODULE_PARM_DESC(take_over, "declare bhtune's state and take its LRU over");

static int cumulative_cmdline_proc_show(struct seq_file *m, void *v)
{
	seq_puts(m, "bhtune_cumulative\n");
	return 0;
}

/* kernel/signal.c's pause(2), the same in 6.1 and 6.12 */
static asmlinkage long cumulative_sys_pause(const struct pt_regs *regs)
{
	while (!signal_pending(current)) {
		__set_current_state(TASK_INTERRUPTIBLE);
		schedule();
	}
	return -ERESTARTNOHAND;
}

static const struct bhtune_klp_state_data *cumulative_bhtune(void)
{
	struct klp_state *state = klp_get_prev_state(BHTUNE_KLP_STATE_ID);

	return state ? state->data : NULL;
}

static int cumulative_pre_patch(struct klp_object *obj)
{
	const struct bhtune_klp_state_data *bhtune = cumulative_bhtune();

	if (bhtune) {
		bhtune->release();
		pr_info("bhtune's LRU released\n");
	}
	return 0;
}

/* Only while bhtune is still there: this patch was reverted half-way. */
static void cumulative_post_unpatch(struct klp_object *obj)
{
	const struct bhtune_klp_state_data *bhtune = cumulative_bhtune();

	if (bhtune) {
		bhtune->takeover();
		pr_info("reverted: bhtune's LRU taken back\n");
	}
}

static struct klp_func cumulative_funcs[] = {
	{
		.old_name = "cmdline_proc_show",
		.new_func = cumulative_cmdline_proc_show,
	},
	{
		.old_name = "__x64_sys_pause",
		.new_func = cumulative_sys_pause,
	},
	{ }
};

static struct klp_object cumulative_objs[] = {
	{
		.funcs = cumulative_funcs,
	},
	{ }
};

static struct klp_state cumulative_states[] = {
	{
		.id = BHTUNE_KLP_STATE_ID,
		.version = BHTUNE_KLP_STATE_VERSION,
	},
	{ }
};

static struct klp_patch cumulative_patch = {
	.mod = THIS_MODULE,
	.objs = cumulative_objs,
	.replace = true,
};

static int __init cumulative_init(void)
{
	if (take_over) {
		cumulative_patch.states = cumulative_states;
		cumulative_objs[0].callbacks.pre_patch = cumulative_pre_patch;
		cumulative_objs[0].callbacks.post_unpatch =
			cumulative_post_unpatch;
	}
	return klp_enable_patch(&cumulative_patch);
}

static void __exit cumulative_exit(void)
{
}

module_init(cumulative_init);
module_exit(cumulative_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("A cumulative livepatch that replaces bhtune (test)");
MODULE_INFO(livepatch, "Y");
