/* SPDX-License-Identifier: GPL-2.0 */
/* The machine a record was taken on: kernel, CPUs, HZ, host name. */
#ifndef BHSCOPE_RECORD_HOST_H
#define BHSCOPE_RECORD_HOST_H

#include <json-c/json.h>

/* The host's object; possible: its possible CPUs (<= 0: unknown). */
struct json_object *record_host_json(int possible);

#endif /* BHSCOPE_RECORD_HOST_H */
