// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lib/env.h"
#include "lib/probe_status.h"

void probe_status_from(struct probe_status *st, const char *fmt, ...)
{
	va_list ap;

	st->available = true;
	va_start(ap, fmt);
	vsnprintf(st->source, sizeof(st->source), fmt, ap);
	va_end(ap);
}

void probe_status_missing(struct probe_status *st, const char *fmt, ...)
{
	va_list ap;

	st->available = false;
	va_start(ap, fmt);
	vsnprintf(st->why, sizeof(st->why), fmt, ap);
	va_end(ap);
}

/* The kernel's ENOTSUPP (524), which libbpf passes through. */
#define ENOTSUPP_KERNEL 524

const char *probe_status_lockdown_mode(void)
{
	static char mode[32];
	char line[128], *open, *close;
	FILE *f = fopen("/sys/kernel/security/lockdown", "r");

	if (!f)
		return NULL;
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return NULL;
	}
	fclose(f);
	/* The active mode is the bracketed one: "none [integrity] ...". */
	open = strchr(line, '[');
	close = open ? strchr(open, ']') : NULL;
	if (!open || !close)
		return NULL;
	snprintf(mode, sizeof(mode), "%.*s", (int)(close - open - 1), open + 1);
	return mode;
}

void probe_status_reason(char *buf, size_t len, const char *kind, const char *target,
			 int err)
{
	const char *lockdown = probe_status_lockdown_mode();
	const char *tracefs = env_tracefs_why();

	err = err < 0 ? -err : err;
	/* a classic tracepoint's id is read from tracefs by libbpf */
	if (tracefs && !strcmp(kind, "tracepoint") &&
	    (err == EACCES || err == EPERM || err == ENOENT)) {
		snprintf(buf, len,
			 "classic tracepoints on %s need their ids from tracefs, and %s",
			 target, tracefs);
	} else if ((err == EPERM || err == EACCES) && lockdown &&
	    strcmp(lockdown, "none")) {
		snprintf(buf, len,
			 "the kernel refuses %s programs on %s (%s; kernel lockdown: %s)",
			 kind, target, strerror(err), lockdown);
	} else if (err == EPERM || err == EACCES) {
		snprintf(buf, len,
			 "the kernel refuses %s programs on %s (%s)",
			 kind, target, strerror(err));
	} else if (err == ENOENT || err == ESRCH) {
		snprintf(buf, len,
			 "%s on %s: the function is not in this kernel's BTF or kallsyms (inlined, renamed or its module not loaded)",
			 kind, target);
	} else if (err == EOPNOTSUPP || err == ENOTSUPP_KERNEL) {
		snprintf(buf, len, "%s programs are not supported by this kernel",
			 kind);
	} else {
		snprintf(buf, len, "%s on %s failed: %s", kind, target,
			 strerror(err));
	}
}

const char *probe_status_cause(const char *why)
{
	static const struct {
		const char *words;
		bool prefix;
		const char *cause;
	} causes[] = {
		{ "the kernel refuses ", true, "refused" },
		{ "programs are not supported by this kernel", false, "refused" },
		{ "is not in this kernel's BTF or kallsyms", false, "absent" },
		{ "this kernel has no ", true, "absent" },
		{ "is not in /proc/kallsyms", false, "absent" },
		{ "neither find_get_block_common nor __find_get_block", true, "absent" },
		{ "not found: jbd2 is not loaded yet", false, "absent" },
		{ "bhtune.ko does not own the LRU", true, "not_chosen" },
		{ "not used: ", true, "not_chosen" },
		{ "counts hits only, and --trace", true, "not_chosen" },
	};

	for (size_t i = 0; why && i < sizeof(causes) / sizeof(*causes); i++)
		if (causes[i].prefix ?
		    !strncmp(why, causes[i].words, strlen(causes[i].words)) :
		    !!strstr(why, causes[i].words))
			return causes[i].cause;
	return "failed";
}
