// SPDX-License-Identifier: GPL-2.0
/*
 * jbd2 batch times: j_min_batch_time and j_max_batch_time of every journal
 * in use (or of one filesystem, batch_dev), with each journal's own values
 * put back on reset and unload.
 *
 * Finding journals.  jbd2 keeps no list of them.  Each journal has
 * /proc/fs/jbd2/<name>/info whose proc data is the journal_t, <name> being
 * "<bdev>-<inode>" for an inode journal; but a name alone does not keep the
 * journal alive: umount frees it as soon as the proc entries are gone.  So
 * bhtune walks ext4 (and ext3) superblocks with iterate_supers_type(),
 * which holds each superblock's s_umount shared and thus keeps its journal
 * from being destroyed, looks up only the proc entries named after that
 * superblock's device, and checks j_private == sb before touching the
 * journal.  Nothing is kept between walks but names, device numbers and
 * values: no journal pointer is ever dereferenced outside a walk, so
 * journals that go away (umount) simply stop being found.  Journals on an
 * external device carry that device's name and are not found this way.
 *
 * A journal is recognised from one walk to the next by its name, its
 * address and the start time of its commit thread: an umount and mount
 * within one rescan period gives the same name and, often, the same
 * address (a freed journal_t is the first candidate for the next one),
 * but always a new kjournald2.  Without that, the new mount's batch times
 * would be mistaken for bhtune's and the old mount's put back later.
 *
 * Batch times are never written as a pair jbd2 would silently correct:
 * jbd2_journal_stop() applies the max after the min, so a min above the
 * max does nothing.  A parameter write whose min ends up above the max of
 * a journal it applies to (its own max when batch_max_us is -1) is
 * refused; a journal that only appears, or is remounted, later with such
 * values keeps its own and the log says so once.  A batch_dev with no
 * journal is refused as well.
 *
 * /proc is reached through a private kernel mount, so the walk works
 * whatever root or mount namespace the writer of a parameter has.
 *
 * While an override is set, the walk repeats every second: a filesystem
 * mounted later gets the override, and a remount (which rewrites the batch
 * times from the mount options) is noticed, its values taken as the
 * filesystem's own, and the override written again.
 */
#define pr_fmt(fmt) "bhtune: " fmt

#include <linux/ctype.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/jbd2.h>
#include <linux/kdev_t.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/proc_fs.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "bhtune.h"

#define BHTUNE_NAME_LEN		64	/* > j_devname[BDEVNAME_SIZE + 24] */
#define BHTUNE_RESCAN		HZ

/* A journal bhtune has changed, by name; see the comment at the top. */
struct bhtune_journal {
	struct list_head node;
	char name[BHTUNE_NAME_LEN];
	dev_t dev;		/* the filesystem's device */
	const void *id;		/* journal_t address, compared, never used */
	u64 gen;		/* its kjournald2's start time (see the top) */
	u32 own_min, own_max;	/* the filesystem's values */
	u32 set_min, set_max;	/* what bhtune wrote last */
	bool seen;
	bool refused;		/* override above its max: not tuned */
};

static DEFINE_MUTEX(bhtune_jbd2_lock);	/* everything below */
static LIST_HEAD(bhtune_journals);
static int bhtune_min_us = BHTUNE_BATCH_LEAVE;
static int bhtune_max_us = BHTUNE_BATCH_LEAVE;
static dev_t bhtune_dev;
static bool bhtune_jbd2_running;
static struct vfsmount *bhtune_procfs;

static void bhtune_jbd2_rescan(struct work_struct *work);
static DECLARE_DELAYED_WORK(bhtune_jbd2_work, bhtune_jbd2_rescan);

struct bhtune_names {
	struct dir_context ctx;
	char (*name)[BHTUNE_NAME_LEN];
	unsigned int n, cap;
	int err;
};

/* One walk over the journals: checking a new setting, or applying it. */
struct bhtune_walk {
	struct bhtune_names nl;
	bool check;		/* write nothing, find what to refuse */
	bool dev_found;		/* a journal on bhtune_dev was seen */
	int err;		/* check: -EINVAL if a journal refuses */
};

static bool bhtune_names_add(struct dir_context *ctx, const char *name,
			     int len, loff_t off, u64 ino, unsigned int type)
{
	struct bhtune_names *nl = container_of(ctx, struct bhtune_names, ctx);

	if (type != DT_DIR || len >= BHTUNE_NAME_LEN ||
	    (name[0] == '.' && (len == 1 || (len == 2 && name[1] == '.'))))
		return true;
	if (nl->n == nl->cap) {
		unsigned int cap = nl->cap ? 2 * nl->cap : 16;
		void *p = krealloc_array(nl->name, cap, sizeof(*nl->name),
					 GFP_KERNEL);

		if (!p) {
			nl->err = -ENOMEM;
			return false;
		}
		nl->name = p;
		nl->cap = cap;
	}
	memcpy(nl->name[nl->n], name, len);
	nl->name[nl->n][len] = '\0';
	nl->n++;
	return true;
}

