/* SPDX-License-Identifier: GPL-2.0 */
/* fs_mark's result table, read from its standard output. */
#ifndef BHSCOPE_RECORD_FSMARK_H
#define BHSCOPE_RECORD_FSMARK_H

#include <json-c/json.h>

/* True when argv0 names fs_mark (by its base name). */
int record_fsmark_is(const char *argv0);

/*
 * The rows under fs_mark's "FSUse% Count Size Files/sec App Overhead"
 * header as {"rows":[{...}], "files_per_sec": mean over rows}; NULL when
 * the output holds no such table.
 */
struct json_object *record_fsmark_parse(const char *out);

#endif /* BHSCOPE_RECORD_FSMARK_H */
