/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tunables bhscope knows: bhtune.ko's parameters (the LRU size and the
 * jbd2 batch times it imposes) and each mounted journal's own batch times
 * (ext4's min_batch_time / max_batch_time, µs). One place reads and writes
 * them for tune, record, sweep and serve.
 */
#ifndef BHSCOPE_TUNABLES_H
#define BHSCOPE_TUNABLES_H

#include <stdbool.h>
#include <stddef.h>

#define BHTUNE_PARAMS_DIR	"/sys/module/bhtune/parameters"

/* jbd2's and ext4's defaults (journal_init_common, EXT4_DEF_*_BATCH_TIME). */
#define JBD2_DEFAULT_MIN_BATCH_US	0
#define JBD2_DEFAULT_MAX_BATCH_US	15000
/* The largest batch time bhscope and bhtune.ko accept, µs (one second). */
#define BATCH_US_MAX			1000000

/*
 * Whether a journal may be given these batch times: jbd2 applies the max
 * after the min (jbd2_journal_stop), so a min above the max would silently
 * do nothing. Returns 0, or -1 with the reason in @why (one line).
 */
int batch_times_check(long min_us, long max_us, char *why, size_t len);

/* True when bhtune.ko is loaded. */
bool bhtune_loaded(void);

/*
 * Why bhtune.ko cannot be loaded on this kernel (no CONFIG_MODULES, no
 * CONFIG_LIVEPATCH), or NULL when nothing is known to stop it.
 */
const char *bhtune_unavailable_reason(void);

/* Reads a numeric parameter. Returns 0, or a negative errno. */
int bhtune_param_get(const char *name, long *value);

/* Writes a parameter. Returns 0, or a negative errno (-EINVAL: refused). */
int bhtune_param_set(const char *name, const char *value);

struct journal_tunables {
	char dev[64];		/* the filesystem's device, as jbd2 names it */
	char mnt[512];		/* a mount point, "" when not found */
	long min_batch_us;
	long max_batch_us;
	bool from_ext4;		/* from /proc/fs/ext4/<dev>/options, else defaults */
};

/*
 * Every journal in /proc/fs/jbd2, with its filesystem's batch times.
 * Returns the count (and *out, to free), or a negative errno.
 */
int journals_list(struct journal_tunables **out);

/*
 * A non-negative numeric key=value option from a list split by commas or
 * whitespace (/proc/fs/ext4/<dev>/options, mount options); -1 if absent.
 */
long options_value(const char *options, const char *key);

#endif /* BHSCOPE_TUNABLES_H */
