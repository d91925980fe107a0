/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loading the jbd2 BPF programs and reading their maps: shared by
 * `bhscope jbd2` (intervals) and `bhscope serve` (cumulative exposition).
 */
#ifndef BHSCOPE_JBD2_LOAD_H
#define BHSCOPE_JBD2_LOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/devname.h"
#include "lib/probe_status.h"
#include "jbd2/jbd2_snapshot.h"

struct jbd2_bpf;

/* Which programs give the events (bhscope jbd2 --hook). */
enum jbd2_hook {
	JBD2_HOOK_AUTO,		/* the first flavour below that loads */
	JBD2_HOOK_BTF,		/* tp_btf only */
	JBD2_HOOK_RAW,		/* raw_tp only */
	JBD2_HOOK_TRACEPOINT,	/* classic only */
};

/* The kinds of event programs, in the order auto tries them. */
enum jbd2_flavour {
	JBD2_TP_BTF,		/* BTF tracepoints: typed arguments, every
				 * skipped run counted */
	JBD2_RAW_TP,		/* raw tracepoints: the same, read through
				 * CO-RE; need no tracefs, no perf event, no
				 * module BTF from the kernel */
	JBD2_TRACEPOINT,	/* classic: tracefs ids, a perf event; skipped
				 * under a busy CPU's guard */
	JBD2_NR_FLAVOURS,
};

/* The flavour of the loaded event programs. */
enum jbd2_flavour jbd2_load_events_flavour(const struct jbd2_bpf *skel);

/* "tp_btf", "raw_tp", "tracepoint": a flavour's name in reports. */
const char *jbd2_load_flavour_name(enum jbd2_flavour f);

/* Its programs' name prefix in the skeleton: "btf_", "raw_", "tp_". */
const char *jbd2_load_flavour_prefix(enum jbd2_flavour f);

/* "auto", "btf", "raw" or "tracepoint" into *hook; -1 for anything else. */
int jbd2_load_hook_parse(const char *s, enum jbd2_hook *hook);

/* The first jbd2 tracepoint the programs need that this kernel lacks, or NULL. */
const char *jbd2_load_missing_tracepoint(void);

/*
 * Opens, loads and attaches the jbd2 programs for kdev (0: every journal),
 * from the tracepoints hook names: for each flavour it allows, in order,
 * with the fentry/fexit pair on jbd2_journal_stop, then without. events,
 * batch_sleep and checkpoints say what ran and why not. Returns NULL after
 * printing one line on stderr when no flavour loads; *err (optional) then
 * holds the negative errno.
 */
struct jbd2_bpf *jbd2_load(uint32_t kdev, enum jbd2_hook hook,
			   struct probe_status *events,
			   struct probe_status *batch_sleep,
			   struct probe_status *checkpoints, int *err);

/*
 * Adds every device of the per-CPU map to snap (snap->nr_cpus set), and
 * the events lost to runs the kernel skipped.
 */
int jbd2_load_read_snapshot(struct jbd2_bpf *skel, struct jbd2_snapshot *snap);

/*
 * Drops the counters of every journal device for which present(kdev, arg)
 * is false, so they are not reported again (bhscope serve, for devices
 * that went away). 0 or a negative errno.
 */
int jbd2_load_forget_devices(struct jbd2_bpf *skel, dev_present_fn present,
			     void *arg);

#endif /* BHSCOPE_JBD2_LOAD_H */
