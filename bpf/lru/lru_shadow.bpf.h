/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The shadow: what this CPU's buffer-head LRU held after the last lookup
 * the tracer saw on it, as the buffer_heads' addresses. Addresses only:
 * comparing them is all a lookup needs, and keeping keys too cost more
 * than the rest of the probe (under TCG). An entry the LRU evicted is
 * still attached to its page, so its key can be read when it is needed
 * (the what-if ghost list, a trace snapshot).
 *
 * A lookup changes the LRU in one of three ways: a hit moves slot i to
 * slot 0, an installed miss shifts every entry down one and puts the new
 * bh at slot 0 (the last one falls off), anything else leaves it alone.
 * So one probe at the lookup's exit is enough to classify it: the LRU it
 * sees must be the shadow with one of those changes applied, and which
 * one says what the lookup did. Anything else (an invalidation emptied
 * the LRU, the task migrated or was preempted between the lookup and the
 * probe) shows up as an LRU the shadow cannot explain.
 *
 * A bh in the shadow is held by the LRU, so it cannot be freed and its
 * address reused while the shadow is right.
 */
#ifndef BHSCOPE_LRU_SHADOW_BPF_H
#define BHSCOPE_LRU_SHADOW_BPF_H

#include "lru_scan.bpf.h"
#include "lru_stats.h"

/*
 * Slots from len on hold 0: shadow_read() clears them and a change only
 * moves entries down one, so a search stops at the first 0. Slot
 * lru_slots, past the LRU's last, is always 0 (an install into a full
 * LRU moves the last entry there, and shadow_installed() takes it out);
 * bh[] has one more slot than the largest LRU, so it always exists.
 */
struct lru_shadow {
	__u64 bh[BHSCOPE_LRU_SLOTS_MAX + 1];	/* addresses, newest first */
	__u32 len;				/* used slots */
	__u32 valid;				/* 0: not read yet */
};

/* Slot of ret (not NULL) in the shadow, or -1. */
static __always_inline int shadow_find(const struct lru_shadow *sh,
				       const void *ret)
{
#pragma clang loop unroll(full)
	for (int i = 0; i < BHSCOPE_LRU_SLOTS_MAX; i++) {
		__u64 bh = sh->bh[i];

		if (bh == (__u64)ret)
			return i;
		if (!bh)
			break;
	}
	return -1;
}

/*
 * The lookup left front (not NULL) at slot 0: it was a hit in slot i
 * (slots 0..i-1 moved down one) or an installed miss (every slot moved
 * down one, the last one fell off). Makes the same change here, in one
 * pass that finds front's slot while it moves the entries in front of
 * it: returns that slot, or -1 for an install (the pass met the first
 * free slot), whose change shadow_installed() completes.
 *
 * Written out slot by slot, so that each step's exit to a hit sets the
 * slot itself (an asm clang cannot merge): from its own unrolled loop,
 * clang set the slot at every step, 5 instructions a slot where 4 do
 * (a load, a store, two compares), or compared with len after the pass.
 */
