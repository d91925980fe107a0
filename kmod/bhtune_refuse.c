// SPDX-License-Identifier: GPL-2.0
/*
 * bhtune refuses to stay in place where some lookups bypass it.
 *
 * While bhtune owns the LRU nothing may fill the kernel's own: an entry
 * there means a lookup ran the kernel's code anyway, through a caller with
 * its own inlined copy of a replaced function.  Such lookups cannot be
 * made to use bhtune's LRU, so every figure and every lru_size written
 * would be wrong for them: bhtune disables its patch, which gives every
 * lookup the kernel's code back, and says so.  The module then stays
 * loaded but inert until rmmod.
 *
 * Livepatch has no in-kernel call for a patch to disable itself; its sysfs
 * file is the interface, written here as an operator would.  From a work
 * item: the drains that notice run with IRQs off or in livepatch
 * callbacks, under the livepatch mutex that the write takes.
 *
 * debugfs bhtune/inject_bypass (root, for tests): puts the front entry of
 * this CPU's bhtune LRU in the kernel's LRU too, as a bypassing lookup
 * would, so that the next drain finds it.
 */
#define pr_fmt(fmt) "bhtune: " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/workqueue.h>

#include "bhtune.h"

#define BHTUNE_ENABLED_PATH "/sys/kernel/livepatch/" KBUILD_MODNAME "/enabled"

static atomic_t bhtune_refused = ATOMIC_INIT(0);
static struct dentry *bhtune_debugfs;

static void bhtune_refuse_fn(struct work_struct *work)
{
	struct file *f;
	loff_t pos = 0;
	ssize_t n;

	f = filp_open(BHTUNE_ENABLED_PATH, O_WRONLY, 0);
	if (IS_ERR(f)) {
		pr_err("cannot open %s (%ld): disable the patch by hand\n",
		       BHTUNE_ENABLED_PATH, PTR_ERR(f));
		return;
	}
	n = kernel_write(f, "0\n", 2, &pos);
	filp_close(f, NULL);
	/* -EINVAL: disabled already (an operator, or a transition's end) */
	if (n < 0 && n != -EINVAL)
		pr_err("cannot disable the patch (%zd): disable it by hand\n",
		       n);
}

static DECLARE_WORK(bhtune_refuse_work, bhtune_refuse_fn);

/* A drain found @entries in the kernel's LRU while bhtune owned it. */
void bhtune_refuse(unsigned int entries)
{
	if (atomic_xchg(&bhtune_refused, 1))
		return;
	pr_err("the kernel's own LRU held %u entries while bhtune owned it: some lookups bypass the patch (a caller with the lookup inlined), so bhtune disables itself; rmmod bhtune removes it\n",
	       entries);
	schedule_work(&bhtune_refuse_work);
}

static int bhtune_inject_set(void *data, u64 val)
{
	return val == 1 ? bhtune_lru_inject_bypass() : -EINVAL;
}
DEFINE_DEBUGFS_ATTRIBUTE(bhtune_inject_fops, NULL, bhtune_inject_set,
			 "%llu\n");

void bhtune_refuse_init(void)
{
	/* best effort: only tests use it */
	bhtune_debugfs = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file_unsafe("inject_bypass", 0200, bhtune_debugfs,
				   NULL, &bhtune_inject_fops);
}

/* Module exit: the patch is gone, so no drain schedules the work again. */
void bhtune_refuse_exit(void)
{
	debugfs_remove(bhtune_debugfs);
	cancel_work_sync(&bhtune_refuse_work);
}
