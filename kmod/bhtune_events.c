// SPDX-License-Identifier: GPL-2.0
/*
 * bhtune_events.ko: the bhtune tracepoints, in a module of their own.
 *
 * They cannot live in bhtune.ko: a livepatch module is tainted
 * TAINT_LIVEPATCH, and 6.1's trace_module_has_bad_taint() does not list
 * that taint among the harmless ones, so the kernel silently skips the
 * trace events of a livepatch module ("module has bad taint, not creating
 * trace events"; 6.12 accepts it).  This plain module defines them and
 * exports a table of small functions that fire them, which bhtune.ko links
 * against: bhtune.ko does not load without this module.
 */
#include <linux/module.h>

#define CREATE_TRACE_POINTS
#include "bhtune_trace.h"

static void bhtune_ev_lookup(const struct bhtune_lookup_info *li)
{
	trace_bhtune_lookup(li);
}

static void bhtune_ev_invalidate(u32 cpu, u32 dropped, u32 reason)
{
	trace_bhtune_invalidate(cpu, dropped, reason);
}

static void bhtune_ev_batch(dev_t dev, s32 old_min, s32 old_max, s32 new_min,
			    s32 new_max)
{
	trace_bhtune_batch(dev, old_min, old_max, new_min, new_max);
}

const struct bhtune_events bhtune_events = {
	.lookup_key = &__tracepoint_bhtune_lookup.key,
	.invalidate_key = &__tracepoint_bhtune_invalidate.key,
	.batch_key = &__tracepoint_bhtune_batch.key,
	.lookup = bhtune_ev_lookup,
	.invalidate = bhtune_ev_invalidate,
	.batch = bhtune_ev_batch,
};
EXPORT_SYMBOL_GPL(bhtune_events);

/* The layout of the events' arguments, for their readers (bhtune.h). */
static int abi = BHTUNE_EVENTS_ABI;
module_param(abi, int, 0444);
MODULE_PARM_DESC(abi, "layout of the tracepoints' arguments, for tools that read them (read-only)");

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Tracepoints of bhtune (bhtune:bhtune_lookup, bhtune_invalidate, bhtune_batch)");
