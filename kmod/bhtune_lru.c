// SPDX-License-Identifier: GPL-2.0
/*
 * The module's per-CPU buffer-head LRU and the functions that replace the
 * kernel's through livepatch (see bhtune_main.c for the list).
 *
 * The LRU works exactly like the one in fs/buffer.c, except that its size
 * is lru_size instead of BH_LRU_SIZE:
 *  - bhs[] is sorted, newest first; a hit moves the entry to slot 0 and a
 *    miss that the page cache found is installed at slot 0, pushing the
 *    last entry out;
 *  - every entry holds one reference on its buffer_head;
 *  - a CPU's LRU is only touched by that CPU with interrupts off, so the
 *    only locking needed is against the IPIs that empty it;
 *  - nothing is installed while lru_cache_disable() is in force (page
 *    migration, CMA, memory hotplug), nor on isolated CPUs where the
 *    kernel skips them (6.12).
 *
 * The kernel disables interrupts with local_irq_disable() behind a
 * BUG_ON(irqs_disabled()).  We save and restore the flags instead: same
 * exclusion, no BUG if some caller ever comes in with interrupts off.
 *
 * Ownership.  The LRU is "active" only between post_patch (every task runs
 * the replacements) and pre_unpatch.  During either transition some tasks
 * still run the kernel's lookup and fill the kernel's LRU, so the
 * replacements of invalidate_bh_lrus() and friends empty both LRUs, and
 * taking over empties the kernel's once the transition is complete.  With
 * the module's LRU empty and unused during transitions, whichever version
 * of a drain a task runs, it reaches every reference that exists.
 */
#define pr_fmt(fmt) "bhtune: " fmt

#include <linux/atomic.h>
#include <linux/buffer_head.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/pagemap.h>
#include <linux/percpu.h>
#include <linux/ratelimit.h>
#include <linux/rcupdate.h>
#include <linux/smp.h>
#include <linux/sched/isolation.h>
#include <linux/version.h>

#include "bhtune.h"

struct bhtune_lru {
	struct buffer_head *bhs[BHTUNE_LRU_MAX];
};

static DEFINE_PER_CPU(struct bhtune_lru, bhtune_lrus);

unsigned int bhtune_lru_size = BHTUNE_LRU_DEFAULT;
static bool bhtune_lru_active;
static int bhtune_cpuhp_state = -1;

/*
 * fs/buffer.c bypasses the LRU on isolated CPUs since 6.6 ("disable
 * per-CPU buffer_head cache for isolated CPUs"); 6.1 does not, even where
 * its stable updates brought cpu_is_isolated() itself.
 */
static bool bhtune_cpu_isolated(void)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
	return cpu_is_isolated(smp_processor_id());
#else
	return false;
#endif
}

/* Size of this CPU's LRU for a lookup right now; IRQs off. */
static unsigned int bhtune_lru_effective_size(void)
{
	if (!READ_ONCE(bhtune_lru_active) || bhtune_cpu_isolated())
		return 0;
	return READ_ONCE(bhtune_lru_size);
}

static struct buffer_head *
bhtune_lru_lookup(struct block_device *bdev, sector_t block,
		  unsigned int size, struct bhtune_lookup_info *li)
{
	struct buffer_head *ret = NULL;
	struct bhtune_lru *b;
	unsigned long flags;
	unsigned int i, n;

	local_irq_save(flags);
	n = bhtune_lru_effective_size();
	li->lru_size = n;
	b = this_cpu_ptr(&bhtune_lrus);
	for (i = 0; i < n; i++) {
		struct buffer_head *bh = b->bhs[i];

		if (bh && bh->b_blocknr == block && bh->b_bdev == bdev &&
		    bh->b_size == size) {
			if (i) {
				memmove(&b->bhs[1], &b->bhs[0],
					i * sizeof(b->bhs[0]));
				b->bhs[0] = bh;
			}
			get_bh(bh);
			ret = bh;
			li->slot = i;
			li->found = true;
			/* before an invalidation IPI can empty it: see below */
			bhtune_trace(lookup, li);
			break;
		}
	}
	local_irq_restore(flags);
	return ret;
}

