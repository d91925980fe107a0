/* SPDX-License-Identifier: GPL-2.0 */
/* The sources of bhscope serve and the helpers they share. */
#ifndef BHSCOPE_SERVE_SOURCES_H
#define BHSCOPE_SERVE_SOURCES_H

#include "serve/serve.h"

struct bpf_object_skeleton;

extern struct serve_source serve_jbd2_source;
extern struct serve_source serve_lru_source;

/*
 * From its next start, the LRU source keeps a ghost list for what-if sizes
 * up to whatif (0: none) and times one lookup in every (0: none; -1, not
 * given: as bhscope lru, one in 64 with a what-if, else none). With
 * window_ms (--lru-duty), it traces the hits alone throughout and the
 * lookups for window_ms in every period_ms (serve_lru_window.h).
 */
void serve_lru_configure(int every, unsigned int whatif,
			 unsigned int window_ms, unsigned int period_ms);

/* Why the program named prog (its C name) is not attached. */
typedef const char *(*serve_probe_why_fn)(const char *prog, void *arg);

/*
 * One probe per program of an opened (maybe loaded) skeleton: up when it
 * has a link; the others get their reason from why, or are no probe when
 * it returns NULL (another flavour of a probe that runs).
 */
void serve_sources_probes(struct serve_source *src,
			  const struct bpf_object_skeleton *s,
			  serve_probe_why_fn why, void *arg);

/* The maps named in names (NULL-terminated), for the health families. */
void serve_sources_maps(struct serve_source *src,
			const struct bpf_object_skeleton *s,
			const char *const *names);

/*
 * Every program of s (only opened; may be NULL) down for the same reason,
 * for a source that could not start at all.
 */
void serve_sources_all_down(struct serve_source *src,
			    const struct bpf_object_skeleton *s,
			    const char *why);

#endif /* BHSCOPE_SERVE_SOURCES_H */
