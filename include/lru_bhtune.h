/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The records of bhtune.ko's tracepoints (kmod/), as BPF programs see them:
 * the agreed TP_STRUCT__entry fields after the 8-byte struct trace_entry,
 * in natural alignment. They are not in vmlinux BTF, so both sides write
 * them out; user space checks them against the events' format files.
 */
#ifndef BHSCOPE_LRU_BHTUNE_H
#define BHSCOPE_LRU_BHTUNE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* bhtune:bhtune_lookup, fired after each lookup, on the lookup's CPU. */
struct bhtune_lookup_args {
	__u64 common;		/* struct trace_entry */
	__u32 dev;		/* dev_t */
	__u64 block;		/* sector_t */
	__u32 size;
	__s32 slot;		/* hit slot, -1: miss */
	__u8 found;		/* the bh exists (LRU or page cache) */
	__u8 installed;		/* a miss put in slot 0 */
	__u32 lru_size;		/* the module's LRU size at this lookup */
	__u32 evict_dev;
	__u64 evict_block;
	__u32 evict_size;	/* 0: nothing was evicted */
};

/* bhtune:bhtune_invalidate: cpu's LRU was emptied. */
struct bhtune_invalidate_args {
	__u64 common;
	__u32 cpu;
	__u32 dropped;
	__u32 reason;
};

#endif /* BHSCOPE_LRU_BHTUNE_H */