/*
 * Put @bh at the front of this CPU's LRU, taking a reference, and drop the
 * entry that falls off the end.  Returns true if @bh was installed, false
 * if nothing changed or it was only moved to the front (then it already
 * held a reference).
 */
static bool bhtune_lru_install(struct buffer_head *bh,
			       struct bhtune_lookup_info *li)
{
	struct buffer_head *evictee = bh;
	struct block_device *ebdev;
	struct bhtune_lru *b;
	unsigned long flags;
	unsigned int i, n;

	local_irq_save(flags);
	/*
	 * An LRU reference keeps try_to_free_buffers() from freeing the page,
	 * which would make page migration fail: like the kernel, install
	 * nothing until lru_cache_enable().
	 */
	n = bhtune_lru_cache_disabled() ? 0 : bhtune_lru_effective_size();
	b = this_cpu_ptr(&bhtune_lrus);
	for (i = 0; i < n; i++) {
		swap(evictee, b->bhs[i]);
		if (evictee == bh) {
			local_irq_restore(flags);
			return false;
		}
	}
	if (!n) {
		local_irq_restore(flags);
		return false;
	}
	get_bh(bh);
	if (evictee) {
		/*
		 * Read the evictee's device now: interrupts off is an RCU
		 * read-side section, and block devices are freed after a
		 * grace period, so b_bdev cannot go away under us even if the
		 * device is being torn down (discard_buffer() then sets it to
		 * NULL).
		 */
		ebdev = READ_ONCE(evictee->b_bdev);
		li->evict_dev = ebdev ? ebdev->bd_dev : 0;
		li->evict_block = evictee->b_blocknr;
		li->evict_size = evictee->b_size;
	}
	li->found = true;
	li->installed = true;
	/* before an invalidation IPI can empty it: see bhtune_lookup() */
	bhtune_trace(lookup, li);
	local_irq_restore(flags);
	brelse(evictee);
	return true;
}

/*
 * The page-cache lookup of fs/buffer.c (__find_get_block_slow), written
 * with exported and inline helpers only.  @atomic as in 6.15+/6.12.31+:
 * without it the folio lock serialises against try_to_free_buffers(),
 * otherwise the mapping's private lock does (the only way in 6.1).
 */
static struct buffer_head *
bhtune_find_get_block_slow(struct block_device *bdev, sector_t block,
			   bool atomic)
{
#ifdef BHTUNE_HAVE_BD_MAPPING
	struct address_space *bd_mapping = bdev->bd_mapping;
#else
	struct address_space *bd_mapping = bdev->bd_inode->i_mapping;
#endif
#ifdef BHTUNE_HAVE_I_PRIVATE_LOCK
	spinlock_t *private_lock = &bd_mapping->i_private_lock;
#else
	spinlock_t *private_lock = &bd_mapping->private_lock;
#endif
	const int blkbits = bd_mapping->host->i_blkbits;
	struct buffer_head *ret = NULL;
	struct buffer_head *head, *bh;
	struct folio *folio;
	pgoff_t index;
	int all_mapped = 1;
	static DEFINE_RATELIMIT_STATE(last_warned, HZ, 1);

	index = ((loff_t)block << blkbits) / PAGE_SIZE;
	/* NULL on 6.1, ERR_PTR(-ENOENT) since 6.3 */
	folio = __filemap_get_folio(bd_mapping, index, FGP_ACCESSED, 0);
	if (IS_ERR_OR_NULL(folio))
		return NULL;

	if (atomic)
		spin_lock(private_lock);
	else
		folio_lock(folio);

	head = folio_buffers(folio);
	if (!head)
		goto out_unlock;
	bh = head;
	do {
		if (!buffer_mapped(bh)) {
			all_mapped = 0;
		} else if (bh->b_blocknr == block) {
			ret = bh;
			get_bh(bh);
			goto out_unlock;
		}
		bh = bh->b_this_page;
	} while (bh != head);

	/*
	 * Unmapped buffers come from races between file I/O on the block
	 * device and getblk, dealt with elsewhere; all mapped and none
	 * matching is worth the same warning the kernel prints.
	 */
	ratelimit_set_flags(&last_warned, RATELIMIT_MSG_ON_RELEASE);
	if (all_mapped && __ratelimit(&last_warned)) {
		pr_warn("__find_get_block_slow() failed. block=%llu, b_blocknr=%llu, b_state=0x%08lx, b_size=%zu, device %pg blocksize: %d\n",
			(unsigned long long)block,
			(unsigned long long)bh->b_blocknr, bh->b_state,
			bh->b_size, bdev, 1 << blkbits);
	}
out_unlock:
	if (atomic)
		spin_unlock(private_lock);
	else
		folio_unlock(folio);
	folio_put(folio);
	return ret;
}

