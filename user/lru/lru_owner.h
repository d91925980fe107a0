/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whose code runs the buffer-head lookup right now: the kernel's own (its
 * per-CPU bh_lrus is the LRU), bhtune.ko's livepatch (its own LRU, seen
 * through its tracepoints), another livepatch (an LRU bhscope cannot see),
 * or a livepatch transition in flight (some tasks in each). Read from
 * /sys/kernel/livepatch, which says what is patched, not from the
 * tracepoints' presence, which says only that a module is loaded. The
 * tracer reads it when it chooses its hooks and again after every read
 * (lru_session_recheck_owner()), as livepatches come and go while it runs.
 */
#ifndef BHSCOPE_LRU_OWNER_H
#define BHSCOPE_LRU_OWNER_H

#include <stdbool.h>
#include <stddef.h>

enum lru_owner_kind {
	LRU_OWNER_KERNEL,	/* no livepatch replaces the lookup */
	LRU_OWNER_BHTUNE,	/* bhtune's patch, settled, its events bound */
	LRU_OWNER_BHTUNE_SILENT,	/* bhtune's, without bhtune_events */
	LRU_OWNER_OTHER,	/* another livepatch (or two at once) */
	LRU_OWNER_CHANGING,	/* a patch or unpatch transition running */
};

struct lru_owner {
	enum lru_owner_kind kind;
	char patch[64];		/* the livepatch's name; "" for the kernel */
};

/* Where the state is read: /sys/kernel/livepatch and /sys/module. */
struct lru_owner_paths {
	const char *livepatch;
	const char *module;
};

extern const struct lru_owner_paths lru_owner_sysfs;

/* The owner now. Never fails: unreadable sysfs means no livepatch. */
void lru_owner_read(const struct lru_owner_paths *p, struct lru_owner *o);

bool lru_owner_same(const struct lru_owner *a, const struct lru_owner *b);

/* For people: "the kernel's own lookup", "livepatch foo", ... */
const char *lru_owner_describe(const struct lru_owner *o, char *buf,
			       size_t len);

#endif /* BHSCOPE_LRU_OWNER_H */
