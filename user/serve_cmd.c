// SPDX-License-Identifier: GPL-2.0
/*
 * bhscope serve: attach once, keep cumulative counters in the kernel, and
 * export them to Prometheus on /metrics and/or as a node_exporter textfile.
 */
#include <argp.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "lru_stats.h"
#include "lib/cli.h"
#include "lib/errmsg.h"
#include "lib/term_safe.h"
#include "serve/serve_run.h"

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
	"  bhscope serve --lru --lru-duty=2/60    # lookups 2 s a minute, hits always\n"
	"  curl -s http://127.0.0.1:9747/metrics | grep bhscope_jbd2_transactions";

enum {
	OPT_TEXTFILE = 0x100,
	OPT_JBD2,
	OPT_LRU,
	OPT_BPF_STATS,
	OPT_PROBES,
	OPT_LRU_TIMING,
	OPT_LRU_WHATIF,
	OPT_LRU_DUTY,
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
	{ "lru-timing", OPT_LRU_TIMING, "N", 0,
	  "Time one LRU lookup in N per CPU, by outcome, for the "
	  "bhscope_lru_lookup_seconds histograms (default 0: none; "
	  "--lru-whatif: 64)", 0 },
	{ "lru-whatif", OPT_LRU_WHATIF, "N", 0,
	  "Keep a ghost list for LRU sizes up to N and export each power of "
	  "two up to N, the LRU's size and N: the hits such an LRU would "
	  "give and the lookup time it would take (with --lru-timing)", 0 },
	{ "lru-duty", OPT_LRU_DUTY, "WINDOW/PERIOD", OPTION_ARG_OPTIONAL,
	  "Attach the LRU lookup probes for WINDOW seconds in every PERIOD "
	  "(default " SERVE_LRU_DUTY_DEFAULT ", the first at once) and export "
	  "each window's figures as bhscope_lru_window_* gauges; the hits-only "
	  "tracepoint counts throughout", 0 },
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

static error_t serve_parse_opt(int key, char *arg, struct argp_state *state)
{
	struct serve_opts *a = state->input;
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
	case OPT_LRU_TIMING:
		if (cli_parse_uint(arg, 0, CLI_TIMING_MAX, &a->lru_timing))
			argp_error(state, "invalid --lru-timing '%s': want 0 to %u",
				   arg, CLI_TIMING_MAX);
		a->lru_timing_set = true;
		return 0;
	case OPT_LRU_WHATIF:
		if (cli_parse_uint(arg, 1, BHSCOPE_LRU_DEPTH_MAX,
				   &a->lru_whatif))
			argp_error(state, "invalid --lru-whatif '%s': want 1 to %d",
				   arg, BHSCOPE_LRU_DEPTH_MAX);
		return 0;
	case OPT_LRU_DUTY:
		if (cli_parse_duty(arg ? arg : SERVE_LRU_DUTY_DEFAULT,
				   &a->lru_window_ms, &a->lru_period_ms))
			argp_error(state, "invalid --lru-duty '%s': want WINDOW/PERIOD in seconds, the window shorter (%s)",
				   arg, SERVE_LRU_DUTY_DEFAULT);
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
		if (a->lru_window_ms && strchr(arg, '/'))
			argp_error(state, "unexpected argument '%s' (an optional value is joined: --lru-duty=%s)",
				   arg, arg);
		argp_error(state, "unexpected argument '%s'", arg);
		return 0;
	case ARGP_KEY_END:
		if (a->lru_window_ms && a->want_jbd2 && !a->want_lru)
			argp_error(state, "--lru-duty needs the LRU source: add --lru");
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

int cmd_serve(int argc, char **argv)
{
	struct serve_opts o = { .listen = SERVE_DEFAULT_LISTEN };
	struct serve_config cfg;
	char err[512];

	serve_config_defaults(&o.cli);
	if (argp_parse(&serve_argp, argc, argv, 0, NULL, &o))
		return 64;
	if (strcmp(o.listen, "none")) {
		char host[256], port[8];

		if (serve_config_listen_parse(o.listen, host, sizeof(host),
					      port,
					      sizeof(port), err, sizeof(err))) {
			errmsg("%s", err);
			return 64;
		}
	}
	if (serve_config_load(&cfg, o.config, &o.cli, o.cli_set, err,
			      sizeof(err))) {
		term_safe_error("%s", err);
		return 1;
	}
	return serve_run(&o, &cfg);
}
