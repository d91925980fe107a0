/* SPDX-License-Identifier: GPL-2.0 */
/* A comparison as a text table (seeds' style), JSON, CSV or Markdown. */
#ifndef BHSCOPE_COMPARE_PRINT_H
#define BHSCOPE_COMPARE_PRINT_H

#include <json-c/json.h>
#include <stdio.h>

#include "analyse/compare_model.h"

#define COMPARE_JSON_SCHEMA	"bhscope.compare/1"

void compare_print_text(FILE *out, const struct cmp_table *t);
void compare_print_csv(FILE *out, const struct cmp_table *t);
void compare_print_markdown(FILE *out, const struct cmp_table *t);
struct json_object *compare_print_json(const struct cmp_table *t);

/* A value with as many decimals as its size deserves: 8366, 636.6, 6.33. */
void compare_print_value(char *buf, size_t len, double v);

/* "+12.3%", "-86.4%", "n/a"; with a trailing "~" when within the noise. */
void compare_print_change(char *buf, size_t len, const struct cmp_cell *c);

#endif /* BHSCOPE_COMPARE_PRINT_H */
