// SPDX-License-Identifier: GPL-2.0
/*
 * bhscope's own health as metrics: which probes run and why the others do
 * not, the programs' run time from the kernel's BPF stats, events the
 * kernel skipped, map fill, HTTP and textfile results, and the process.
 */
#include <bpf/bpf.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/env.h"
#include "lib/probe_status.h"
#include "serve/serve.h"
#include "serve/serve_http.h"

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

static void gauge(struct prom_buf *out, const char *name, const char *help,
		  double v)
{
	prom_family(out, name, PROM_GAUGE, help);
	prom_sample(out, name, NULL, v);
}

static void counter(struct prom_buf *out, const char *name, const char *help,
		    uint64_t v)
{
	prom_family(out, name, PROM_COUNTER, help);
	prom_sample_u64(out, name, NULL, v);
}

static bool bpf_stats_enabled(void)
{
	FILE *f = fopen("/proc/sys/kernel/bpf_stats_enabled", "r");
	int v = 0;

	if (!f)
		return false;
	if (fscanf(f, "%d", &v) != 1)
		v = 0;
	fclose(f);
	return v == 1;
}

static void probe_labels(struct prom_labels *ls, const struct serve_source *src,
			 const struct serve_probe *p)
{
	*ls = (struct prom_labels){};
	prom_labels_add(ls, "source", src->name);
	prom_labels_add(ls, "probe", p->name);
}

static uint64_t source_running(const struct serve_source *src)
{
	return src->running;
}

static uint64_t source_restarts(const struct serve_source *src)
{
	return src->restarts;
}

/* A family with one sample per source asked for. */
static void per_source(struct prom_buf *out, const char *name,
		       enum prom_type type, const char *help,
		       uint64_t (*value)(const struct serve_source *src))
{
	prom_family(out, name, type, help);
	for (int i = 0; i < serve_nr_sources; i++) {
		const struct serve_source *src = serve_sources[i];
		struct prom_labels ls = {};

		if (!src->wanted)
			continue;
		prom_labels_add(&ls, "source", src->name);
		prom_sample_u64(out, name, &ls, value(src));
	}
}

static void collect_probes(struct prom_buf *out)
{
	static const char up[] = "bhscope_probe_up";
	static const char err[] = "bhscope_probe_error_info";
	static const char src_up[] = "bhscope_source_up";

	per_source(out, src_up, PROM_GAUGE,
		   "1 when the source (a tracer: jbd2, lru) is loaded and exporting, 0 when it was asked for but could not start.",
		   source_running);
	per_source(out, "bhscope_source_restarts_total", PROM_COUNTER,
		   "Times the source was stopped and started again because its hooks no longer saw what they trace (bhtune.ko or another livepatch came or went): its counters restarted from 0.",
		   source_restarts);
	prom_family(out, up, PROM_GAUGE,
		    "1 when the BPF program is attached to its hook, 0 when not (see bhscope_probe_error_info for why).");
	for (int i = 0; i < serve_nr_sources; i++) {
		const struct serve_source *src = serve_sources[i];

		for (int j = 0; src->wanted && j < src->nr_probes; j++) {
			struct prom_labels ls;

			probe_labels(&ls, src, &src->probes[j]);
			prom_sample(out, up, &ls, src->probes[j].up);
		}
	}
	prom_family(out, err, PROM_GAUGE,
		    "Why a probe is not attached, as the reason label; 1 for each probe that is down. cause: refused (the kernel refuses that kind of program here, by design or policy), absent (the hook is not in this kernel), not_chosen (another hook gives the figure), failed (anything else: worth an alert).");
	for (int i = 0; i < serve_nr_sources; i++) {
		const struct serve_source *src = serve_sources[i];

		for (int j = 0; src->wanted && j < src->nr_probes; j++) {
			struct prom_labels ls;

			if (src->probes[j].up)
				continue;
			probe_labels(&ls, src, &src->probes[j]);
			prom_labels_add(&ls, "cause", probe_status_cause(src->probes[j].why));
			prom_labels_add(&ls, "reason", src->probes[j].why);
			prom_sample(out, err, &ls, 1);
		}
	}
}

/* One of the run_time_ns, run_cnt, recursion_misses families. */
enum prog_figure { RUN_TIME, RUN_CNT, MISSES };

