// SPDX-License-Identifier: GPL-2.0
/*
 * bhscope serve's engine: the sources started, /metrics served by a
 * thread, the textfile rewritten and the devices pruned every interval,
 * SIGHUP reloading the configuration, until SIGINT or SIGTERM.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/env.h"
#include "lib/errmsg.h"
#include "lib/hz.h"
#include "lib/term_safe.h"
#include "serve/serve.h"
#include "serve/serve_devices.h"
#include "serve/serve_http.h"
#include "serve/serve_notify.h"
#include "serve/serve_run.h"
#include "serve/serve_sources.h"
#include "serve/serve_textfile.h"

/* Everything the main loop owns. */
struct server {
	struct serve_state st;
	const struct serve_opts *args;
	struct serve_http *http;
	struct serve_textfile textfile;
	struct prom_buf textbuf;
	bool textfile_failing;
	int stats_fd;		/* --bpf-stats: held while serving */
};

/* One whole exposition: every running source, the tunables, the health. */
static void serve_render(struct serve_state *st, struct prom_buf *out)
{
	struct serve_view v;
	double start;

	pthread_mutex_lock(&st->lock);
	start = clock_s(CLOCK_MONOTONIC);
	prom_buf_reset(out);
	/* Scanned on every scrape: a new mount shows at once, a gone one not. */
	serve_devices_scan(&st->devs, &st->cfg);
	v = (struct serve_view){
		.hz = st->hz,
		.nr_cpus = st->nr_cpus,
		.per_cpu = st->cfg.per_cpu,
		.devs = &st->devs,
		.cfg = &st->cfg,
		.cpu_names = (const char *const *)st->cpu_names,
	};
	for (int i = 0; i < serve_nr_sources; i++)
		if (serve_sources[i]->running)
			serve_sources[i]->ops->collect(serve_sources[i], &v, out);
	serve_tunables_collect(&v, out);
	serve_health_collect(st, out, start);
	pthread_mutex_unlock(&st->lock);
}

static void render_cb(void *arg, struct prom_buf *out)
{
	serve_render(arg, out);
}

static void select_sources(const struct serve_opts *a)
{
	bool all = !a->want_jbd2 && !a->want_lru;

	serve_lru_configure(a->lru_timing_set ? (int)a->lru_timing : -1,
			    a->lru_whatif, a->lru_window_ms, a->lru_period_ms);
	for (int i = 0; i < serve_nr_sources; i++) {
		struct serve_source *src = serve_sources[i];

		src->wanted = all ||
			      (a->want_jbd2 && !strcmp(src->name, "jbd2")) ||
			      (a->want_lru && !strcmp(src->name, "lru"));
	}
}

/* One line per distinct reason: "fentry/x, fexit/x not attached: why". */
static void report_source(const struct serve_source *src)
{
	if (!src->running) {
		errmsg("%s: not serving yet: %s", src->name,
		       src->nr_probes ? src->probes[0].why : strerror(-src->start_err));
		return;
	}
	for (int i = 0; i < src->nr_probes; i++) {
		const struct serve_probe *p = &src->probes[i];
		char names[SERVE_MAX_PROBES * 64];
		bool said = false;
		size_t n;

		for (int j = 0; j < i && !said; j++)
			said = !src->probes[j].up && !strcmp(src->probes[j].why, p->why);
		if (p->up || said)
			continue;
		n = snprintf(names, sizeof(names), "%s", p->name);
		for (int j = i + 1; j < src->nr_probes; j++)
			if (!src->probes[j].up && !strcmp(src->probes[j].why, p->why) &&
			    n < sizeof(names))
				n += snprintf(names + n, sizeof(names) - n, ", %s",
					      src->probes[j].name);
		errmsg("%s: %s not attached: %s", src->name, names, p->why);
	}
}

static void start_source(struct serve_source *src, int nr_cpus, bool quiet)
{
	src->start_err = src->ops->start(src, nr_cpus);
	src->running = !src->start_err;
	if (!quiet || src->running)
		report_source(src);
}

/* Starts the wanted sources; fails when none runs for a lasting reason. */
static int start_sources(struct serve_state *st)
{
	bool any = false, lasting = false;

	for (int i = 0; i < serve_nr_sources; i++) {
		struct serve_source *src = serve_sources[i];

		if (!src->wanted)
			continue;
		start_source(src, st->nr_cpus, false);
		any |= src->running;
		lasting |= !src->running && src->start_err != -ENOENT;
	}
	if (!any && lasting) {
		errmsg("no source could start; nothing to serve");
		return -1;
	}
	return 0;
}

