/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One tuner at a time, and originals a kill cannot lose.
 *
 * A command that changes a journal's batch times (by remount) or
 * bhtune.ko's parameters first claims them: flock(2) on
 * /run/bhscope-tune/NAME.lock, NAME being "journal-MAJOR:MINOR" (the
 * filesystem's device) or "bhtune". The kernel drops the lock when its
 * holder dies, SIGKILL included; a second claim is refused at once, with
 * the holder's pid and command. Lock files are never removed (removing one
 * would let two holders lock two files of one name).
 *
 * A command that changes them only for a while (sweep) saves what it found
 * in NAME.state (written all or nothing, synced) before its first change
 * and removes it once they are put back. A state file found by the next
 * claimer means its writer died first: tunables_restore() puts the
 * originals back from it.
 */
#ifndef BHSCOPE_TUNABLES_LOCK_H
#define BHSCOPE_TUNABLES_LOCK_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/tunables.h"

/*
 * Not /run/bhscope: bhscope.service's RuntimeDirectory, which systemd
 * removes, files and all, when the service stops. In /run, what a reboot
 * clears: the remounts and bhtune's parameters go with it.
 */
#define TUNABLES_RUN_DIR	"/run/bhscope-tune"

struct tunables_claim {
	int fd;			/* the lock file, -1 when not held */
	int dirfd;		/* the run directory, -1 when not open */
	bool bhtune;		/* bhtune.ko's parameters, else a journal */
	char name[48];		/* "journal-7:0", "bhtune" */
	char what[128];		/* "the journal of loop0 (7:0)", for messages */
};

/* What a tuner found, to put back. */
struct tunables_saved {
	long pid;		/* the tuner that saved it */
	char by[32];		/* its command: "sweep" */
	struct tunables_values v;	/* what it found */
};

/* For tests: the directory of the lock and state files (default above). */
void tunables_lock_dir_set(const char *dir);

/*
 * Claims the journal of the filesystem on device major:minor (devname: its
 * name, for messages) for command by ("sweep", "tune set"). Returns 0, or
 * -1 with a one-line reason in err: held by another bhscope, or the lock
 * could not be made.
 */
int tunables_lock_journal(struct tunables_claim *c, unsigned int major,
			  unsigned int minor, const char *devname,
			  const char *by, char *err, size_t errlen);

/* The same for bhtune.ko's parameters. */
int tunables_lock_bhtune(struct tunables_claim *c, const char *by,
			 char *err, size_t errlen);

/* Drops the lock (the state file stays); safe on a claim never made. */
void tunables_lock_release(struct tunables_claim *c);

/* A claim that holds nothing, for tunables_lock_release() to skip. */
#define TUNABLES_CLAIM_NONE	{ .fd = -1, .dirfd = -1 }

/*
 * Saves s (pid and by are filled in) as the claim's state file. Returns
 * 0, or -1 with a one-line reason in err.
 */
int tunables_lock_save(const struct tunables_claim *c,
		       struct tunables_saved *s, const char *by, char *err,
		       size_t errlen);

/* Reads the claim's state file: 1 found, 0 none, -1 unreadable (err). */
int tunables_lock_saved(const struct tunables_claim *c,
			struct tunables_saved *s, char *err, size_t errlen);

/* Removes the claim's state file (none is fine). */
void tunables_lock_drop(const struct tunables_claim *c);

/* "lru_size 16, batch times 300/15000 us": what s holds, for messages. */
void tunables_lock_describe(const struct tunables_saved *s, char *buf,
			    size_t len);

/*
 * The note of a tuner that put back what a killed one left, one errmsg()
 * line: "WHAT: put back ..., left changed by a bhscope sweep (pid N) that
 * ended before it could".
 */
void tunables_lock_note(const struct tunables_claim *c,
			const struct tunables_saved *s);

#endif /* BHSCOPE_TUNABLES_LOCK_H */
