/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loading the LRU tracer on whatever this kernel allows, and reading its
 * maps: shared by `bhscope lru` and any subcommand that wants LRU figures
 * (record, serve), as jbd2_load.h is for jbd2. Its functions are
 * lru_session_*().
 *
 * The hooks (struct lru_hooks) are chosen by really loading and attaching
 * them, best first (lru_session_open()); the maps are read by
 * lru_session_read(), which attaches nothing. The lookup is
 * find_get_block_common where it exists (6.15+, 6.12.31+), else
 * __find_get_block. Each figure records where it came from, or why it is
 * missing (--probes prints that: lru_hooks_print()).
 */
#ifndef BHSCOPE_LRU_SESSION_H
#define BHSCOPE_LRU_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/devname.h"
#include "lru/lru_hooks.h"
#include "lru/lru_owner.h"
#include "lru/lru_snapshot.h"

struct lru_bpf;
struct lru_timing_cycle;
struct bpf_link;
struct bpf_program;


/* A program that runs, and what it is attached to (for --self-cost). */
struct lru_attached {
	struct bpf_program *prog;
	struct bpf_link *link;
	char what[96];		/* "fentry find_get_block_common" */
	bool per_lookup;	/* runs once per lookup */
	bool lookup_exit;	/* the lookup's exit probe: its skipped runs
				 * (recursion_misses) are lost lookups */
	bool sees_emptied;	/* sees LRUs emptied: a skipped run leaves
				 * the model blind to one emptying */
	bool sees_disable;	/* counts lru_cache_disable() calls: a
				 * skipped run voids the deferred hook's
				 * proof of absent */
	bool timing;		/* starts --timing's timings only: a skipped
				 * run loses a time, not a lookup */
};

#define LRU_MAX_ATTACHED 24

struct lru_session {
	struct lru_bpf *skel;
	int nr_cpus;
	struct lru_hooks hooks;		/* what it runs on: for reports */
	struct lru_attached att[LRU_MAX_ATTACHED];
	int nr_att;
	/*
	 * The lookup that cannot sleep (__find_get_block) proven by its exit
	 * probe alone, while the preemption model switches no task inside
	 * it: its entry probe's slot in att[] (link NULL until it is
	 * attached, when the model is switched), or -1.
	 */
	int solo_entry;
	/*
	 * The deferred hook's program in att[], or -1; and the first of the
	 * exit design's entry and exit slots that replace it on a
	 * preemption-model switch (attached then).
	 */
	int deferred_at;
	int fallback_at;
	struct lru_owner owner;		/* who ran the lookup at load */
	/* livepatch transitions are counted, and the count at load */
	bool livepatch_watched;
	uint64_t livepatch_gen;
	/* lookup probe runs the kernel skipped, at the last read */
	uint64_t lookup_misses;
	/* /proc/stat's busy CPU time at the open: snapshots count from it */
	uint64_t busy_at_open;
	/* --timing's windows, where its program is attached for them only */
	struct lru_timing_cycle *timing_cycle;
	bool quiet;			/* opts->quiet: the caller says it */
};

/*
 * Loads and attaches the best hooks opts allow. Returns 0, or a negative
 * errno after printing one "bhscope: ..." line (s->hooks.tried says why each
 * mode failed): -EBUSY while a livepatch it cannot trace replaces the
 * lookup, -EAGAIN while a livepatch transition on it runs.
 */
int lru_session_open(struct lru_session *s, const struct lru_load_opts *opts);

void lru_session_close(struct lru_session *s);

/*
 * The current LRU size (bhtune's may change at run time): each snapshot
 * has it, as of its read.
 */
int lru_session_lru_size(const struct lru_session *s);

/*
 * A read attaches and changes nothing: whoever reads a session rechecks
 * it around each read, the preemption model before and the owner after
 * the counts, so a read whose counts may mix two owners is marked (the
 * recheck runs whether or not the read failed). lru_session_interval()
 * does the three in that order.
 */
/*
 * Before a read. Where the lookup's exit probe proves it alone: attaches
 * its entry probe if the preemption model was switched or allows a
 * switch inside the lookup now. Lookups from the switch to the attach are
 * unsynced: the exit sees the switch.
 */
void lru_session_recheck_preempt(struct lru_session *s);

/*
 * Before a read, with the deferred hook: settles each CPU's last lookup
 * (classified at the next entry otherwise), from a thread pinned there.
 */
void lru_session_settle(struct lru_session *s);

/*
 * After a read: whether the lookup's owner is still the one the hooks
 * were chosen for. If not, it sets s->hooks.unavailable, and that of the
 * snapshot just read (snap, or NULL), says so on stderr once, and
 * returns false.
 */
bool lru_session_recheck_owner(struct lru_session *s,
			       struct lru_snapshot *snap);

/*
 * Reads every device and the per-CPU counters (snap->nr_cpus is set),
 * then the LRU's size and a copy of the hooks, so the reports read the
 * snapshot alone.
 */
int lru_session_read(struct lru_session *s, struct lru_snapshot *snap);

/* One interval's read, the session rechecked around it. 0 or -errno. */
static inline int lru_session_interval(struct lru_session *s,
				       struct lru_snapshot *snap)
{
	int err;

	lru_session_recheck_preempt(s);
	lru_session_settle(s);
	err = lru_session_read(s, snap);
	lru_session_recheck_owner(s, snap);
	return err;
}

/*
 * Drops the counters of every device for which present(kdev, arg) is
 * false, so they are not reported again (bhscope serve, for devices that
 * went away). 0 or a negative errno.
 */
int lru_session_forget_devices(struct lru_session *s, dev_present_fn present,
			       void *arg);

/* The --trace ring buffer's fd. */
int lru_session_events_fd(const struct lru_session *s);

/*
 * Runs prog (a raw_tp program of the session) on each CPU, in an IPI, so
 * that it changes that CPU's state with no probe of it in flight there;
 * an offline CPU is skipped.
 */
void lru_session_run_on_each_cpu(struct lru_session *s,
				 struct bpf_program *prog);

#endif /* BHSCOPE_LRU_SESSION_H */