/* The names under /proc/fs/jbd2 (none when jbd2 is not loaded). */
static int bhtune_names_read(struct bhtune_names *nl)
{
	struct path root = {
		.mnt = bhtune_procfs,
		.dentry = bhtune_procfs->mnt_root,
	};
	struct file *dir;
	int ret;

	nl->ctx.actor = bhtune_names_add;
	dir = file_open_root(&root, "fs/jbd2", O_RDONLY | O_DIRECTORY, 0);
	if (IS_ERR(dir))
		return PTR_ERR(dir) == -ENOENT ? 0 : PTR_ERR(dir);
	/* proc_readdir() returns 1 for a complete walk */
	ret = iterate_dir(dir, &nl->ctx);
	filp_close(dir, NULL);
	return ret < 0 ? ret : nl->err;
}

/*
 * The journal_t behind /proc/fs/jbd2/<name>/info, or NULL.  O_PATH: the
 * inode is enough (its i_private is the proc data), no need to run jbd2's
 * open, which would copy the journal's statistics.
 */
static journal_t *bhtune_journal_lookup(const char *name)
{
	struct path root = {
		.mnt = bhtune_procfs,
		.dentry = bhtune_procfs->mnt_root,
	};
	char rel[BHTUNE_NAME_LEN + 16];
	journal_t *journal;
	struct file *f;

	snprintf(rel, sizeof(rel), "fs/jbd2/%s/info", name);
	f = file_open_root(&root, rel, O_PATH, 0);
	if (IS_ERR(f))
		return NULL;
	journal = pde_data(file_inode(f));
	filp_close(f, NULL);
	return journal;
}

static struct bhtune_journal *bhtune_journal_find(const char *name)
{
	struct bhtune_journal *e;

	list_for_each_entry(e, &bhtune_journals, node)
		if (!strcmp(e->name, name))
			return e;
	return NULL;
}

static void bhtune_journal_drop(struct bhtune_journal *e)
{
	list_del(&e->node);
	kfree(e);
}

static void bhtune_journal_write(journal_t *journal, const char *name,
				 dev_t dev, u32 min_us, u32 max_us)
{
	u32 old_min = READ_ONCE(journal->j_min_batch_time);
	u32 old_max = READ_ONCE(journal->j_max_batch_time);

	if (old_min == min_us && old_max == max_us)
		return;
	/*
	 * jbd2_journal_stop() reads these without a lock and ext4 writes them
	 * without one on remount; the state lock at least orders us against
	 * other writers that do take it.
	 */
	write_lock(&journal->j_state_lock);
	WRITE_ONCE(journal->j_min_batch_time, min_us);
	WRITE_ONCE(journal->j_max_batch_time, max_us);
	write_unlock(&journal->j_state_lock);
	bhtune_trace(batch, dev, old_min, old_max, min_us, max_us);
	pr_info("journal %s (%u:%u): min_batch_time %u -> %u us, max_batch_time %u -> %u us\n",
		name, MAJOR(dev), MINOR(dev), old_min, min_us, old_max,
		max_us);
}

/* The start time of @journal's commit thread, which a new mount renews. */
static u64 bhtune_journal_gen(journal_t *journal)
{
	struct task_struct *task = READ_ONCE(journal->j_task);

	return task ? task->start_time : 0;
}

/* Whether the parameters ask for anything on the journal of @dev. */
static bool bhtune_journal_wanted(dev_t dev)
{
	return (bhtune_min_us >= 0 || bhtune_max_us >= 0) &&
	       (!bhtune_dev || bhtune_dev == dev);
}

