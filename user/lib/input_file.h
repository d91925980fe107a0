/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading an input file whole, the one way for every file a user names
 * (records, the serve config, traces): a regular file, or standard input
 * for "-" where the command offers it, and never more than a bound.
 *
 * A FIFO, device, socket or directory is refused at once: opening does not
 * wait for a writer (O_NONBLOCK), and nothing endless (/dev/zero) is read.
 */
#ifndef BHSCOPE_INPUT_FILE_H
#define BHSCOPE_INPUT_FILE_H

#include <stddef.h>

/* "-" means standard input (a pipe, a FIFO or a file: what the user gave). */
#define INPUT_FILE_STDIN	0x1

/*
 * Reads path (at most max bytes) into a new NUL-terminated buffer in *data
 * (the caller frees it), its length in *len. Returns 0, or -1 with errno
 * set and a one-line reason in err, worded to follow errmsg()'s "PATH: ".
 */
int input_file_read(const char *path, size_t max, int flags, char **data,
		    size_t *len, char *err, size_t errlen);

/*
 * Opens path for reading as input_file_read() does (the same checks, no
 * read): a regular file's descriptor, or 0 for "-" with INPUT_FILE_STDIN.
 * For readers that stream a large file. Returns the fd, or -1 with errno
 * set and a reason in err.
 */
int input_file_open(const char *path, int flags, char *err, size_t errlen);

#endif /* BHSCOPE_INPUT_FILE_H */