/* A classic tracepoint: libbpf reads its id in tracefs. */
static bool needs_tracefs(const struct serve_probe *p)
{
	return !strncmp(p->name, "tracepoint/", 11);
}

/*
 * serve --probes: each wanted source's probes, one a line, and a last line
 * saying whether tracefs is needed: only classic tracepoints need it
 * (libbpf reads their ids there). bhscope.service's tracefs step asks, as
 * root: what loads is what the service's capabilities load (a module's
 * BTF, jbd2's where it is a module, needs CAP_SYS_ADMIN), so it drops to
 * them first.
 */
static int print_probes(struct serve_state *st)
{
	char needs[512] = "";
	size_t n = 0;

	for (int i = 0; i < serve_nr_sources; i++) {
		struct serve_source *src = serve_sources[i];

		if (!src->wanted)
			continue;
		src->start_err = src->ops->start(src, st->nr_cpus);
		src->running = !src->start_err;
		if (!src->running) {
			printf("%s\t-\tdown: %s\n", src->name,
			       src->nr_probes ? src->probes[0].why :
						strerror(-src->start_err));
			/* down for want of tracefs: the step would grant it */
			for (int j = 0; j < src->nr_probes; j++)
				if (needs_tracefs(&src->probes[j]) &&
				    strstr(src->probes[j].why, "tracefs") &&
				    n < sizeof(needs))
					n += snprintf(needs + n, sizeof(needs) - n,
						      "%s%s %s", n ? ", " : "",
						      src->name, src->probes[j].name);
			continue;
		}
		for (int j = 0; j < src->nr_probes; j++) {
			const struct serve_probe *p = &src->probes[j];

			if (!p->up) {
				printf("%s\t%s\tdown: %s\n", src->name, p->name,
				       p->why);
				continue;
			}
			printf("%s\t%s\tup\n", src->name, p->name);
			if (needs_tracefs(p) && n < sizeof(needs))
				n += snprintf(needs + n, sizeof(needs) - n,
					      "%s%s %s", n ? ", " : "",
					      src->name, p->name);
		}
	}
	if (needs[0])
		printf("tracefs: needed by %s\n", needs);
	else
		printf("tracefs: not needed\n");
	return fflush(stdout) ? 1 : 0;
}

static void stop_sources(void)
{
	for (int i = 0; i < serve_nr_sources; i++) {
		struct serve_source *src = serve_sources[i];

		if (src->running)
			src->ops->stop(src);
		src->running = false;
	}
}

/* Sources down because their hooks were missing (ENOENT), or all on HUP. */
static void retry_sources(struct serve_state *st, bool all)
{
	for (int i = 0; i < serve_nr_sources; i++) {
		struct serve_source *src = serve_sources[i];

		if (!src->wanted || src->running ||
		    (!all && src->start_err != -ENOENT))
			continue;
		start_source(src, st->nr_cpus, !all);
		if (src->running)
			errmsg("%s: now serving", src->name);
	}
}

/* (Re)opens the configured textfile directory; -1 after one line if it fails. */
static int textfile_sync_dir(struct server *s, const char *old_dir)
{
	const char *dir = s->st.cfg.textfile_dir;
	char err[512];

	if (s->textfile.dirfd >= 0 && strcmp(old_dir, dir))
		serve_textfile_close(&s->textfile, true);	/* moved: no stale file */
	if (!dir[0]) {
		serve_textfile_close(&s->textfile, false);
		return 0;
	}
	if (!serve_textfile_open(&s->textfile, dir, err, sizeof(err)))
		return 0;
	serve_textfile_close(&s->textfile, false);
	errmsg("%s", err);
	return -1;
}