/*
 * The lookup, expanded into the one replacement this kernel registers.
 * Livepatch decides that a task may leave the patched state by looking
 * for the registered function's own address range on its stack
 * (klp_check_stack_func()), so every instruction that runs on the way
 * must be inside that range or reached by a call from it (the return
 * address then points into it).  A registered wrapper that jumps to a
 * shared body, or a body split into a .cold part, would let the unpatch
 * transition complete, and rmmod free the code, under a task preempted
 * there.  Hence __always_inline here, no sibling calls and no hot/cold
 * partitioning for this file (Kbuild), and klp-check.sh to prove it on
 * the built module.
 */
static __always_inline struct buffer_head *
bhtune_lookup(struct block_device *bdev, sector_t block, unsigned int size,
	      bool atomic)
{
	struct bhtune_lookup_info li = {
		.dev = bdev->bd_dev,
		.block = block,
		.size = size,
		.slot = -1,
	};
	struct buffer_head *bh;

	/*
	 * A hit or an install reports itself with interrupts still off, in
	 * the same section as its change to the LRU: an invalidation IPI
	 * landing after that change must come after its event too, or a
	 * reader of the events (bhscope's model, a replay of its trace) would
	 * empty its LRU before this lookup's change instead of after it.
	 */
	bh = bhtune_lru_lookup(bdev, block, size, &li);
	if (!bh) {
		/* the page-cache lookup marks the folio accessed */
		bh = bhtune_find_get_block_slow(bdev, block, atomic);
		if (bh && bhtune_lru_install(bh, &li))
			return bh;
		/* no change to the LRU: absent, or not installed */
		li.found = bh != NULL;
		bhtune_trace(lookup, &li);
	} else {
		/* fires block:block_touch_buffer, as the kernel's hit does */
		touch_buffer(bh);
	}
	return bh;
}

#ifdef BHTUNE_HAVE_FIND_GET_BLOCK_COMMON
/* Replaces find_get_block_common() (6.12.31+, 6.15+). */
struct buffer_head *bhtune_find_get_block_common(struct block_device *bdev,
						sector_t block,
						unsigned int size,
						bool atomic)
{
	return bhtune_lookup(bdev, block, size, atomic);
}
#else
/* Replaces __find_get_block() where it does the lookup itself (6.1). */
struct buffer_head *bhtune___find_get_block(struct block_device *bdev,
					    sector_t block, unsigned int size)
{
	return bhtune_lookup(bdev, block, size, true);
}
#endif

/* Drops every entry of @b; returns how many there were. */
static u32 bhtune_lru_empty(struct buffer_head **bhs, unsigned int n)
{
	unsigned int i;
	u32 dropped = 0;

	for (i = 0; i < n; i++) {
		struct buffer_head *bh = bhs[i];

		if (bh) {
			bhs[i] = NULL;
			/* put_bh() only: safe with IRQs off, as in the kernel */
			brelse(bh);
			dropped++;
		}
	}
	return dropped;
}

struct bhtune_drain {
	enum bhtune_drain_reason reason;
	atomic_t kernel_dropped;
	atomic_t bypassed;	/* of those, found while bhtune owned the LRU */
};

/*
 * Empties this CPU's LRUs, the module's and the kernel's; IRQs off (an IPI,
 * or the caller disabled them), which is what excludes lookups and
 * installs on this CPU.
 */
