// SPDX-License-Identifier: GPL-2.0
/*
 * bhtune: make the buffer-head LRU size and the jbd2 batch times tunable
 * on a running distribution kernel.
 *
 * The LRU size is a compile-time constant (BH_LRU_SIZE in fs/buffer.c),
 * so bhtune livepatches the lookup with one that uses an LRU of its own,
 * sized by the lru_size parameter, together with every function that
 * empties the LRU.  The batch times are per journal; bhtune writes them
 * directly and puts the filesystems' own values back on reset and unload.
 *
 * Unload: echo 0 > /sys/kernel/livepatch/bhtune/enabled, wait until
 * /sys/kernel/livepatch/bhtune/transition reads 0, then rmmod bhtune.
 */
#define pr_fmt(fmt) "bhtune: " fmt

#include <linux/buffer_head.h>
#include <linux/kdev_t.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

#include "bhtune.h"

/* Set once init is far enough for parameter writes to act, not just store. */
static bool bhtune_ready;

/* ---- lru_size ---- */

static int bhtune_lru_size_set(const char *val, const struct kernel_param *kp)
{
	unsigned int old = READ_ONCE(bhtune_lru_size), n;
	int ret;

	ret = kstrtouint(val, 0, &n);
	if (ret)
		return ret;
	if (n > BHTUNE_LRU_MAX)
		return -EINVAL;
	if (n == old)
		return 0;
	if (READ_ONCE(bhtune_ready)) {
		ret = bhtune_lru_resize(n);
		if (ret)
			return ret;
	} else {
		WRITE_ONCE(bhtune_lru_size, n);
	}
	pr_info("lru_size %u -> %u\n", old, n);
	return 0;
}

static const struct kernel_param_ops bhtune_lru_size_ops = {
	.set = bhtune_lru_size_set,
	.get = param_get_uint,
};
module_param_cb(lru_size, &bhtune_lru_size_ops, &bhtune_lru_size, 0644);
MODULE_PARM_DESC(lru_size,
		 "buffer-head LRU entries per CPU, 0..64 (0: no LRU; default 16 = BH_LRU_SIZE)");

/* ---- batch_min_us, batch_max_us, batch_dev, reset ---- */

static int bhtune_batch_parse(const char *val, int *out)
{
	int v, ret;

	ret = kstrtoint(val, 0, &v);
	if (ret)
		return ret;
	if (v < BHTUNE_BATCH_LEAVE || v > BHTUNE_BATCH_MAX_US)
		return -EINVAL;
	*out = v;
	return 0;
}

/* Both explicit and min > max would let max win silently in jbd2. */
static bool bhtune_batch_valid(int min_us, int max_us)
{
	return min_us < 0 || max_us < 0 || min_us <= max_us;
}

/* Sets batch_max_us if @max, else batch_min_us; the other one stays. */
static int bhtune_batch_store(const char *val, bool max)
{
	int min_us, max_us, old, v, ret;
	dev_t dev;

	ret = bhtune_batch_parse(val, &v);
	if (ret)
		return ret;
	bhtune_jbd2_get(&min_us, &max_us, &dev);
	old = max ? max_us : min_us;
	if (max)
		max_us = v;
	else
		min_us = v;
	if (!bhtune_batch_valid(min_us, max_us))
		return -EINVAL;
	if (v == old)
		return 0;
	ret = bhtune_jbd2_set(min_us, max_us, dev);
	if (ret)
		return ret;
	pr_info("batch_%s_us %d -> %d\n", max ? "max" : "min", old, v);
	return 0;
}

static int bhtune_batch_min_set(const char *val, const struct kernel_param *kp)
{
	return bhtune_batch_store(val, false);
}

static int bhtune_batch_max_set(const char *val, const struct kernel_param *kp)
{
	return bhtune_batch_store(val, true);
}

static int bhtune_batch_min_get(char *buf, const struct kernel_param *kp)
{
	int min_us, max_us;
	dev_t dev;

	bhtune_jbd2_get(&min_us, &max_us, &dev);
	return sysfs_emit(buf, "%d\n", min_us);
}

static int bhtune_batch_max_get(char *buf, const struct kernel_param *kp)
{
	int min_us, max_us;
	dev_t dev;

	bhtune_jbd2_get(&min_us, &max_us, &dev);
	return sysfs_emit(buf, "%d\n", max_us);
}

static const struct kernel_param_ops bhtune_batch_min_ops = {
	.set = bhtune_batch_min_set,
	.get = bhtune_batch_min_get,
};
module_param_cb(batch_min_us, &bhtune_batch_min_ops, NULL, 0644);
MODULE_PARM_DESC(batch_min_us,
		 "jbd2 min batch time for sync writers in us, 0..1000000, -1: each filesystem's own");

static const struct kernel_param_ops bhtune_batch_max_ops = {
	.set = bhtune_batch_max_set,
	.get = bhtune_batch_max_get,
};
module_param_cb(batch_max_us, &bhtune_batch_max_ops, NULL, 0644);
MODULE_PARM_DESC(batch_max_us,
		 "jbd2 max batch time in us, 0..1000000 (0: no batching), -1: each filesystem's own");