static void textfile_tick(struct server *s)
{
	const char *dir = s->st.cfg.textfile_dir;
	char err[512];

	/* A directory that failed to open is retried, quietly. */
	if (s->textfile.dirfd < 0 &&
	    (!dir[0] || serve_textfile_open(&s->textfile, dir, err, sizeof(err))))
		return;
	serve_render(&s->st, &s->textbuf);
	if (!s->textbuf.oom &&
	    !serve_textfile_write(&s->textfile, s->textbuf.data, s->textbuf.len,
				  err, sizeof(err))) {
		__atomic_fetch_add(&s->st.counters.textfile_writes, 1,
				   __ATOMIC_RELAXED);
		if (s->textfile_failing)
			errmsg("textfile writes work again");
		s->textfile_failing = false;
		return;
	}
	__atomic_fetch_add(&s->st.counters.textfile_errors, 1, __ATOMIC_RELAXED);
	if (!s->textfile_failing)	/* one line per failing streak */
		errmsg("%s",
		       s->textbuf.oom ? "out of memory rendering the textfile" : err);
	s->textfile_failing = true;
}

/* Sources whose hooks went stale (a livepatch came or went): again. */
static void restart_stale(struct serve_state *st)
{
	for (int i = 0; i < serve_nr_sources; i++) {
		struct serve_source *src = serve_sources[i];

		if (!src->running || !src->ops->stale || !src->ops->stale(src))
			continue;
		src->ops->stop(src);
		src->running = false;
		src->restarts++;
		errmsg("%s: its hooks went stale: attaching again, its counters start from 0",
		       src->name);
		start_source(src, st->nr_cpus, false);
		if (!src->running && src->start_err == -ENOENT)
			errmsg("%s: retried every interval",
			       src->name);
	}
}

/* Every interval: forget devices that went away, retry missing hooks. */
static void tick(struct server *s)
{
	struct serve_state *st = &s->st;

	pthread_mutex_lock(&st->lock);
	serve_devices_scan(&st->devs, &st->cfg);
	for (int i = 0; st->devs.ok && i < serve_nr_sources; i++) {
		struct serve_source *src = serve_sources[i];

		if (src->running && src->ops->prune)
			src->ops->prune(src, &st->devs);
	}
	restart_stale(st);
	retry_sources(st, false);
	pthread_mutex_unlock(&st->lock);
	textfile_tick(s);
}

static void reload(struct server *s)
{
	struct serve_state *st = &s->st;
	char err[512], old_dir[sizeof(st->cfg.textfile_dir)];
	struct serve_config next;
	int rc;

	rc = serve_config_load(&next, s->args->config, &s->args->cli,
			       s->args->cli_set, err, sizeof(err));
	pthread_mutex_lock(&st->lock);
	st->counters.reloads++;
	st->counters.last_reload_ok = !rc;
	memcpy(old_dir, st->cfg.textfile_dir, sizeof(old_dir));
	if (!rc) {
		st->cfg = next;
		serve_devices_scan(&st->devs, &st->cfg);
		retry_sources(st, true);
	}
	pthread_mutex_unlock(&st->lock);
	if (rc) {
		term_safe_error("reload: %s; keeping the previous configuration",
				err);
		return;
	}
	if (textfile_sync_dir(s, old_dir))
		errmsg("no textfile until the directory is usable (retried every interval)");
	errmsg("configuration reloaded%s%s",
	       s->args->config ? " from " : "",
	       s->args->config ? s->args->config : "");
}

static double deadline_after(double interval)
{
	return clock_s(CLOCK_MONOTONIC) + interval;
}

/* Waits for signals until SIGINT/SIGTERM; ticks every interval. */
static void main_loop(struct server *s, const sigset_t *set)
{
	double next = deadline_after(s->st.cfg.interval_s);

	for (;;) {
		double left = next - clock_s(CLOCK_MONOTONIC);
		struct timespec ts;
		int sig;

		if (left <= 0) {
			tick(s);
			next = deadline_after(s->st.cfg.interval_s);
			continue;
		}
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - ts.tv_sec) * 1e9);
		sig = sigtimedwait(set, NULL, &ts);
		if (sig == SIGINT || sig == SIGTERM)
			return;
		if (sig == SIGHUP) {
			serve_notify_reloading();
			reload(s);
			serve_notify("READY=1");
			next = deadline_after(s->st.cfg.interval_s);
		}
	}
}