static __always_inline int shadow_to_front(struct lru_shadow *sh,
					   const void *front)
{
	__u64 moving = (__u64)front, bh;
	int slot = -1;

#define TO_FRONT_STEP(i)						\
	bh = sh->bh[i];							\
	sh->bh[i] = moving;						\
	if (bh == (__u64)front) {					\
		asm volatile("%0 = " #i : "=w"(slot));			\
		goto out;						\
	}								\
	if (!bh)							\
		goto out;						\
	moving = bh;
#define TO_FRONT_8(a, b, c, d, e, f, g, h)				\
	TO_FRONT_STEP(a) TO_FRONT_STEP(b) TO_FRONT_STEP(c)		\
	TO_FRONT_STEP(d) TO_FRONT_STEP(e) TO_FRONT_STEP(f)		\
	TO_FRONT_STEP(g) TO_FRONT_STEP(h)
	TO_FRONT_8(0, 1, 2, 3, 4, 5, 6, 7)
	TO_FRONT_8(8, 9, 10, 11, 12, 13, 14, 15)
	TO_FRONT_8(16, 17, 18, 19, 20, 21, 22, 23)
	TO_FRONT_8(24, 25, 26, 27, 28, 29, 30, 31)
	TO_FRONT_8(32, 33, 34, 35, 36, 37, 38, 39)
	TO_FRONT_8(40, 41, 42, 43, 44, 45, 46, 47)
	TO_FRONT_8(48, 49, 50, 51, 52, 53, 54, 55)
	TO_FRONT_8(56, 57, 58, 59, 60, 61, 62, 63)
	TO_FRONT_STEP(64)
#undef TO_FRONT_8
#undef TO_FRONT_STEP
out:
	/* callers read the moved slots back: not carried out of every exit */
	asm volatile("" ::: "memory");
	return slot;
}

_Static_assert(BHSCOPE_LRU_SLOTS_MAX + 1 == 65,
	       "shadow_to_front() walks slots 0 to 64");

/*
 * After shadow_to_front() said -1 (it stopped at the first 0): a full
 * LRU's last entry fell to slot lru_slots. Takes it out and returns it
 * (the bh the install evicted), else 0.
 */
static __always_inline __u64 shadow_installed(struct lru_shadow *sh)
{
	__u64 victim = sh->bh[lru_slots];

	if (victim)
		sh->bh[lru_slots] = 0;
	else
		sh->len++;
	return victim;
}

/*
 * Does the LRU (bhs, its slot 0 read as lru0) hold the shadow, with the
 * lookup's change applied? Slots 0 and 1 tell: a change the tracer did
 * not see (a hit in slot j > 0, an install, an invalidation) puts at
 * slot 0 what the shadow does not have there, and this lookup's own
 * change then leaves it at slot 0 or pushes it to slot 1, unless both
 * left the LRU as this change alone would have. Comparing every slot
 * costs 8 times as much, for sequences of several unseen changes that
 * leave slots 0 and 1 as they were: shadow_matches_all() runs after a
 * change that may be several (lru_shadow_holds()).
 */
static __always_inline bool shadow_matches(const struct lru_shadow *sh,
					   __u64 lru0,
					   struct buffer_head *const *bhs)
{
	if (lru0 != sh->bh[0])
		return false;
	/* BH_LRU_SIZE >= 2: user space checks (lru_kernel_slots()) */
	return (__u64)bhs[1] == sh->bh[1];
}

/* Every slot of the LRU (bhs) against the shadow's. */
static __always_inline bool shadow_matches_all(const struct lru_shadow *sh,
					       struct buffer_head *const *bhs)
{
#pragma clang loop unroll(full)
	for (int i = 0; i < BHSCOPE_LRU_SLOTS_MAX; i++) {
		if (i >= lru_slots)
			break;
		if ((__u64)bhs[i] != sh->bh[i])
			return false;
	}
	return true;
}

/*
 * shadow_matches() after shadow_to_front(): slot 0 holds the lookup's bh
 * in both by then.
 */
static __always_inline bool shadow_rest_matches(const struct lru_shadow *sh,
						struct buffer_head *const *bhs)
{
	return (__u64)bhs[1] == sh->bh[1];
}

/* Reads the LRU into the shadow. */
static __always_inline void shadow_read(struct lru_shadow *sh,
					struct buffer_head *const *bhs)
{
	__u32 n = 0;

	__builtin_memset(sh->bh, 0, sizeof(sh->bh));
#pragma clang loop unroll(full)
	for (int i = 0; i < BHSCOPE_LRU_SLOTS_MAX; i++) {
		struct buffer_head *bh;

		if (i >= lru_slots)
			break;
		bh = bhs[i];
		if (!bh)
			break;
		sh->bh[i] = (__u64)bh;
		n++;
	}
	sh->len = n;
	sh->valid = 1;
}

#endif /* BHSCOPE_LRU_SHADOW_BPF_H */