/* One journal, alive for the duration of the call (see the top). */
static void bhtune_journal_tune(struct bhtune_walk *w, journal_t *journal,
				const char *name, dev_t dev)
{
	struct bhtune_journal *e = bhtune_journal_find(name);
	u32 now_min = READ_ONCE(journal->j_min_batch_time);
	u32 now_max = READ_ONCE(journal->j_max_batch_time);
	u64 gen = bhtune_journal_gen(journal);
	u32 own_min = now_min, own_max = now_max, min, max;

	if (bhtune_dev == dev)
		w->dev_found = true;
	/* Same name, another journal: the old one went with its umount. */
	if (e && (e->id != journal || e->gen != gen)) {
		bhtune_journal_drop(e);
		e = NULL;
	}
	if (e) {
		e->seen = true;
		/* Rewritten behind our back (remount): the new own values. */
		if (now_min != e->set_min)
			e->own_min = now_min;
		if (now_max != e->set_max)
			e->own_max = now_max;
		own_min = e->own_min;
		own_max = e->own_max;
	}
	if (!bhtune_journal_wanted(dev)) {
		if (e && !w->check) {
			bhtune_journal_write(journal, name, dev, own_min,
					     own_max);
			bhtune_journal_drop(e);
		}
		return;
	}
	min = bhtune_min_us >= 0 ? bhtune_min_us : own_min;
	max = bhtune_max_us >= 0 ? bhtune_max_us : own_max;
	if (w->check) {
		if (min > max && !w->err) {
			pr_info("refused: journal %s (%u:%u) would get min_batch_time %u us above max_batch_time %u us%s\n",
				name, MAJOR(dev), MINOR(dev), min, max,
				bhtune_max_us < 0 ? " (its own)" : "");
			w->err = -EINVAL;
		}
		return;
	}
	if (!e) {
		e = kzalloc(sizeof(*e), GFP_KERNEL);
		if (!e)
			return;	/* not tuned; the next walk tries again */
		strscpy(e->name, name, sizeof(e->name));
		e->dev = dev;
		e->id = journal;
		e->gen = gen;
		e->own_min = own_min;
		e->own_max = own_max;
		e->seen = true;
		list_add_tail(&e->node, &bhtune_journals);
	}
	if (min > max) {
		/* mounted or remounted since the parameters were checked */
		if (!e->refused)
			pr_info("journal %s (%u:%u) not tuned: min_batch_time %u us would be above max_batch_time %u us; it keeps its own %u/%u us\n",
				name, MAJOR(dev), MINOR(dev), min, max,
				own_min, own_max);
		e->refused = true;
		min = own_min;
		max = own_max;
	} else {
		e->refused = false;
	}
	e->set_min = min;
	e->set_max = max;
	bhtune_journal_write(journal, name, dev, min, max);
}

/* "<bdev>-<digits>": an inode journal on @prefix's device. */
static bool bhtune_name_is_inode_journal(const char *name, const char *prefix,
					 size_t plen)
{
	const char *p = name + plen;

	if (strncmp(name, prefix, plen) || !*p)
		return false;
	for (; *p; p++)
		if (!isdigit(*p))
			return false;
	return true;
}

/* iterate_supers_type() callback: s_umount held, @sb alive. */
static void bhtune_sb_tune(struct super_block *sb, void *arg)
{
	struct bhtune_walk *w = arg;
	struct bhtune_names *nl = &w->nl;
	char prefix[BHTUNE_NAME_LEN];
	unsigned int i;
	int plen;

	if (!sb->s_bdev)
		return;
	/* as jbd2_journal_init_inode() names it: "%pg-%lu", '/' -> '!' */
	plen = snprintf(prefix, sizeof(prefix), "%pg-", sb->s_bdev);
	if (plen >= sizeof(prefix))
		return;
	strreplace(prefix, '/', '!');

	for (i = 0; i < nl->n; i++) {
		journal_t *journal;

		if (!bhtune_name_is_inode_journal(nl->name[i], prefix, plen))
			continue;
		journal = bhtune_journal_lookup(nl->name[i]);
		/* ext4 sets j_private to its superblock */
		if (journal && journal->j_private == sb)
			bhtune_journal_tune(w, journal, nl->name[i],
					    sb->s_dev);
	}
}

/*
 * Walk every journal: with @check, only find whether the parameters can be
 * applied (-EINVAL: a min above a max, -ENODEV: batch_dev has no journal);
 * otherwise bring every journal in line with them and forget journals
 * that are gone.  Caller holds bhtune_jbd2_lock.
 */
static int bhtune_jbd2_walk(bool check)
{
	static const char *const types[] = { "ext4", "ext3" };
	struct bhtune_walk w = { .check = check };
	struct bhtune_journal *e, *tmp;
	unsigned int i;
	int ret;

	ret = bhtune_names_read(&w.nl);
	if (ret) {
		pr_warn_ratelimited("cannot list /proc/fs/jbd2: %d\n", ret);
		kfree(w.nl.name);
		return ret;
	}
	list_for_each_entry(e, &bhtune_journals, node)
		e->seen = false;
	/*
	 * get_fs_type() may load a module; with no journal at all there is
	 * nothing to find, so do not even ask.
	 */
	for (i = 0; w.nl.n && i < ARRAY_SIZE(types); i++) {
		struct file_system_type *fst = get_fs_type(types[i]);

		if (!fst)
			continue;
		iterate_supers_type(fst, bhtune_sb_tune, &w);
		module_put(fst->owner);
	}
	kfree(w.nl.name);
	if (check) {
		if (!w.err && bhtune_dev && !w.dev_found) {
			pr_info("refused: batch_dev %u:%u has no ext4 journal\n",
				MAJOR(bhtune_dev), MINOR(bhtune_dev));
			w.err = -ENODEV;
		}
		return w.err;
	}
	list_for_each_entry_safe(e, tmp, &bhtune_journals, node)
		if (!e->seen)
			bhtune_journal_drop(e);

	if (bhtune_jbd2_running &&
	    (bhtune_min_us >= 0 || bhtune_max_us >= 0))
		mod_delayed_work(system_wq, &bhtune_jbd2_work, BHTUNE_RESCAN);
	return 0;
}