static int init_state(struct server *s)
{
	struct serve_state *st = &s->st;

	pthread_mutex_init(&st->lock, NULL);
	st->start_time = (double)time(NULL);
	st->counters.last_reload_ok = true;
	st->hz = hz_of_running_kernel();
	if (st->hz <= 0) {
		errmsg("%s", HZ_UNKNOWN_MSG);
		return -1;
	}
	st->nr_cpus = libbpf_num_possible_cpus();
	if (st->nr_cpus <= 0) {
		errmsg("cannot count the possible CPUs: %s",
		       strerror(-st->nr_cpus));
		return -1;
	}
	st->cpu_names = calloc(st->nr_cpus, sizeof(*st->cpu_names));
	if (!st->cpu_names)
		return -1;
	for (int c = 0; c < st->nr_cpus; c++)
		if (asprintf(&st->cpu_names[c], "%d", c) < 0)
			return -1;
	return 0;
}

static void free_state(struct serve_state *st)
{
	for (int c = 0; st->cpu_names && c < st->nr_cpus; c++)
		free(st->cpu_names[c]);
	free(st->cpu_names);
	pthread_mutex_destroy(&st->lock);
}

static void announce(const struct server *s)
{
	char line[sizeof(s->textfile.dir) + 512];
	size_t n = snprintf(line, sizeof(line), "serving");

	for (int i = 0; i < serve_nr_sources; i++)
		if (serve_sources[i]->wanted && n < sizeof(line))
			n += snprintf(line + n, sizeof(line) - n, " %s",
				      serve_sources[i]->name);
	if (s->http && n < sizeof(line))
		n += snprintf(line + n, sizeof(line) - n, " on http://%s/metrics",
			      serve_http_address(s->http));
	if (s->textfile.dirfd >= 0 && n < sizeof(line))
		snprintf(line + n, sizeof(line) - n, "%s%s/%s every %g s",
			 s->http ? " and " : " in ", s->textfile.dir,
			 SERVE_TEXTFILE_NAME, s->st.cfg.interval_s);
	errmsg("%s", line);
}

static int serve(struct server *s)
{
	sigset_t set;
	char err[512];
	bool http = strcmp(s->args->listen, "none");

	if (!http && !s->st.cfg.textfile_dir[0] && !s->args->probes) {
		errmsg("nothing to serve: --listen none needs --textfile DIR");
		return 64;
	}
	/*
	 * Signals go to sigtimedwait only: blocked before any thread, and
	 * before the slow BPF loading, so that one sent meanwhile waits for
	 * the main loop (a SIGHUP then reloads, a SIGTERM ends it cleanly)
	 * instead of killing serve half started.
	 */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	/* --probes sees tracefs, and loads, as the service would */
	if (s->args->probes && env_drop_to_service_caps())
		return 1;
	if (env_prepare_tracing() || init_state(s))
		return 1;
	if (s->args->probes) {
		env_setup_libbpf_logging();
		return print_probes(&s->st);
	}
	/* What can fail at once fails before the slow BPF loading. */
	if (textfile_sync_dir(s, ""))
		return 1;
	if (http) {
		s->http = serve_http_bind(s->args->listen, err, sizeof(err));
		if (!s->http) {
			errmsg("%s", err);
			return 1;
		}
	}
	env_setup_libbpf_logging();
	if (s->args->bpf_stats) {
		/* The kernel keeps the statistics on while this fd is open. */
		s->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (s->stats_fd < 0) {
			errmsg("--bpf-stats: turning on BPF run-time statistics failed: %s (needs CAP_SYS_ADMIN)",
			       strerror(errno));
			return 1;
		}
		s->st.bpf_stats_held = true;
	}
	if (start_sources(&s->st))
		return 1;

	signal(SIGPIPE, SIG_IGN);

	if (s->http && serve_http_run(s->http, render_cb, &s->st,
				      &s->st.counters, err, sizeof(err))) {
		errmsg("%s", err);
		return 1;
	}
	announce(s);
	textfile_tick(s);
	serve_notify("READY=1");
	main_loop(s, &set);
	serve_notify("STOPPING=1");
	return 0;
}

int serve_run(const struct serve_opts *o, const struct serve_config *cfg)
{
	struct server s = { .args = o, .textfile = { .dirfd = -1 },
			    .stats_fd = -1 };
	int rc;

	select_sources(o);
	s.st.cfg = *cfg;
	rc = serve(&s);
	/* Stop answering first: a scrape must not see a detached source. */
	serve_http_stop(s.http);
	serve_textfile_close(&s.textfile, true);
	stop_sources();
	if (s.stats_fd >= 0)
		close(s.stats_fd);
	prom_buf_free(&s.textbuf);
	free_state(&s.st);
	return rc;
}
