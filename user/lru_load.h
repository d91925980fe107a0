/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loading the LRU tracer on whatever this kernel allows, and reading its
 * maps: shared by `bhscope lru` and any subcommand that wants LRU figures
 * (record, serve), as jbd2_load.h is for jbd2.
 *
 * The hooks are chosen by really loading and attaching them, best first:
 *   bhtune    bhtune.ko's tracepoints, when the module owns the LRU
 *   fentry    fentry/fexit on the lookup
 *   kprobe    kprobe/kretprobe on the lookup
 *   tracepoint block:block_touch_buffer: LRU hits per CPU, nothing else
 * The lookup is find_get_block_common where it exists (6.15+, 6.12.31+),
 * else __find_get_block. Each figure records where it came from, or why
 * it is missing (--probes prints that).
 */
#ifndef BHSCOPE_LRU_LOAD_H
#define BHSCOPE_LRU_LOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "lru_snapshot.h"

struct lru_bpf;
struct bpf_link;
struct bpf_program;

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
int lru_mode_parse(const char *s, enum lru_mode *mode);

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
	LRU_NR_FIGURES,
};

/* For people ("hit slots"), and as JSON keys ("slots"). */
extern const char *const lru_figure_names[LRU_NR_FIGURES];
extern const char *const lru_figure_keys[LRU_NR_FIGURES];

/* Where a figure comes from on this kernel, or why it is missing. */
struct lru_figure {
	bool available;
	char source[160];
	char why[800];
};

struct lru_load_opts {
	uint32_t kdev;		/* count only this device; 0: all */
	int whatif;		/* largest what-if size; 0: none */
	bool trace;		/* ring buffer for --trace */
	uint32_t trace_bytes;	/* its size: a power of 2, >= a page */
	enum lru_mode mode;	/* LRU_MODE_AUTO: the best that works */
};

/* A program that runs, and what it is attached to (for --self-cost). */
struct lru_attached {
	struct bpf_program *prog;
	struct bpf_link *link;
	char what[96];		/* "fentry find_get_block_common" */
	bool per_lookup;	/* runs once per lookup */
};

#define LRU_MAX_ATTACHED 8

struct lru_session {
	struct lru_bpf *skel;
	enum lru_mode mode;
	int nr_cpus;
	int lru_size;		/* at load time */
	char hook[64];		/* the lookups' hook, short: "fentry:NAME" */
	struct lru_figure fig[LRU_NR_FIGURES];
	char tried[LRU_NR_MODES][320];	/* per mode: "" used, else why not */
	struct lru_attached att[LRU_MAX_ATTACHED];
	int nr_att;
};

/*
 * Loads and attaches the best hooks opts allow. Returns 0, or a negative
 * errno after printing one "bhscope: ..." line (s->tried says why each
 * mode failed).
 */
int lru_load(struct lru_session *s, const struct lru_load_opts *opts);

void lru_unload(struct lru_session *s);

/* True when lookups are classified (not the tracepoint-only mode). */
bool lru_session_has_lookups(const struct lru_session *s);

/* The current LRU size (bhtune's may change at run time). */
int lru_session_lru_size(const struct lru_session *s);

/* Reads every device and the per-CPU counters (snap->nr_cpus is set). */
int lru_read_snapshot(struct lru_session *s, struct lru_snapshot *snap);

/*
 * Drops the counters of every device for which exists(kdev) is false, so
 * they are not reported again (bhscope serve, for devices that went away).
 */
int lru_forget_devices(struct lru_session *s, bool (*exists)(uint32_t kdev));

/* The --trace ring buffer's fd. */
int lru_events_fd(const struct lru_session *s);

#endif /* BHSCOPE_LRU_LOAD_H */
