/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writing a file all or nothing: into a temporary file in the same
 * directory, fsync, then rename over the target. A full disk or any other
 * error leaves no partial file behind.
 */
#ifndef BHSCOPE_RECORD_WRITE_H
#define BHSCOPE_RECORD_WRITE_H

#include <json-c/json.h>
#include <stddef.h>

/* Writes len bytes to path atomically. 0, or -1 with errno set. */
int record_write_atomic(const char *path, const char *data, size_t len);

/* Writes o, pretty-printed, to path atomically; prints the error. */
int record_write_json(const char *path, struct json_object *o);

#endif /* BHSCOPE_RECORD_WRITE_H */
