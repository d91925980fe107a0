/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bhtune: run-time tunable buffer-head LRU and jbd2 batch times.
 *
 * Declarations shared by the parts of the module; see README.md for the
 * user interface and for why the module is built the way it is.
 */
#ifndef _BHTUNE_H
#define _BHTUNE_H

#include <linux/types.h>
#include <linux/jump_label.h>
#include <linux/percpu.h>

struct buffer_head;
struct block_device;
struct klp_object;

/*
 * Largest lru_size accepted.  The kernel's own LRU is BH_LRU_SIZE = 16
 * (fs/buffer.c, the same in 6.1 and 6.12); the 2014 patch that made it
 * configurable went up to 64, so that is the range worth measuring.
 */
#define BHTUNE_LRU_MAX		64
#define BHTUNE_LRU_DEFAULT	16

/* The kernel's static per-CPU LRU, layout as in fs/buffer.c. */
#define BHTUNE_KERNEL_LRU_SIZE	16
struct bhtune_kernel_lru {
	struct buffer_head *bhs[BHTUNE_KERNEL_LRU_SIZE];
};

/* Reasons reported by the bhtune_invalidate tracepoint (kmod/README.md). */
enum bhtune_drain_reason {
	BHTUNE_DRAIN_INVALIDATE = 0,	/* invalidate_bh_lrus{,_cpu}() */
	BHTUNE_DRAIN_RESIZE = 1,	/* lru_size written */
	BHTUNE_DRAIN_CPU_DEAD = 2,	/* CPU hot-unplugged */
	BHTUNE_DRAIN_UNLOAD = 3,	/* patch being disabled or module exit */
};

/*
 * One completed lookup, as reported by the bhtune_lookup tracepoint. An
 * interface: bhscope reads it as a raw tracepoint's argument, laid out as
 * include/lru_bhtune.h's struct bhtune_lookup_record says, and refuses a
 * module whose abi parameter is not the BHTUNE_EVENTS_ABI it was built
 * with: change the number with any change to the events' arguments.
 */
#define BHTUNE_EVENTS_ABI	2
struct bhtune_lookup_info {
	dev_t dev;
	sector_t block;
	u32 size;
	s32 slot;		/* hit slot, or -1 for a miss */
	bool found;		/* the lookup returned a buffer */
	bool installed;		/* a miss was installed at slot 0 */
	u32 lru_size;
	dev_t evict_dev;	/* entry pushed out by the install, or 0 */
	sector_t evict_block;
	u32 evict_size;
};

/*
 * The tracepoints live in bhtune_events.ko (see bhtune_events.c), which
 * exports this table.  bhtune.ko links against it, so the module loader
 * refuses bhtune.ko without it (modprobe loads it first): a tracer can
 * then take bhtune's ownership of the LRU for proof that its events fire.
 * While nobody traces, an event costs one load and a branch.
 */
struct static_key;
struct bhtune_events {
	struct static_key *lookup_key, *invalidate_key, *batch_key;
	void (*lookup)(const struct bhtune_lookup_info *li);
	void (*invalidate)(u32 cpu, u32 dropped, u32 reason);
	void (*batch)(dev_t dev, s32 old_min, s32 old_max, s32 new_min,
		      s32 new_max);
};
extern const struct bhtune_events bhtune_events;	/* bhtune_events.ko */

#define bhtune_trace(name, ...)						\
	do {								\
		if (static_key_enabled(bhtune_events.name##_key))	\
			bhtune_events.name(__VA_ARGS__);		\
	} while (0)

/* bhtune_ksym.c: kernel-private symbols, resolved by the livepatch loader. */
int bhtune_ksym_check(void);
struct bhtune_kernel_lru __percpu *bhtune_kernel_lrus(void);
bool bhtune_lru_cache_disabled(void);

/* bhtune_patch.c: enable the livepatch, trying again while it is busy. */
int bhtune_patch_enable(void);

/* bhtune_lru.c */
extern unsigned int bhtune_lru_size;
int bhtune_lru_init(void);
void bhtune_lru_exit(void);
int bhtune_lru_resize(unsigned int new_size);
void bhtune_lru_takeover(void);
void bhtune_lru_release(void);
unsigned int bhtune_lru_count(bool kernel);
int bhtune_lru_inject_bypass(void);

struct buffer_head *bhtune___find_get_block(struct block_device *bdev,
					    sector_t block, unsigned int size);
struct buffer_head *bhtune_find_get_block_common(struct block_device *bdev,
						sector_t block,
						unsigned int size,
						bool atomic);
void bhtune_invalidate_bh_lrus(void);
void bhtune_invalidate_bh_lrus_cpu(void);
bool bhtune_has_bh_in_lru(int cpu, void *dummy);

/* bhtune_refuse.c */
void bhtune_refuse(unsigned int entries);
void bhtune_refuse_init(void);
void bhtune_refuse_exit(void);

/* bhtune_jbd2.c */
#define BHTUNE_BATCH_LEAVE	(-1)
#define BHTUNE_BATCH_MAX_US	1000000
int bhtune_jbd2_init(void);
int bhtune_jbd2_check(void);
int bhtune_jbd2_start(void);
void bhtune_jbd2_exit(void);
int bhtune_jbd2_set(int min_us, int max_us, dev_t dev);
void bhtune_jbd2_get(int *min_us, int *max_us, dev_t *dev);

#endif /* _BHTUNE_H */
