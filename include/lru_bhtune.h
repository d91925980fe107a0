/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bhtune.ko's tracepoints (kmod/bhtune_trace.h) as bhscope reads them: as
 * raw tracepoints, whose arguments are the tracepoint's own (TP_PROTO), not
 * the ring-buffer record, whose header differs between kernels
 * (PREEMPT_RT's struct trace_entry is 4 bytes longer) and whose classic
 * programs the kernel skips beside a busy map reader. The module has no
 * BTF, so its argument's layout is written out here: it mirrors
 * kmod/bhtune.h's struct bhtune_lookup_info (natural alignment, x86-64).
 * bhtune_events.ko says which layout it fires in its abi parameter (sysfs:
 * no tracefs needed); user space refuses another, never misreads it.
 */

/* kmod/bhtune.h's BHTUNE_EVENTS_ABI this reader follows. */
#define BHSCOPE_BHTUNE_EVENTS_ABI	2
#ifndef BHSCOPE_LRU_BHTUNE_H
#define BHSCOPE_LRU_BHTUNE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* bhtune_lookup(const struct bhtune_lookup_info *li): after each lookup. */
struct bhtune_lookup_record {
	__u32 dev;		/* dev_t */
	__u64 block;		/* sector_t */
	__u32 size;
	__s32 slot;		/* hit slot, -1: miss */
	__u8 found;		/* bool: the bh exists (LRU or page cache) */
	__u8 installed;		/* bool: a miss put in slot 0 */
	__u32 lru_size;		/* the module's LRU size at this lookup */
	__u32 evict_dev;
	__u64 evict_block;
	__u32 evict_size;	/* 0: nothing was evicted */
};

_Static_assert(sizeof(struct bhtune_lookup_record) == 56,
	       "struct bhtune_lookup_info is 56 bytes on x86-64");

/* bhtune_invalidate(u32 cpu, u32 dropped, u32 reason): cpu's LRU emptied. */

#endif /* BHSCOPE_LRU_BHTUNE_H */
