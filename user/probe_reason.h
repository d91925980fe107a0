/* SPDX-License-Identifier: GPL-2.0 */
/* One-line explanations of why a BPF program could not load or attach. */
#ifndef BHSCOPE_PROBE_REASON_H
#define BHSCOPE_PROBE_REASON_H

#include <stddef.h>

/* The kernel's lockdown mode ("none", "integrity", ...), or NULL if unknown. */
const char *probe_lockdown_mode(void);

/*
 * Why a program of kind ("fentry/fexit", "kprobe", ...) on target failed
 * with err (a negative errno from libbpf), in words a user can act on.
 */
void probe_reason(char *buf, size_t len, const char *kind, const char *target,
		  int err);

#endif /* BHSCOPE_PROBE_REASON_H */
