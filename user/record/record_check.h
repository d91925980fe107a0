/* SPDX-License-Identifier: GPL-2.0 */
/* What a record must look like before anything reads it. */
#ifndef BHSCOPE_RECORD_CHECK_H
#define BHSCOPE_RECORD_CHECK_H

#include <json-c/json.h>
#include <stddef.h>

/*
 * Checks a parsed document as record_read() does: the schema, and the
 * type and range of every field a reader takes (the tracers' compared
 * figures among them); every number finite. -1 with the field's path in
 * err.
 */
int record_check(struct json_object *root, char *err, size_t errlen);

#endif /* BHSCOPE_RECORD_CHECK_H */
