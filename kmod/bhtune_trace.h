/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bhtune tracepoints.  Their arguments are an interface: bhscope's BPF
 * programs attach as raw tracepoints (no BTF needed) and read struct
 * bhtune_lookup_info as include/lru_bhtune.h mirrors it, checking these
 * fields' names and sizes in the format files; change them only together
 * with bpf/, include/ and kmod/README.md.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM bhtune

#if !defined(_BHTUNE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _BHTUNE_TRACE_H

#include <linux/types.h>
#include <linux/kdev_t.h>
#include <linux/tracepoint.h>

#include "bhtune.h"

/* One per lookup through the replacement, after it completed. */
TRACE_EVENT(bhtune_lookup,

	TP_PROTO(const struct bhtune_lookup_info *li),

	TP_ARGS(li),

	TP_STRUCT__entry(
		__field(dev_t,		dev)
		__field(sector_t,	block)
		__field(u32,		size)
		__field(s32,		slot)
		__field(u8,		found)
		__field(u8,		installed)
		__field(u32,		lru_size)
		__field(dev_t,		evict_dev)
		__field(sector_t,	evict_block)
		__field(u32,		evict_size)
	),

	TP_fast_assign(
		__entry->dev		= li->dev;
		__entry->block		= li->block;
		__entry->size		= li->size;
		__entry->slot		= li->slot;
		__entry->found		= li->found;
		__entry->installed	= li->installed;
		__entry->lru_size	= li->lru_size;
		__entry->evict_dev	= li->evict_dev;
		__entry->evict_block	= li->evict_block;
		__entry->evict_size	= li->evict_size;
	),

	TP_printk("dev %d,%d block %llu size %u slot %d found %u installed %u lru_size %u evict %d,%d block %llu size %u",
		  MAJOR(__entry->dev), MINOR(__entry->dev),
		  (unsigned long long)__entry->block, __entry->size,
		  __entry->slot, __entry->found, __entry->installed,
		  __entry->lru_size,
		  MAJOR(__entry->evict_dev), MINOR(__entry->evict_dev),
		  (unsigned long long)__entry->evict_block,
		  __entry->evict_size)
);

TRACE_DEFINE_ENUM(BHTUNE_DRAIN_INVALIDATE);
TRACE_DEFINE_ENUM(BHTUNE_DRAIN_RESIZE);
TRACE_DEFINE_ENUM(BHTUNE_DRAIN_CPU_DEAD);
TRACE_DEFINE_ENUM(BHTUNE_DRAIN_UNLOAD);

/* A CPU's module LRU was emptied (only when it held something). */
TRACE_EVENT(bhtune_invalidate,

	TP_PROTO(u32 cpu, u32 dropped, u32 reason),

	TP_ARGS(cpu, dropped, reason),

	TP_STRUCT__entry(
		__field(u32,	cpu)
		__field(u32,	dropped)
		__field(u32,	reason)
	),

	TP_fast_assign(
		__entry->cpu		= cpu;
		__entry->dropped	= dropped;
		__entry->reason		= reason;
	),

	TP_printk("cpu %u dropped %u reason %s", __entry->cpu,
		  __entry->dropped,
		  __print_symbolic(__entry->reason,
				   { BHTUNE_DRAIN_INVALIDATE, "invalidate" },
				   { BHTUNE_DRAIN_RESIZE, "lru_size" },
				   { BHTUNE_DRAIN_CPU_DEAD, "cpu_dead" },
				   { BHTUNE_DRAIN_UNLOAD, "unload" }))
);

/* The batch times of one journal were changed (or restored), in us. */
TRACE_EVENT(bhtune_batch,

	TP_PROTO(dev_t dev, s32 old_min, s32 old_max, s32 new_min,
		 s32 new_max),

	TP_ARGS(dev, old_min, old_max, new_min, new_max),

	TP_STRUCT__entry(
		__field(dev_t,	dev)
		__field(s32,	old_min)
		__field(s32,	old_max)
		__field(s32,	new_min)
		__field(s32,	new_max)
	),

	TP_fast_assign(
		__entry->dev		= dev;
		__entry->old_min	= old_min;
		__entry->old_max	= old_max;
		__entry->new_min	= new_min;
		__entry->new_max	= new_max;
	),

	TP_printk("dev %d,%d min_batch_us %d -> %d max_batch_us %d -> %d",
		  MAJOR(__entry->dev), MINOR(__entry->dev),
		  __entry->old_min, __entry->new_min,
		  __entry->old_max, __entry->new_max)
);

#endif /* _BHTUNE_TRACE_H */

/* This part must be outside the include guard. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE bhtune_trace
#include <trace/define_trace.h>
