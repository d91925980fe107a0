/* SPDX-License-Identifier: GPL-2.0 */
/* What a live subcommand needs from the host before it loads BPF. */
#ifndef BHSCOPE_ENV_H
#define BHSCOPE_ENV_H

#include <stdbool.h>

/*
 * Checks for root or CAP_BPF + CAP_PERFMON (CAP_SYS_ADMIN on old kernels)
 * and kernel BTF: prints one line saying what is missing and returns -1
 * when something is. Mounts tracefs when it is absent; a tracefs that
 * cannot be read is no error (BTF tracepoints, fentry and kprobes do not
 * need it): env_tracefs_why() then says why, for what needs it.
 */
int env_prepare_tracing(void);

/*
 * Why tracefs cannot be read, one line, or NULL when it can (as far as
 * env_prepare_tracing() found). Classic tracepoints need it for their ids.
 */
const char *env_tracefs_why(void);

/* What a command is about to do, for env_check_privileges(). */
enum {
	ENV_TRACE = 1 << 0,	/* load BPF: root, or CAP_BPF + CAP_PERFMON */
	ENV_TUNE = 1 << 1,	/* remount, write bhtune's parameters: root */
};

/*
 * Checks the capabilities needs asks for before anything is done, so an
 * unprivileged user gets one line saying what is missing (not the errors
 * of half a run). Returns 0, or -1 after that line.
 */
int env_check_privileges(int needs);

/*
 * Keeps CAP_BPF and CAP_PERFMON only, the capabilities bhscope.service
 * grants (bhscope.service), so that what loads now is what
 * loads for the service: without CAP_SYS_ADMIN, libbpf cannot read kernel
 * modules' BTF (BPF_BTF_GET_NEXT_ID), so a BTF tracepoint or CO-RE
 * relocation on a module such as jbd2 fails where it would not for root.
 * The user id stays: a root-owned tracefs stays readable. 0 or -1.
 */
int env_drop_to_service_caps(void);

/* Whether cap (CAP_SYS_ADMIN, ...) is in the effective set. */
bool env_capable(int cap);

/* Routes libbpf's messages: silent unless verbose (BHSCOPE_DEBUG=1). */
void env_setup_libbpf_logging(void);

/*
 * True when the tracepoint category/name exists on this kernel: in tracefs,
 * or, where tracefs cannot be read, as a BTF tracepoint in the kernel's BTF.
 */
bool env_tracepoint_exists(const char *category, const char *name);

/* The running kernel's release string (uname -r). */
const char *env_kernel_release(void);

#endif /* BHSCOPE_ENV_H */
