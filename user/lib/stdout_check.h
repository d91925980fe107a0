/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Standard output that could not be written is an error, for every command
 * and for --help: `bhscope compare --csv a b > /dev/full` must not exit 0
 * with an empty file. The check runs once, at the end (a full disk, a
 * closed pipe, EIO), and says so in one line.
 */
#ifndef BHSCOPE_STDOUT_CHECK_H
#define BHSCOPE_STDOUT_CHECK_H

/*
 * Registers the check at exit too, for paths that end in exit() (argp's
 * --help, --usage and usage errors); it then turns status 0 into 1. Call
 * it before anything is written: into a file or a pipe it gives standard
 * output a 64 KiB buffer.
 */
void stdout_check_at_exit(void);

/*
 * Notes why a write to standard output failed (errno), for the one line at
 * the end: the stream keeps only that it failed, not why.
 */
void stdout_check_note(int err);

/*
 * Flushes and closes standard output. Returns 0, or -1 after printing
 * errmsg("writing standard output: REASON").
 */
int stdout_check(void);

#endif /* BHSCOPE_STDOUT_CHECK_H */
