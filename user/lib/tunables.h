/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tunables bhscope knows, and the one place that reads and writes them
 * for tune, record, sweep and serve:
 *  - bhtune.ko's parameters (the LRU size, and the jbd2 batch times it
 *    imposes on every journal or on the one of batch_dev);
 *  - each journal's own batch times and commit interval (ext4's
 *    min_batch_time, max_batch_time and commit options).
 * Reading them: tunables_bhtune_read(), tunables_journals_list();
 * writing them (bhtune's parameters, an ext4 remount): tunables_apply().
 */
#ifndef BHSCOPE_TUNABLES_H
#define BHSCOPE_TUNABLES_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#define BHTUNE_PARAMS_DIR	"/sys/module/bhtune/parameters"

/*
 * jbd2's and ext4's defaults (journal_init_common, EXT4_DEF_*_BATCH_TIME,
 * JBD2_DEFAULT_MAX_COMMIT_AGE), in force where no ext4 option says more.
 */
#define JBD2_DEFAULT_MIN_BATCH_US	0
#define JBD2_DEFAULT_MAX_BATCH_US	15000
#define JBD2_DEFAULT_COMMIT_S		5
/* The largest batch time bhscope and bhtune.ko accept, µs (one second). */
#define BATCH_US_MAX			1000000

/* A bhtune parameter that is not there (module absent, or older). */
#define BHTUNE_ABSENT	(-1000000000L)

/* True when bhtune.ko is loaded (its parameters directory exists). */
bool tunables_bhtune_loaded(void);

/*
 * Why bhtune.ko cannot be loaded on this kernel (no CONFIG_MODULES, no
 * CONFIG_LIVEPATCH), or NULL when nothing is known to stop it.
 */
const char *tunables_bhtune_unavailable(void);

/* Reads a numeric parameter. Returns 0, or a negative errno. */
int tunables_bhtune_get(const char *name, long *value);

/* The same, of any module's parameter (/sys/module/MODULE/parameters). */
int tunables_module_param_get(const char *module, const char *name,
			      long *value);

/* bhtune's parameters, as one snapshot. */
struct bhtune_params {
	bool loaded;		/* the parameters directory exists */
	long lru_size;		/* BHTUNE_ABSENT when not there */
	long batch_min_us;	/* -1: each filesystem's own; or ABSENT */
	long batch_max_us;
	char batch_dev[32];	/* "MAJOR:MINOR" of the one journal, "": all */
};

void tunables_bhtune_read(struct bhtune_params *b);

/* One numeric parameter, for listing them all. */
struct bhtune_param {
	char name[64];
	long value;
};

/*
 * Every readable numeric parameter, by name. Returns the count (and *out,
 * to free; 0 when bhtune is not loaded), or a negative errno.
 */
int tunables_bhtune_list(struct bhtune_param **out);

/* Where a journal's batch times come from. */
enum tunables_from {
	TUNABLES_DEFAULT,		/* jbd2's defaults */
	TUNABLES_EXT4_OPTIONS,		/* /proc/fs/ext4/<dev>/options */
	TUNABLES_MOUNT_OPTIONS,		/* the mount's super options */
	TUNABLES_BHTUNE,		/* bhtune.ko imposes them */
};

/* A journal's batch times (µs) and commit interval (s). */
struct journal_tunables {
	char dev[64];		/* the filesystem's device, as jbd2 names it */
	char mnt[512];		/* a mount point, "" when not found */
	long min_batch_us;
	long max_batch_us;
	long commit_s;
	enum tunables_from from;
};

/*
 * A non-negative numeric key=value option from a list split by commas or
 * whitespace (/proc/fs/ext4/<dev>/options, mount options); -1 if absent.
 */
long tunables_option_value(const char *options, const char *key);

/* jbd2's defaults, then what an option list sets of them. */
void tunables_journal_parse(const char *options, struct journal_tunables *j);

/*
 * The batch times of the ext4 on dev ("loop0") from its options file (ext4
 * lists every option there, defaults included); jbd2's defaults and false
 * when there is no such file. Sets neither dev nor mnt.
 */
bool tunables_journal_read(const char *dev, struct journal_tunables *j);

/*
 * Every journal in /proc/fs/jbd2, with its filesystem's batch times and a
 * mount point. Returns the count (and *out, to free), or a negative errno.
 */
int tunables_journals_list(struct journal_tunables **out);

/* The "MAJOR:MINOR" of a block device ("loop0"), "" if unknown. */
void tunables_dev_numbers(const char *dev, char *buf, size_t len);

/*
 * Applies bhtune's batch times to a journal whose device is numbers
 * ("MAJOR:MINOR", "" if unknown): those set (>= 0), when batch_dev is
 * empty or names that device. Returns whether they did.
 */
bool tunables_journal_apply_bhtune(struct journal_tunables *j,
				   const struct bhtune_params *b,
				   const char *numbers);

/* Writes a parameter. Returns 0, or a negative errno (-EINVAL: refused). */
int tunables_bhtune_set(const char *name, const char *value);

/* The same with a number. */
int tunables_bhtune_set_long(const char *name, long value);

/*
 * Sets bhtune's batch_min_us and batch_max_us as a pair (-1: each
 * journal's own), the one way tune and sweep do. bhtune refuses any moment
 * where a min would exceed a max, so from one valid pair to another the
 * max goes first unless the new max is below the old min; a refusal puts
 * the old pair back. Returns 0, or a negative errno (-EINVAL: refused).
 */
int tunables_bhtune_batch_set(long min_us, long max_us);

/* A batch time tunables_apply() leaves as it is. */
#define TUNABLES_KEEP	LONG_MIN

/* Tunables to write, or that were found (to put back). */
struct tunables_values {
	const char *batch_dev;	/* bhtune's batch_dev, NULL: as it is */
	bool lru;		/* lru_size is (bhtune's) */
	long lru_size;
	bool batch;		/* the batch times are, but a TUNABLES_KEEP */
	long min_us, max_us;	/* a journal's; bhtune's (-1: each one's own) */
};

/*
 * The one writer of tune and sweep: batch_dev and lru_size through
 * bhtune, then the batch times, through bhtune
 * (tunables_bhtune_batch_set() for a pair, or the one given) when mnt is
 * NULL, else by remounting the ext4 on mnt (both given:
 * tunables_journal_remount()). Returns 0, or -1 with a one-line
 * reason in err ("bhtune refused lru_size=65: out of range").
 */
int tunables_apply(const struct tunables_values *v, const char *mnt,
		   char *err, size_t errlen);

struct tunables_claim;
struct tunables_saved;

/*
 * Puts back the values saved for claim c (tunables_lock_*()), by
 * tunables_apply() (a journal's by remounting mnt), then removes the state
 * file: at the end of a sweep, and where a tuner killed first left them.
 * A journal no longer mounted (its next mount takes its own options) or a
 * bhtune.ko unloaded since leaves nothing to put back: the file is
 * removed. Returns 1 when it put something back (what, in *done if not
 * NULL), 0 when there was nothing, -1 with a one-line reason in err (the
 * state file stays, for the next claimer).
 */
int tunables_restore(const struct tunables_claim *c, const char *mnt,
		     struct tunables_saved *done, char *err, size_t errlen);

/* "min_batch_time=MIN,max_batch_time=MAX": the options a remount sets. */
void tunables_journal_options(long min_us, long max_us, char *buf, size_t len);

/*
 * Whether a journal may be given these batch times: every remount goes
 * through this one check. jbd2 applies the max after the min
 * (jbd2_journal_stop), so a min above the max would silently do nothing.
 * Returns 0, or -1 with a one-line reason in why.
 */
int tunables_batch_check(long min_us, long max_us, char *why, size_t len);

/*
 * Remounts the ext4 mounted on mnt with these batch times (mount(2); the
 * mount's flags are kept, and ext4 keeps the options not named). Returns
 * 0, or -1 with a one-line reason in err.
 */
int tunables_journal_remount(const char *mnt, long min_us, long max_us,
			     char *err, size_t errlen);

#endif /* BHSCOPE_TUNABLES_H */
