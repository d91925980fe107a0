// SPDX-License-Identifier: GPL-2.0
/*
 * bhscope serve: attach once, keep cumulative counters in the kernel, and
 * export them to Prometheus on /metrics and/or as a node_exporter textfile.
 */
#include <argp.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "lib/cli.h"
#include "lib/clock.h"
#include "lib/env.h"
#include "lib/hz.h"
#include "lib/term_safe.h"
#include "serve/serve.h"
#include "serve/serve_devices.h"
#include "serve/serve_http.h"
#include "serve/serve_notify.h"
#include "serve/serve_textfile.h"

static const char serve_doc[] =
	"Export bhscope's figures to Prometheus: attaches once, keeps cumulative "
	"counters and histograms in the kernel, and serves them on "
	"http://ADDR:PORT/metrics (default " SERVE_DEFAULT_LISTEN
	") and/or rewrites DIR/" SERVE_TEXTFILE_NAME
	" for node_exporter's textfile collector every interval. Without --jbd2 "
	"or --lru, every source this build has is served.\n\n"
	"Signals: SIGTERM and SIGINT detach and exit (the textfile is removed); "
	"SIGHUP re-reads --config FILE (per-cpu, device, textfile, interval; "
	"the command line wins over the file), re-scans the devices, reopens "
	"the textfile directory and retries sources that are down.\v"
	"Examples:\n"
	"  bhscope serve                          # http://127.0.0.1:9747/metrics\n"
	"  bhscope serve --listen :9747 --per-cpu # every address, cpu labels\n"
	"  bhscope serve --listen none --textfile /var/lib/prometheus/node-exporter\n"
	"  bhscope serve -d loop0 -d 8:16         # only these journals\n"
	"  bhscope serve --config /etc/bhscope/serve.conf   # kill -HUP to reload\n"
	"  curl -s http://127.0.0.1:9747/metrics | grep bhscope_jbd2_transactions";

enum {
	OPT_TEXTFILE = 0x100,
	OPT_JBD2,
	OPT_LRU,
	OPT_BPF_STATS,
	OPT_PROBES,
};

static const struct argp_option serve_options[] = {
	{ "listen", 'l', "ADDR:PORT", 0,
	  "Serve /metrics there: ADDR:PORT, [ADDR6]:PORT, :PORT (every address), "
	  "PORT 0 picks a free one; 'none' for no HTTP (default "
	  SERVE_DEFAULT_LISTEN ")", 0 },
	{ "textfile", OPT_TEXTFILE, "DIR", 0,
	  "Rewrite DIR/" SERVE_TEXTFILE_NAME " atomically every interval", 0 },
	{ "interval", 'i', "SECONDS", 0,
	  "Textfile rewrites and device pruning, every SECONDS (default 15)", 0 },
	{ "per-cpu", 'C', NULL, 0,
	  "Label series by cpu too (more series: one per CPU that saw events)", 0 },
	{ "device", 'd', "DEV", 0,
	  "Only this device: a name (loop0, /dev/loop0) or MAJOR:MINOR; "
	  "repeatable; it need not exist yet", 0 },
	{ "config", 'c', "FILE", 0,
	  "Read per-cpu, device, textfile, interval from FILE (key = value "
	  "lines), again on SIGHUP", 0 },
	{ "jbd2", OPT_JBD2, NULL, 0, "Serve the jbd2 commit-batching figures", 0 },
	{ "lru", OPT_LRU, NULL, 0, "Serve the buffer-head LRU figures", 0 },
	{ "bpf-stats", OPT_BPF_STATS, NULL, 0,
	  "Turn on the kernel's BPF run-time statistics while serving (every "
	  "BPF program then pays ~20 ns a run; needs CAP_SYS_ADMIN), for the "
	  "bhscope_bpf_prog_run_seconds_total family", 0 },
	{ "probes", OPT_PROBES, NULL, 0,
	  "Attach the sources once, with the capabilities bhscope.service has "
	  "(CAP_BPF, CAP_PERFMON), print the hook of each probe or why it is "
	  "down, and whether any needs tracefs (a classic tracepoint's id), "
	  "then exit", 0 },
	{ 0 },
};

