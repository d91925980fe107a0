/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a bhscope.record file back: parse, check the schema and the
 * fields every reader relies on, and say in one line what is wrong.
 */
#ifndef BHSCOPE_RECORD_READ_H
#define BHSCOPE_RECORD_READ_H

#include <json-c/json.h>
#include <stddef.h>

#include "record/record_check.h"

/*
 * Reads and checks path ("-" is standard input): a regular file of at most
 * 64 MiB, one JSON document, checked by record_check(). On success returns 0 and the record in *root
 * (caller puts it). On failure returns -1 with the problem in err, worded
 * to follow errmsg()'s "FILE: ".
 */
int record_read(const char *path, struct json_object **root, char *err,
		size_t errlen);

/* The same for size bytes already in memory (a fuzzer's input). */
int record_read_parse(const char *buf, size_t size, struct json_object **root,
		      char *err, size_t errlen);

#endif /* BHSCOPE_RECORD_READ_H */