static int bhtune_jbd2_sync(void)
{
	return bhtune_jbd2_walk(false);
}

static void bhtune_jbd2_rescan(struct work_struct *work)
{
	mutex_lock(&bhtune_jbd2_lock);
	if (bhtune_jbd2_running)
		bhtune_jbd2_sync();
	mutex_unlock(&bhtune_jbd2_lock);
}

/*
 * New parameter values.  Before bhtune_jbd2_start() (insmod arguments)
 * they are only stored, and bhtune_jbd2_check() judges them.  On error
 * nothing changed.
 */
int bhtune_jbd2_set(int min_us, int max_us, dev_t dev)
{
	int old_min, old_max, ret = 0;
	dev_t old_dev;

	mutex_lock(&bhtune_jbd2_lock);
	old_min = bhtune_min_us;
	old_max = bhtune_max_us;
	old_dev = bhtune_dev;
	bhtune_min_us = min_us;
	bhtune_max_us = max_us;
	bhtune_dev = dev;
	if (bhtune_jbd2_running) {
		ret = bhtune_jbd2_walk(true) ?: bhtune_jbd2_sync();
		if (ret) {
			bhtune_min_us = old_min;
			bhtune_max_us = old_max;
			bhtune_dev = old_dev;
		}
	}
	mutex_unlock(&bhtune_jbd2_lock);
	return ret;
}

/* The values given to insmod: refused as a write would be. */
int bhtune_jbd2_check(void)
{
	int ret = 0;

	mutex_lock(&bhtune_jbd2_lock);
	if (bhtune_min_us >= 0 || bhtune_max_us >= 0 || bhtune_dev)
		ret = bhtune_jbd2_walk(true);
	mutex_unlock(&bhtune_jbd2_lock);
	return ret;
}

void bhtune_jbd2_get(int *min_us, int *max_us, dev_t *dev)
{
	mutex_lock(&bhtune_jbd2_lock);
	*min_us = bhtune_min_us;
	*max_us = bhtune_max_us;
	*dev = bhtune_dev;
	mutex_unlock(&bhtune_jbd2_lock);
}

int bhtune_jbd2_init(void)
{
	struct file_system_type *proc = get_fs_type("proc");

	if (!proc) {
		pr_err("no proc filesystem\n");
		return -ENOENT;
	}
	bhtune_procfs = kern_mount(proc);
	module_put(proc->owner);
	if (IS_ERR(bhtune_procfs)) {
		int ret = PTR_ERR(bhtune_procfs);

		pr_err("cannot mount a private /proc: %d\n", ret);
		bhtune_procfs = NULL;
		return ret;
	}
	return 0;
}

/* Apply what was given to insmod, and act on writes from now on. */
int bhtune_jbd2_start(void)
{
	int ret;

	mutex_lock(&bhtune_jbd2_lock);
	bhtune_jbd2_running = true;
	ret = bhtune_jbd2_sync();
	mutex_unlock(&bhtune_jbd2_lock);
	return ret;
}

/* Put every journal's own values back and stop. */
void bhtune_jbd2_exit(void)
{
	struct bhtune_journal *e, *tmp;

	mutex_lock(&bhtune_jbd2_lock);
	if (bhtune_jbd2_running) {
		bhtune_min_us = BHTUNE_BATCH_LEAVE;
		bhtune_max_us = BHTUNE_BATCH_LEAVE;
		bhtune_jbd2_running = false;
		if (bhtune_jbd2_sync())
			pr_warn("could not walk the journals: batch times not restored\n");
	}
	list_for_each_entry_safe(e, tmp, &bhtune_journals, node)
		bhtune_journal_drop(e);
	mutex_unlock(&bhtune_jbd2_lock);
	cancel_delayed_work_sync(&bhtune_jbd2_work);
	if (bhtune_procfs)
		kern_unmount(bhtune_procfs);
	bhtune_procfs = NULL;
}