/* "MAJ:MIN", or empty for every journal. */
static int bhtune_batch_dev_set(const char *val, const struct kernel_param *kp)
{
	int min_us, max_us, ret;
	unsigned int maj, min;
	dev_t old, dev = 0;
	char buf[32], *s, c;

	if (strscpy(buf, val, sizeof(buf)) < 0)
		return -EINVAL;
	s = strim(buf);
	if (*s) {
		if (sscanf(s, "%u:%u%c", &maj, &min, &c) != 2)
			return -EINVAL;
		dev = MKDEV(maj, min);
		if (!dev || MAJOR(dev) != maj || MINOR(dev) != min)
			return -EINVAL;
	}
	bhtune_jbd2_get(&min_us, &max_us, &old);
	if (dev == old)
		return 0;
	ret = bhtune_jbd2_set(min_us, max_us, dev);
	if (ret)
		return ret;
	pr_info("batch_dev %u:%u -> %u:%u\n", MAJOR(old), MINOR(old),
		MAJOR(dev), MINOR(dev));
	return 0;
}

static int bhtune_batch_dev_get(char *buf, const struct kernel_param *kp)
{
	int min_us, max_us;
	dev_t dev;

	bhtune_jbd2_get(&min_us, &max_us, &dev);
	if (!dev)
		return sysfs_emit(buf, "\n");
	return sysfs_emit(buf, "%u:%u\n", MAJOR(dev), MINOR(dev));
}

static const struct kernel_param_ops bhtune_batch_dev_ops = {
	.set = bhtune_batch_dev_set,
	.get = bhtune_batch_dev_get,
};
module_param_cb(batch_dev, &bhtune_batch_dev_ops, NULL, 0644);
MODULE_PARM_DESC(batch_dev,
		 "journal to tune, by filesystem device MAJ:MIN; empty: all");

/* Writing 1 puts every journal's own batch times back (min = max = -1). */
static int bhtune_reset_set(const char *val, const struct kernel_param *kp)
{
	int min_us, max_us, ret;
	bool yes;
	dev_t dev;

	ret = kstrtobool(val, &yes);
	if (ret || !yes)
		return ret ? ret : -EINVAL;
	bhtune_jbd2_get(&min_us, &max_us, &dev);
	if (min_us == BHTUNE_BATCH_LEAVE && max_us == BHTUNE_BATCH_LEAVE)
		return 0;	/* nothing to put back, nothing to log */
	ret = bhtune_jbd2_set(BHTUNE_BATCH_LEAVE, BHTUNE_BATCH_LEAVE, dev);
	if (ret)
		return ret;
	pr_info("reset: batch_min_us %d -> -1, batch_max_us %d -> -1\n",
		min_us, max_us);
	return 0;
}

static const struct kernel_param_ops bhtune_reset_ops = {
	.set = bhtune_reset_set,
};
module_param_cb(reset, &bhtune_reset_ops, NULL, 0200);
MODULE_PARM_DESC(reset, "write 1: restore every journal's own batch times");

/* ---- read-only state, for tests and bhscope tune ---- */

static int bhtune_lru_entries_get(char *buf, const struct kernel_param *kp)
{
	if (!READ_ONCE(bhtune_ready))
		return sysfs_emit(buf, "0\n");
	return sysfs_emit(buf, "%u\n", bhtune_lru_count(false));
}

static int bhtune_kernel_lru_entries_get(char *buf,
					 const struct kernel_param *kp)
{
	if (!READ_ONCE(bhtune_ready))
		return sysfs_emit(buf, "0\n");
	return sysfs_emit(buf, "%u\n", bhtune_lru_count(true));
}

static const struct kernel_param_ops bhtune_lru_entries_ops = {
	.get = bhtune_lru_entries_get,
};
module_param_cb(lru_entries, &bhtune_lru_entries_ops, NULL, 0444);
MODULE_PARM_DESC(lru_entries, "entries in the module's LRUs, all CPUs");

static const struct kernel_param_ops bhtune_kernel_lru_entries_ops = {
	.get = bhtune_kernel_lru_entries_get,
};
module_param_cb(kernel_lru_entries, &bhtune_kernel_lru_entries_ops, NULL,
		0444);
MODULE_PARM_DESC(kernel_lru_entries,
		 "entries in the kernel's own LRUs, all CPUs (0 while bhtune owns the LRU)");

static int __init bhtune_init(void)
{
	int ret;

	ret = bhtune_ksym_check();
	if (ret)
		return ret;
	ret = bhtune_lru_init();
	if (ret)
		return ret;
	ret = bhtune_jbd2_init();
	if (ret)
		goto err_lru;
	/* batch times given to insmod: refused here as a write would be */
	ret = bhtune_jbd2_check();
	if (ret)
		goto err_jbd2;

	/*
	 * Empty the kernel's LRU while its own code still runs; post_patch
	 * empties it again once no task can fill it any more.
	 */
	invalidate_bh_lrus();

	ret = bhtune_patch_enable();
	if (ret) {
		pr_err("livepatch failed (%d): see the livepatch: lines above\n",
		       ret);
		goto err_jbd2;
	}
	WRITE_ONCE(bhtune_ready, true);
	bhtune_refuse_init();

	/* Batch times given to insmod were only stored: apply them now. */
	ret = bhtune_jbd2_start();
	if (ret)
		pr_warn("batch times not applied (%d)\n", ret);
	pr_info("loaded: lru_size %u (max %u)\n", READ_ONCE(bhtune_lru_size),
		BHTUNE_LRU_MAX);
	return 0;

err_jbd2:
	bhtune_jbd2_exit();
err_lru:
	bhtune_lru_exit();
	return ret;
}

static void __exit bhtune_exit(void)
{
	WRITE_ONCE(bhtune_ready, false);
	bhtune_refuse_exit();
	bhtune_jbd2_exit();
	bhtune_lru_exit();
	pr_info("unloaded\n");
}

module_init(bhtune_init);
module_exit(bhtune_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Run-time tunable buffer-head LRU size and jbd2 batch times");
MODULE_INFO(livepatch, "Y");
