/* SPDX-License-Identifier: GPL-2.0 */
/* Writing a record file, all or nothing (atomic_file_write()). */
#ifndef BHSCOPE_RECORD_WRITE_H
#define BHSCOPE_RECORD_WRITE_H

#include <json-c/json.h>
#include <stddef.h>

/* Writes o, pretty-printed, to path atomically; prints the error. */
int record_write_json(const char *path, struct json_object *o);

#endif /* BHSCOPE_RECORD_WRITE_H */
