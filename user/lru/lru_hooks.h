/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What an LRU tracer session runs on, as plain data: the hook kind in use,
 * the lookup's hook, the LRU size, and for each figure where it comes from
 * or why it is missing. Reports, records and the exporter read this, never
 * the libbpf session (struct lru_session) that fills it. Here too: the
 * words each hook kind gives its figures, set as the session chooses its
 * hooks, and `bhscope lru --probes`, which prints them.
 *
 * The hook kinds, best first:
 *   bhtune     bhtune.ko's tracepoints, when the module owns the LRU
 *   fentry     fentry/fexit on the lookup
 *   kprobe     kprobe/kretprobe on the lookup
 *   tracepoint block:block_touch_buffer: LRU hits per CPU, nothing else
 */
#ifndef BHSCOPE_LRU_HOOKS_H
#define BHSCOPE_LRU_HOOKS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/probe_status.h"

struct json_object;

enum lru_mode {
	LRU_MODE_AUTO,		/* as an option: the best that works */
	LRU_MODE_BHTUNE,
	LRU_MODE_FENTRY,
	LRU_MODE_KPROBE,
	LRU_MODE_TRACEPOINT,
	LRU_NR_MODES,
};

extern const char *const lru_mode_names[LRU_NR_MODES];

/* Parses "auto", "fentry", ... Returns 0 or -EINVAL. */
int lru_hooks_mode_parse(const char *s, enum lru_mode *mode);

enum lru_figure_id {
	LRU_FIG_LRU_SIZE,
	LRU_FIG_LOOKUPS,
	LRU_FIG_HITS,
	LRU_FIG_SLOTS,
	LRU_FIG_MISSES,
	LRU_FIG_EVICTIONS,
	LRU_FIG_WHATIF,
	LRU_FIG_INVALIDATIONS,
	LRU_FIG_INSTALLS,
	LRU_FIG_TRACE,
	LRU_FIG_TIMES,
	LRU_NR_FIGURES,
};

/* For people ("hit slots"), and as JSON keys ("slots"). */
extern const char *const lru_figure_names[LRU_NR_FIGURES];
extern const char *const lru_figure_keys[LRU_NR_FIGURES];

/* The what-if's timing where none is asked for: one lookup in 64 per CPU. */
#define LRU_TIMING_EVERY_WHATIF	64

/* What a session is asked for. */
struct lru_load_opts {
	uint32_t kdev;		/* count only this device; 0: all */
	int whatif;		/* largest what-if size; 0: none */
	bool trace;		/* ring buffer for --trace */
	uint32_t trace_bytes;	/* its size: a power of 2, >= a page */
	enum lru_mode mode;	/* LRU_MODE_AUTO: the best that works */
	uint32_t time_every;	/* --timing: time one lookup in N; 0: none */
	bool lookups_only;	/* auto never falls back to the tracepoint */
	bool quiet;		/* a failure, or the LRU changing owner, prints
				 * nothing: the caller says it */
};

struct lru_hooks {
	enum lru_mode mode;	/* in use (LRU_MODE_AUTO: none works) */
	int lru_size;		/* at load time */
	char hook[64];		/* the lookups' hook, short: "fentry:NAME" */
	struct probe_status fig[LRU_NR_FIGURES];
	char tried[LRU_NR_MODES][320];	/* per mode: "" used, else why not */
	uint32_t time_every;	/* lookups timed: one in this many; 0 none */
	/*
	 * The timing runs in windows of this many ms every period (0:
	 * always), timing one lookup in time_sample there (else time_every).
	 */
	uint32_t time_window_ms, time_period_ms, time_sample;
	/*
	 * "" while the hooks see the LRU in use; else since when and why
	 * they do not (a livepatch came or went): no figure holds from then.
	 */
	char unavailable[320];
};

/* True when lookups are classified (not the tracepoint-only mode). */
bool lru_hooks_classify(const struct lru_hooks *h);

/* True when --timing's lookup times are measured. */
bool lru_hooks_timed(const struct lru_hooks *h);

/*
 * The figures' sources and reasons, per hook kind: lru_session_open()
 * sets them as it chooses the hooks.
 */

/* bhtune.ko's tracepoints give everything; lru_size is its parameter. */
void lru_hooks_bhtune(struct lru_hooks *h, const struct lru_load_opts *o,
		      int lru_size);

/* fentry/fexit (fentry true) or kprobe/kretprobe on func. */
void lru_hooks_lookups(struct lru_hooks *h, const struct lru_load_opts *o,
		       bool fentry, const char *func);

/*
 * How the lookups of func (which cannot sleep) are proven: by the exit
 * alone (solo) or with the entry, and why (the preemption model); func2,
 * if not NULL, always has both.
 */
void lru_hooks_lookup_proof(struct lru_hooks *h, const char *func,
			    const char *func2, bool solo, const char *why);

/*
 * The deferred hook (BHSCOPE_LRU_DEFERRED=1): one fentry program on func
 * classifies each lookup at the next one's entry on its CPU.
 */
void lru_hooks_lookup_deferred(struct lru_hooks *h, const char *func,
				const char *why);

/* --timing in windows (lru_timing.h), one lookup in sample timed there. */
void lru_hooks_time_windows(struct lru_hooks *h, uint32_t sample,
			    uint32_t window_ms, uint32_t period_ms);

/* block:block_touch_buffer alone: hits, and the LRU size from BTF. */
void lru_hooks_tracepoint(struct lru_hooks *h, const struct lru_load_opts *o);

/* "MODE: why; MODE: why" for each mode tried in vain: why none works. */
void lru_hooks_why_none(const struct lru_hooks *h, char *buf, size_t len);

/*
 * `bhscope lru --probes`: which hook each figure comes from on this
 * kernel, and why any figure or hook kind is missing. loaded:
 * lru_session_open() succeeded (else only the reasons are known).
 */
#define LRU_PROBES_JSON_SCHEMA "bhscope.lru-probes/1"

void lru_hooks_print(FILE *out, const struct lru_hooks *h, bool loaded);
struct json_object *lru_hooks_json(const struct lru_hooks *h, bool loaded);

#endif /* BHSCOPE_LRU_HOOKS_H */
