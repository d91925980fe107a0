/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bhscope serve: the state shared by its parts (configuration, devices,
 * sources of figures, health) and the interface every source implements.
 *
 * A source is one tracer (jbd2, lru) seen as a Prometheus collector: it
 * attaches once, keeps cumulative counters in kernel maps, writes its
 * metric families on every scrape and forgets devices that went away.
 * Adding one is a file implementing struct serve_source_ops and a line in
 * serve_sources[].
 */
#ifndef BHSCOPE_SERVE_H
#define BHSCOPE_SERVE_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "bhscope.h"
#include "serve/prom.h"
#include "serve/serve_config.h"
#include "serve/serve_conns.h"

#define SERVE_DEVNAME_LEN	64	/* kernel block device names */
#define SERVE_MAX_PROBES	16	/* programs per source */
#define SERVE_MAX_MAPS		4	/* maps per source, for health */

/* A journal device present right now, with its kernel name. */
struct serve_dev {
	uint32_t kdev;
	char name[SERVE_DEVNAME_LEN];
	bool selected;			/* passes the --device filter */
	bool journal;			/* listed in /proc/fs/jbd2 */
};

struct serve_devices {
	bool ok;			/* the scan worked: absence means gone */
	int nr;
	struct serve_dev dev[BHSCOPE_MAX_DEVS];
};

/* What a source's collect() needs to know about this scrape. */
struct serve_view {
	int hz;
	int nr_cpus;
	bool per_cpu;
	const struct serve_devices *devs;
	const struct serve_config *cfg;	/* the device filter */
	const char *const *cpu_names;	/* "0", "1", ... nr_cpus of them */
};

/* One BPF program of a source, as the health families report it. */
struct serve_probe {
	char name[64];			/* "tracepoint/jbd2/jbd2_run_stats" */
	int prog_fd;			/* loaded and attached, else -1 */
	bool up;
	char why[256];			/* when down: the reason, one line */
};

struct serve_map {
	const char *name;
	int fd;
	uint32_t max_entries;
};

struct serve_source;

struct serve_source_ops {
	/*
	 * Loads and attaches, filling the probes either way. Returns 0, or a
	 * negative errno: -ENOENT when the kernel lacks the hooks for now
	 * (a module not loaded yet), which is retried every interval.
	 */
	int (*start)(struct serve_source *src, int nr_cpus);
	void (*stop)(struct serve_source *src);
	/* Appends the source's metric families for the selected devices. */
	void (*collect)(struct serve_source *src, const struct serve_view *v,
			struct prom_buf *out);
	/* Forgets devices that are no longer present (optional). */
	void (*prune)(struct serve_source *src,
		      const struct serve_devices *present);
	/*
	 * Whether the hooks no longer see what they trace (optional): the
	 * loop then stops and starts the source again, which resets its
	 * counters. Asked every interval.
	 */
	bool (*stale)(struct serve_source *src);
};

struct serve_source {
	const char *name;		/* "jbd2": --jbd2, source="jbd2" */
	const struct serve_source_ops *ops;
	bool wanted;
	bool running;
	int start_err;			/* last start()'s result */
	uint64_t restarts;		/* stopped and started: stale hooks */
	int nr_probes;
	struct serve_probe probes[SERVE_MAX_PROBES];
	int nr_maps;
	struct serve_map maps[SERVE_MAX_MAPS];
	void *priv;
};

/* The sources this build has, in exposition order. */
extern struct serve_source *const serve_sources[];
extern const int serve_nr_sources;
struct serve_source *serve_source_find(const char *name);

/* HTTP and textfile counters, for the health families. */
struct serve_counters {
	uint64_t http_ok;
	uint64_t http_not_found;
	uint64_t http_bad_method;
	uint64_t http_closed[SERVE_CLOSE_NR];	/* by enum serve_conn_close */
	uint64_t textfile_writes;
	uint64_t textfile_errors;
	uint64_t reloads;
	bool last_reload_ok;
};

struct serve_state {
	pthread_mutex_t lock;		/* everything below */
	struct serve_config cfg;
	struct serve_devices devs;
	struct serve_counters counters;
	int hz;
	int nr_cpus;
	char **cpu_names;
	double start_time;		/* Unix time */
	bool bpf_stats_held;		/* --bpf-stats: our fd keeps them on */
	const char *listen;		/* as given, for the landing page */
};

/* The tunables in force: bhtune's parameters, when it is loaded. */
void serve_tunables_collect(const struct serve_view *v, struct prom_buf *out);

/* bhscope's own health: probes, BPF run time, lost events, process. */
void serve_health_collect(const struct serve_state *st, struct prom_buf *out,
			  double render_start);

#endif /* BHSCOPE_SERVE_H */
