/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `bhscope lru --probes`: which hook each figure comes from on this kernel,
 * and why any figure or hook kind is missing.
 */
#ifndef BHSCOPE_LRU_PROBES_H
#define BHSCOPE_LRU_PROBES_H

#include <json-c/json.h>
#include <stdio.h>

#include "lru/lru_hooks.h"

#define LRU_PROBES_JSON_SCHEMA "bhscope.lru-probes/1"

/* loaded: lru_load() succeeded (else only the reasons are known). */
void lru_probes_print(FILE *out, const struct lru_hooks *h, bool loaded);
struct json_object *lru_probes_json(const struct lru_hooks *h, bool loaded);

#endif /* BHSCOPE_LRU_PROBES_H */
