/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading this CPU's buffer-head LRU, fs/buffer.c's
 *	static DEFINE_PER_CPU(struct bh_lru, bh_lrus);
 * through its vmlinux BTF as a typed per-CPU ksym. The array is sorted
 * newest first and is a prefix of non-NULL entries (installs shift in at
 * slot 0, hits move to slot 0, invalidation clears every slot).
 *
 * Slots are read at constant offsets (the verifier refuses a variable
 * offset into a BTF object), so the loops are unrolled up to
 * BHSCOPE_LRU_SLOTS_MAX and cut at lru_slots, which the verifier knows.
 */
#ifndef BHSCOPE_LRU_SCAN_BPF_H
#define BHSCOPE_LRU_SCAN_BPF_H

#include "lru_ghost.bpf.h"
#include "lru_stats.h"

/* BH_LRU_SIZE of the running kernel, from its BTF (set by user space). */
const volatile __u32 lru_slots = 16;

/* Weak: a kernel without it (!CONFIG_BUFFER_HEAD) still loads the rest. */
extern const struct bh_lru bh_lrus __ksym __weak;

/*
 * This CPU's LRU as a plain array of slots, or NULL when the kernel BTF has
 * no bh_lrus. void * on purpose: the compiler must not bound the index by
 * vmlinux.h's array size; the verifier checks it against the kernel's.
 */
static __always_inline struct buffer_head *const *lru_this_cpu(void)
{
	if (!&bh_lrus)
		return NULL;
	return (struct buffer_head *const *)bpf_this_cpu_ptr(&bh_lrus);
}

/* The key of a bh read from the LRU (a BTF pointer: direct loads). */
static __always_inline void lru_key_of(const struct buffer_head *bh,
				       struct lru_key *k)
{
	k->block = bh->b_blocknr;
	k->size = bh->b_size;
	k->dev = bh->b_bdev->bd_dev;
}

/* The key of a bh known only by address (a kretprobe's return value). */
static __always_inline void lru_key_read(const void *bh, struct lru_key *k)
{
	const struct buffer_head *b = bh;

	k->block = BPF_CORE_READ(b, b_blocknr);
	k->size = BPF_CORE_READ(b, b_size);
	k->dev = BPF_CORE_READ(b, b_bdev, bd_dev);
}

#endif /* BHSCOPE_LRU_SCAN_BPF_H */