struct serve_args {
	const char *listen;
	const char *config;
	struct serve_config cli;
	unsigned int cli_set;
	bool want_jbd2;
	bool want_lru;
	bool bpf_stats;
	bool probes;
};

static error_t serve_parse_opt(int key, char *arg, struct argp_state *state)
{
	struct serve_args *a = state->input;
	char err[256];
	const char *k = NULL;

	switch (key) {
	case 'l':
		a->listen = arg;
		return 0;
	case 'c':
		a->config = arg;
		return 0;
	case OPT_JBD2:
		a->want_jbd2 = true;
		return 0;
	case OPT_LRU:
		a->want_lru = true;
		return 0;
	case OPT_BPF_STATS:
		a->bpf_stats = true;
		return 0;
	case OPT_PROBES:
		a->probes = true;
		return 0;
	case 'C':
		a->cli.per_cpu = true;
		a->cli_set |= SERVE_SET_PER_CPU;
		return 0;
	case OPT_TEXTFILE:
		k = "textfile";
		break;
	case 'i':
		k = "interval";
		break;
	case 'd':
		k = "device";
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	if (serve_config_set(&a->cli, &a->cli_set, k, arg, err, sizeof(err)))
		argp_error(state, "%s", err);
	return 0;
}

const struct argp serve_argp = {
	.options = serve_options,
	.parser = serve_parse_opt,
	.doc = serve_doc,
	.children = cli_help_children,
};

/* Everything the main loop owns. */
struct server {
	struct serve_state st;
	struct serve_args args;
	struct serve_http *http;
	struct serve_textfile textfile;
	struct prom_buf textbuf;
	bool textfile_failing;
	int stats_fd;		/* --bpf-stats: held while serving */
};

static void render_cb(void *arg, struct prom_buf *out)
{
	serve_render(arg, out);
}

static int select_sources(const struct serve_args *a)
{
	bool all = !a->want_jbd2 && !a->want_lru;

	for (int i = 0; i < serve_nr_sources; i++) {
		struct serve_source *src = serve_sources[i];

		src->wanted = all ||
			      (a->want_jbd2 && !strcmp(src->name, "jbd2")) ||
			      (a->want_lru && !strcmp(src->name, "lru"));
	}
	return 0;
}

/* One line per distinct reason: "fentry/x, fexit/x not attached: why". */
static void report_source(const struct serve_source *src)
{
	if (!src->running) {
		fprintf(stderr, "bhscope: %s: not serving yet: %s\n", src->name,
			src->nr_probes ? src->probes[0].why : strerror(-src->start_err));
		return;
	}
	for (int i = 0; i < src->nr_probes; i++) {
		const struct serve_probe *p = &src->probes[i];
		bool said = false;

		for (int j = 0; j < i && !said; j++)
			said = !src->probes[j].up && !strcmp(src->probes[j].why, p->why);
		if (p->up || said)
			continue;
		fprintf(stderr, "bhscope: %s: %s", src->name, p->name);
		for (int j = i + 1; j < src->nr_probes; j++)
			if (!src->probes[j].up && !strcmp(src->probes[j].why, p->why))
				fprintf(stderr, ", %s", src->probes[j].name);
		fprintf(stderr, " not attached: %s\n", p->why);
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
		fprintf(stderr, "bhscope: no source could start; nothing to serve\n");
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
			fprintf(stderr, "bhscope: %s: now serving\n", src->name);
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
	fprintf(stderr, "bhscope: %s\n", err);
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
			fprintf(stderr, "bhscope: textfile writes work again\n");
		s->textfile_failing = false;
		return;
	}
	__atomic_fetch_add(&s->st.counters.textfile_errors, 1, __ATOMIC_RELAXED);
	if (!s->textfile_failing)	/* one line per failing streak */
		fprintf(stderr, "bhscope: %s\n",
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
		fprintf(stderr, "bhscope: %s: its hooks went stale: attaching again, its counters start from 0\n",
			src->name);
		start_source(src, st->nr_cpus, false);
		if (!src->running && src->start_err == -ENOENT)
			fprintf(stderr, "bhscope: %s: retried every interval\n",
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

	rc = serve_config_load(&next, s->args.config, &s->args.cli,
			       s->args.cli_set, err, sizeof(err));
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
		fprintf(stderr, "bhscope: no textfile until the directory is usable (retried every interval)\n");
	fprintf(stderr, "bhscope: configuration reloaded%s%s\n",
		s->args.config ? " from " : "",
		s->args.config ? s->args.config : "");
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
		fputs(HZ_UNKNOWN_MSG, stderr);
		return -1;
	}
	st->nr_cpus = libbpf_num_possible_cpus();
	if (st->nr_cpus <= 0) {
		fprintf(stderr, "bhscope: cannot count the possible CPUs: %s\n",
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
	fprintf(stderr, "bhscope: serving");
	for (int i = 0; i < serve_nr_sources; i++)
		if (serve_sources[i]->wanted)
			fprintf(stderr, " %s", serve_sources[i]->name);
	if (s->http)
		fprintf(stderr, " on http://%s/metrics",
			serve_http_address(s->http));
	if (s->textfile.dirfd >= 0)
		fprintf(stderr, "%s%s/%s every %g s", s->http ? " and " : " in ",
			s->textfile.dir, SERVE_TEXTFILE_NAME,
			s->st.cfg.interval_s);
	fprintf(stderr, "\n");
}

static int serve(struct server *s)
{
	sigset_t set;
	char err[512];
	bool http = strcmp(s->args.listen, "none");

	if (!http && !s->st.cfg.textfile_dir[0] && !s->args.probes) {
		fprintf(stderr, "bhscope: nothing to serve: --listen none needs --textfile DIR\n");
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
	if (s->args.probes && env_drop_to_service_caps())
		return 1;
	if (env_prepare_tracing() || init_state(s))
		return 1;
	if (s->args.probes) {
		env_setup_libbpf_logging();
		return print_probes(&s->st);
	}
	/* What can fail at once fails before the slow BPF loading. */
	if (textfile_sync_dir(s, ""))
		return 1;
	if (http) {
		s->http = serve_http_bind(s->args.listen, err, sizeof(err));
		if (!s->http) {
			fprintf(stderr, "bhscope: %s\n", err);
			return 1;
		}
	}
	env_setup_libbpf_logging();
	if (s->args.bpf_stats) {
		/* The kernel keeps the statistics on while this fd is open. */
		s->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (s->stats_fd < 0) {
			fprintf(stderr, "bhscope: --bpf-stats: turning on BPF run-time statistics failed: %s (needs CAP_SYS_ADMIN)\n",
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
		fprintf(stderr, "bhscope: %s\n", err);
		return 1;
	}
	announce(s);
	textfile_tick(s);
	serve_notify("READY=1");
	main_loop(s, &set);
	serve_notify("STOPPING=1");
	return 0;
}

int cmd_serve(int argc, char **argv)
{
	struct server s = { .textfile = { .dirfd = -1 }, .stats_fd = -1 };
	char err[512];
	int rc;

	s.args.listen = SERVE_DEFAULT_LISTEN;
	serve_config_defaults(&s.args.cli);
	if (argp_parse(&serve_argp, argc, argv, 0, NULL, &s.args))
		return 64;
	if (select_sources(&s.args))
		return 64;
	if (strcmp(s.args.listen, "none")) {
		char host[256], port[8];

		if (serve_listen_parse(s.args.listen, host, sizeof(host), port,
				       sizeof(port), err, sizeof(err))) {
			fprintf(stderr, "bhscope: %s\n", err);
			return 64;
		}
	}
	if (serve_config_load(&s.st.cfg, s.args.config, &s.args.cli,
			      s.args.cli_set, err, sizeof(err))) {
		term_safe_error("%s", err);
		return 1;
	}
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