static void bhtune_drain_this_cpu(void *arg)
{
	struct bhtune_drain *d = arg;
	struct bhtune_kernel_lru *k = this_cpu_ptr(bhtune_kernel_lrus());
	struct bhtune_lru *b = this_cpu_ptr(&bhtune_lrus);
	u32 dropped, kdropped;

	dropped = bhtune_lru_empty(b->bhs, BHTUNE_LRU_MAX);
	kdropped = bhtune_lru_empty(k->bhs, BHTUNE_KERNEL_LRU_SIZE);
	if (kdropped) {
		atomic_add(kdropped, &d->kernel_dropped);
		if (READ_ONCE(bhtune_lru_active))
			atomic_add(kdropped, &d->bypassed);
	}
	if (dropped)
		bhtune_trace(invalidate, smp_processor_id(), dropped, d->reason);
}

/*
 * Once the patching transition completed, nothing may fill the kernel's
 * LRU: an entry there means a lookup ran the kernel's code anyway, i.e. a
 * caller has its own inlined copy of a replaced function.  bhtune cannot
 * make such lookups use its LRU, so it refuses to stay (bhtune_refuse.c).
 */
static void bhtune_bypass_report(struct bhtune_drain *d)
{
	unsigned int n = atomic_read(&d->bypassed);

	if (n)
		bhtune_refuse(n);
}

/* Empties every online CPU's LRUs; offline CPUs were emptied at death. */
static unsigned int bhtune_drain_all(enum bhtune_drain_reason reason)
{
	struct bhtune_drain d = { .reason = reason };

	on_each_cpu(bhtune_drain_this_cpu, &d, 1);
	bhtune_bypass_report(&d);
	return atomic_read(&d.kernel_dropped);
}

/* Replaces has_bh_in_lru(): used by lru_add_drain_all() and below. */
bool bhtune_has_bh_in_lru(int cpu, void *dummy)
{
	struct bhtune_kernel_lru *k = per_cpu_ptr(bhtune_kernel_lrus(), cpu);
	struct bhtune_lru *b = per_cpu_ptr(&bhtune_lrus, cpu);
	unsigned int i;

	for (i = 0; i < BHTUNE_LRU_MAX; i++)
		if (READ_ONCE(b->bhs[i]))
			return true;
	for (i = 0; i < BHTUNE_KERNEL_LRU_SIZE; i++)
		if (READ_ONCE(k->bhs[i]))
			return true;
	return false;
}

/* Replaces invalidate_bh_lrus(): umount, kill_bdev, migration, ... */
void bhtune_invalidate_bh_lrus(void)
{
	struct bhtune_drain d = { .reason = BHTUNE_DRAIN_INVALIDATE };

	on_each_cpu_cond(bhtune_has_bh_in_lru, bhtune_drain_this_cpu, &d, 1);
	bhtune_bypass_report(&d);
}

/* Replaces invalidate_bh_lrus_cpu(): the per-CPU lru_add_drain work. */
void bhtune_invalidate_bh_lrus_cpu(void)
{
	struct bhtune_drain d = { .reason = BHTUNE_DRAIN_INVALIDATE };
	unsigned long flags;

	local_irq_save(flags);
	bhtune_drain_this_cpu(&d);
	local_irq_restore(flags);
	bhtune_bypass_report(&d);
}

/* cpuhp teardown, on a control CPU once @cpu is dead. */
static int bhtune_cpu_dead(unsigned int cpu)
{
	struct bhtune_lru *b = per_cpu_ptr(&bhtune_lrus, cpu);
	u32 dropped = bhtune_lru_empty(b->bhs, BHTUNE_LRU_MAX);

	if (dropped)
		bhtune_trace(invalidate, cpu, dropped, BHTUNE_DRAIN_CPU_DEAD);
	return 0;
}

/*
 * lru_size written.  Every CPU drops all its entries: an IPI cannot land
 * inside a lookup or install (IRQs off there), so each CPU finishes what
 * it was doing with the old size, is emptied, and sees the new size from
 * its next lookup on.
 */
