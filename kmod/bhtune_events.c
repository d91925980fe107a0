// SPDX-License-Identifier: GPL-2.0
/*
 * bhtune_events.ko: the bhtune tracepoints, in a module of their own.
 *
 * They cannot live in bhtune.ko: a livepatch module is tainted
 * TAINT_LIVEPATCH, and 6.1's trace_module_has_bad_taint() does not list
 * that taint among the harmless ones, so the kernel silently skips the
 * trace events of a livepatch module ("module has bad taint, not creating
 * trace events"; 6.12 accepts it).  This plain module defines them and
 * exports them to bhtune.ko, which therefore needs it loaded first.
 */
#include <linux/module.h>

#define CREATE_TRACE_POINTS
#include "bhtune_trace.h"

EXPORT_TRACEPOINT_SYMBOL_GPL(bhtune_lookup);
EXPORT_TRACEPOINT_SYMBOL_GPL(bhtune_invalidate);
EXPORT_TRACEPOINT_SYMBOL_GPL(bhtune_batch);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Tracepoints of bhtune (bhtune:bhtune_lookup, bhtune_invalidate, bhtune_batch)");