static void collect_prog_figure(struct prom_buf *out, enum prog_figure fig,
				const char *name, const char *help)
{
	prom_family(out, name, PROM_COUNTER, help);
	for (int i = 0; i < serve_nr_sources; i++) {
		const struct serve_source *src = serve_sources[i];

		for (int j = 0; src->running && j < src->nr_probes; j++) {
			const struct serve_probe *p = &src->probes[j];
			struct bpf_prog_info info = {};
			__u32 len = sizeof(info);
			struct prom_labels ls;

			if (p->prog_fd < 0 ||
			    bpf_obj_get_info_by_fd(p->prog_fd, &info, &len))
				continue;
			probe_labels(&ls, src, p);
			if (fig == RUN_TIME)
				prom_sample(out, name, &ls,
					    prom_seconds_from_ns(info.run_time_ns));
			else
				prom_sample_u64(out, name, &ls,
						fig == RUN_CNT ? info.run_cnt :
								 info.recursion_misses);
		}
	}
}

/* Whether any of our programs has been timed (by whoever turned stats on). */
static bool any_prog_timed(void)
{
	for (int i = 0; i < serve_nr_sources; i++) {
		const struct serve_source *src = serve_sources[i];

		for (int j = 0; src->running && j < src->nr_probes; j++) {
			struct bpf_prog_info info = {};
			__u32 len = sizeof(info);

			if (src->probes[j].prog_fd >= 0 &&
			    !bpf_obj_get_info_by_fd(src->probes[j].prog_fd, &info, &len) &&
			    info.run_cnt)
				return true;
		}
	}
	return false;
}

/*
 * The sysctl shows only its own setting; statistics turned on through a
 * BPF_ENABLE_STATS fd (ours with --bpf-stats, or a benchmark's) show as
 * programs with a run count.
 */
static void collect_bpf(const struct serve_state *st, struct prom_buf *out)
{
	bool on = bpf_stats_enabled() || st->bpf_stats_held;

	gauge(out, "bhscope_bpf_stats_enabled",
	      "1 when the kernel counts BPF run time (sysctl kernel.bpf_stats_enabled=1, or bhscope serve --bpf-stats, which needs CAP_SYS_ADMIN: bhscope.service has not); 0: the bhscope_bpf_prog_run_seconds_total and bhscope_bpf_prog_runs_total families are absent.",
	      on);
	if (on || any_prog_timed()) {
		collect_prog_figure(out, RUN_TIME,
				    "bhscope_bpf_prog_run_seconds_total",
				    "Time the kernel spent running the probe's BPF program while BPF statistics were on (bpf_prog_info run_time_ns).");
		collect_prog_figure(out, RUN_CNT, "bhscope_bpf_prog_runs_total",
				    "Runs of the probe's BPF program while BPF statistics were on (bpf_prog_info run_cnt).");
	}
	collect_prog_figure(out, MISSES, "bhscope_bpf_prog_missed_runs_total",
			    "Events lost: runs of the probe's program the kernel skipped (recursion or another BPF program busy on the CPU; bpf_prog_info recursion_misses).");
}

static uint32_t map_entries(int fd)
{
	__u64 key[8], next[8];	/* big enough for any key of ours */
	void *prev = NULL;
	uint32_t n = 0;

	while (!bpf_map_get_next_key(fd, prev, next)) {
		memcpy(key, next, sizeof(key));
		prev = key;
		n++;
	}
	return n;
}

static void collect_maps(struct prom_buf *out)
{
	static const char entries[] = "bhscope_bpf_map_entries";
	static const char max[] = "bhscope_bpf_map_max_entries";

	for (int pass = 0; pass < 2; pass++) {
		const char *name = pass ? max : entries;

		prom_family(out, name, PROM_GAUGE,
			    pass ? "Capacity of the BPF map: a full map drops events of new keys (devices)." :
				   "Entries in the BPF map of devices now (for lru: devices not in their per-CPU bucket).");
		for (int i = 0; i < serve_nr_sources; i++) {
			const struct serve_source *src = serve_sources[i];

			for (int j = 0; src->running && j < src->nr_maps; j++) {
				const struct serve_map *m = &src->maps[j];
				struct prom_labels ls = {};

				prom_labels_add(&ls, "source", src->name);
				prom_labels_add(&ls, "map", m->name);
				prom_sample_u64(out, name, &ls,
						pass ? m->max_entries :
						       map_entries(m->fd));
			}
		}
	}
}

