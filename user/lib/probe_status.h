/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether a figure (or the probe behind it) is available on this kernel,
 * where it comes from, or why not: the one type every tracer, report,
 * record and exporter uses for it. Plus the words for why a BPF program
 * could not load or attach.
 */
#ifndef BHSCOPE_PROBE_STATUS_H
#define BHSCOPE_PROBE_STATUS_H

#include <stdbool.h>
#include <stddef.h>

struct probe_status {
	bool available;
	char source[160];	/* when available: the hook it comes from */
	char why[800];		/* when unavailable: the reason, one line */
};

/* Marks st available, from the hook fmt names. */
void __attribute__((format(printf, 2, 3)))
probe_status_from(struct probe_status *st, const char *fmt, ...);

/* Marks st unavailable, for the reason fmt gives. */
void __attribute__((format(printf, 2, 3)))
probe_status_missing(struct probe_status *st, const char *fmt, ...);

/* The kernel's lockdown mode ("none", "integrity", ...), or NULL if unknown. */
const char *probe_status_lockdown_mode(void);

/*
 * Why a program of kind ("fentry/fexit", "kprobe", ...) on target failed
 * with err (a negative errno from libbpf), in words a user can act on.
 */
void probe_status_reason(char *buf, size_t len, const char *kind, const char *target,
			 int err);

/*
 * What kind of reason why is, from the words probe_status_reason() and the
 * tracers use: "refused" (the kernel refuses that kind of program here,
 * by its configuration or policy), "absent" (the hook is not in this
 * kernel), "not_chosen" (another hook gives the figure) or "failed"
 * (anything else: a bug or a broken setup, worth an alert).
 */
const char *probe_status_cause(const char *why);

#endif /* BHSCOPE_PROBE_STATUS_H */
