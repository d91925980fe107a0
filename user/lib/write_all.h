/* SPDX-License-Identifier: GPL-2.0 */
/* Writing a whole buffer: through short writes and EINTR. */
#ifndef BHSCOPE_WRITE_ALL_H
#define BHSCOPE_WRITE_ALL_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Writes len bytes of buf to fd, at its position (at < 0) or from offset
 * at (pwrite). Returns 0, or a negative errno, errno set too (a write of
 * nothing, a full device: -ENOSPC).
 */
int write_all(int fd, const void *buf, size_t len, off_t at);

#endif /* BHSCOPE_WRITE_ALL_H */