static void collect_http(const struct serve_state *st, struct prom_buf *out)
{
	static const char name[] = "bhscope_http_requests_total";
	static const char closed[] = "bhscope_http_connections_closed_total";
	const struct {
		const char *code;
		const uint64_t *n;
	} codes[] = {
		{ "200", &st->counters.http_ok },
		{ "404", &st->counters.http_not_found },
		{ "405", &st->counters.http_bad_method },
	};

	prom_family(out, name, PROM_COUNTER,
		    "HTTP requests answered, by status code (errors libmicrohttpd answers itself, such as 431, are not counted).");
	for (size_t i = 0; i < sizeof(codes) / sizeof(*codes); i++) {
		struct prom_labels ls = {};

		prom_labels_add(&ls, "code", codes[i].code);
		prom_sample_u64(out, name, &ls, LOAD(*codes[i].n));
	}
	char help[400];

	snprintf(help, sizeof(help),
		 "HTTP connections bhscope closed: head_deadline, a request head not whole within %g s; address_full, the oldest of an address holding %d made way for its newest; server_full, the oldest of the address holding the most made way when all %d were taken.",
		 SERVE_HTTP_HEAD_S, SERVE_HTTP_MAX_CONNS_PER_IP,
		 SERVE_HTTP_MAX_CONNS);
	prom_family(out, closed, PROM_COUNTER, help);
	for (int i = 0; i < SERVE_CLOSE_NR; i++) {
		struct prom_labels ls = {};

		prom_labels_add(&ls, "reason", serve_conn_close_names[i]);
		prom_sample_u64(out, closed, &ls,
				LOAD(st->counters.http_closed[i]));
	}
}

static double read_statm(int field)
{
	long v[2] = { 0, 0 };
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%ld %ld", &v[0], &v[1]) != 2)
			v[0] = v[1] = 0;
		fclose(f);
	}
	return (double)v[field] * sysconf(_SC_PAGESIZE);
}

static long open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	long n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;	/* the directory's own */
}

/* The standard process_* families, as Prometheus' client libraries name them. */
static void collect_process(const struct serve_state *st, struct prom_buf *out)
{
	struct rlimit nofile;
	struct rusage ru;
	long fds = open_fds();

	if (!getrusage(RUSAGE_SELF, &ru)) {
		double cpu = ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
			     (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;

		prom_family(out, "process_cpu_seconds_total", PROM_COUNTER,
			    "Total user and system CPU time spent in seconds (bhscope itself, not its BPF programs).");
		prom_sample(out, "process_cpu_seconds_total", NULL, cpu);
	}
	gauge(out, "process_resident_memory_bytes",
	      "Resident memory size in bytes.", read_statm(1));
	gauge(out, "process_virtual_memory_bytes",
	      "Virtual memory size in bytes.", read_statm(0));
	gauge(out, "process_start_time_seconds",
	      "Start time of the process since unix epoch in seconds.",
	      st->start_time);
	if (fds >= 0)
		gauge(out, "process_open_fds", "Number of open file descriptors.",
		      fds);
	if (!getrlimit(RLIMIT_NOFILE, &nofile))
		gauge(out, "process_max_fds",
		      "Maximum number of open file descriptors.",
		      nofile.rlim_cur == RLIM_INFINITY ? -1 : (double)nofile.rlim_cur);
}

void serve_health_collect(const struct serve_state *st, struct prom_buf *out,
			  double render_start)
{
	struct prom_labels ls = {};

	prom_family(out, "bhscope_build_info", PROM_GAUGE,
		    "bhscope's version and the running kernel, as labels.");
	prom_labels_add(&ls, "version", BHSCOPE_VERSION);
	prom_labels_add(&ls, "kernel", env_kernel_release());
	prom_sample(out, "bhscope_build_info", &ls, 1);
	gauge(out, "bhscope_kernel_hz",
	      "The kernel's HZ, used to convert jiffies to seconds.", st->hz);
	collect_probes(out);
	collect_bpf(st, out);
	collect_maps(out);
	collect_http(st, out);
	if (st->cfg.textfile_dir[0]) {
		counter(out, "bhscope_textfile_writes_total",
			"Textfile rewrites that succeeded.",
			LOAD(st->counters.textfile_writes));
		counter(out, "bhscope_textfile_write_errors_total",
			"Textfile rewrites that failed (one line on stderr says why).",
			LOAD(st->counters.textfile_errors));
	}
	counter(out, "bhscope_config_reloads_total",
		"Configuration reloads (SIGHUP), successful or not.",
		st->counters.reloads);
	gauge(out, "bhscope_config_last_reload_successful",
	      "1 when the last configuration load worked, 0 when it failed and the previous configuration stayed.",
	      st->counters.last_reload_ok);
	collect_process(st, out);
	gauge(out, "bhscope_scrape_duration_seconds",
	      "Time taken to collect this exposition.",
	      clock_s(CLOCK_MONOTONIC) - render_start);
}
