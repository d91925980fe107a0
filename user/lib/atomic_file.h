/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writing a file all or nothing: into a temporary file in the same
 * directory, then rename over the target. A full disk or any other error
 * leaves no partial file behind, and the old file, if any, stays whole.
 *
 * bhscope runs as root: the target must be a regular file or a new name.
 * A symlink, device, FIFO, socket or directory there is refused, never
 * replaced or followed.
 */
#ifndef BHSCOPE_ATOMIC_FILE_H
#define BHSCOPE_ATOMIC_FILE_H

#include <stddef.h>

/* Also fsync the file and its directory before returning. */
#define ATOMIC_FILE_SYNC	0x1

/*
 * Writes len bytes to path (relative to dirfd, or AT_FDCWD) with mode
 * 0644. Returns 0, or -1 with errno set and a one-line reason (naming
 * path) in err.
 */
int atomic_file_write(int dirfd, const char *path, const void *data,
		      size_t len, int flags, char *err, size_t errlen);

/*
 * Whether path may be written by atomic_file_write(): a file name (not
 * empty, not ending in '/'), a regular file or a new name in a directory
 * that is there and writable. 0, or -1 with errno set and a one-line
 * reason in err. For commands that check their output before a long run.
 */
int atomic_file_check(int dirfd, const char *path, char *err, size_t errlen);

/*
 * A file written as a stream (a trace) that must not replace path until
 * its first bytes (a header) are written: atomic_file_begin() opens a new
 * temporary file beside path (its name into tmp, at least PATH_MAX + 64
 * bytes) and returns its descriptor, or -1 with errno set and a reason in
 * err; the caller writes the header, then atomic_file_commit() renames the
 * file over path (checked again) and the stream goes on, or on a failure
 * atomic_file_discard() removes it: a full disk leaves nothing, or the
 * previous file whole. Between the two, the caller blocks the stop
 * signals, as atomic_file_write() does.
 */
int atomic_file_begin(int dirfd, const char *path, char *tmp, size_t tmplen,
		      char *err, size_t errlen);
int atomic_file_commit(int dirfd, const char *tmp, const char *path,
		       char *err, size_t errlen);
void atomic_file_discard(int dirfd, const char *tmp);

#endif /* BHSCOPE_ATOMIC_FILE_H */