int bhtune_lru_resize(unsigned int new_size)
{
	if (new_size > BHTUNE_LRU_MAX)
		return -EINVAL;
	WRITE_ONCE(bhtune_lru_size, new_size);
	bhtune_drain_all(BHTUNE_DRAIN_RESIZE);
	return 0;
}

/* post_patch: every task now runs the replacements. */
void bhtune_lru_takeover(void)
{
	unsigned int kdropped;

	/* Nothing refills the kernel's LRU any more: empty it for good. */
	kdropped = bhtune_drain_all(BHTUNE_DRAIN_INVALIDATE);
	WRITE_ONCE(bhtune_lru_active, true);
	pr_info("owns the buffer-head LRU now, lru_size %u (dropped %u entries of the kernel's)\n",
		READ_ONCE(bhtune_lru_size), kdropped);
}

/* pre_unpatch (and failed init): hand the LRU back to the kernel. */
void bhtune_lru_release(void)
{
	WRITE_ONCE(bhtune_lru_active, false);
	bhtune_drain_all(BHTUNE_DRAIN_UNLOAD);
	pr_info("buffer-head LRU handed back to the kernel\n");
}

/*
 * For tests (debugfs bhtune/inject_bypass): this CPU's front entry also in
 * the kernel's LRU, with its own reference, as a lookup that bypassed the
 * patch would leave it.  Every drain empties both LRUs, so it is released.
 */
int bhtune_lru_inject_bypass(void)
{
	struct bhtune_kernel_lru *k;
	struct bhtune_lru *b;
	unsigned long flags;
	int ret = 0;

	local_irq_save(flags);
	k = this_cpu_ptr(bhtune_kernel_lrus());
	b = this_cpu_ptr(&bhtune_lrus);
	if (!READ_ONCE(bhtune_lru_active) || !b->bhs[0])
		ret = -ENOENT;
	else if (k->bhs[0])
		ret = -EBUSY;
	else {
		get_bh(b->bhs[0]);
		k->bhs[0] = b->bhs[0];
	}
	local_irq_restore(flags);
	return ret;
}

/* Entries held right now, in the module's LRUs or in the kernel's. */
unsigned int bhtune_lru_count(bool kernel)
{
	unsigned int cpu, i, n = 0;

	for_each_possible_cpu(cpu) {
		if (kernel) {
			struct bhtune_kernel_lru *k;

			k = per_cpu_ptr(bhtune_kernel_lrus(), cpu);
			for (i = 0; i < BHTUNE_KERNEL_LRU_SIZE; i++)
				n += READ_ONCE(k->bhs[i]) != NULL;
		} else {
			struct bhtune_lru *b = per_cpu_ptr(&bhtune_lrus, cpu);

			for (i = 0; i < BHTUNE_LRU_MAX; i++)
				n += READ_ONCE(b->bhs[i]) != NULL;
		}
	}
	return n;
}

int bhtune_lru_init(void)
{
	int ret;

	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN, "fs/bhtune:dead",
					NULL, bhtune_cpu_dead);
	if (ret < 0) {
		pr_err("cannot register the CPU hotplug callback: %d\n", ret);
		return ret;
	}
	bhtune_cpuhp_state = ret;
	return 0;
}

/*
 * Module exit, after the patch was disabled: no task can run a replacement
 * any more, so the LRUs can be emptied directly.  pre_unpatch already did;
 * anything found here would be a bug, but is still released.
 */
void bhtune_lru_exit(void)
{
	unsigned int cpu;
	u32 dropped, total = 0;

	if (bhtune_cpuhp_state >= 0)
		cpuhp_remove_state_nocalls(bhtune_cpuhp_state);
	bhtune_cpuhp_state = -1;

	cpus_read_lock();
	for_each_possible_cpu(cpu) {
		struct bhtune_lru *b = per_cpu_ptr(&bhtune_lrus, cpu);

		dropped = bhtune_lru_empty(b->bhs, BHTUNE_LRU_MAX);
		if (dropped)
			bhtune_trace(invalidate, cpu, dropped,
						BHTUNE_DRAIN_UNLOAD);
		total += dropped;
	}
	cpus_read_unlock();
	WARN_ONCE(total, "bhtune: %u LRU entries left at exit\n", total);
}
