// SPDX-License-Identifier: GPL-2.0
/*
 * bhscope: buffer-head LRU and jbd2 commit-batching tracing, one binary with
 * subcommands in the manner of perf and bpftool.
 */
#include <argp.h>
#include <bpf/libbpf.h>
#include <bpf/libbpf_version.h>
#include <json-c/json.h>
#include <microhttpd.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <zstd.h>

#include "cmd.h"
#include "lib/argp_words.h"
#include "lib/errmsg.h"
#include "lib/stdout_check.h"

struct command {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
	const struct argp *argp;	/* its options, for completion */
};

static const struct command commands[] = {
	{ "lru", "buffer-head LRU per CPU: hit ratio, slots, misses, what-if curve",
	  cmd_lru, &lru_argp },
	{ "simulate", "replay an 'lru --trace' file: the exact what-if curve",
	  cmd_simulate, &simulate_argp },
	{ "jbd2", "jbd2 commit batching per journal: commits, handles, phases",
	  cmd_jbd2, &jbd2_argp },
	{ "tune", "show or set the LRU size and jbd2 batch times (bhtune.ko)",
	  cmd_tune, &tune_argp },
	{ "record", "run a workload under tracing, write one JSON record",
	  cmd_record, &record_argp },
	{ "serve", "export the figures to Prometheus (/metrics, textfile)",
	  cmd_serve, &serve_argp },
	{ "compare", "before/after tables from records: median, spread, % change",
	  cmd_compare, &compare_argp },
	{ "sweep", "run a matrix of settings, one record per cell, one table",
	  cmd_sweep, &sweep_argp },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	fprintf(out, "Usage: bhscope COMMAND [OPTION...] [ARG...]\n\n"
		     "Trace the buffer-head LRU and jbd2 commit batching.\n\n"
		     "Commands:\n");
	for (size_t i = 0; i < NR_COMMANDS; i++)
		fprintf(out, "  %-10s %s\n", commands[i].name,
			commands[i].summary);
	fprintf(out, "\nRun 'bhscope COMMAND -h' for a command's options; -V, --version\n"
		     "anywhere for the versions of bhscope and the libraries it uses.\n");
}

/*
 * The version line, then what it runs on, as bpftool -V: the libbpf in use
 * (and the one it was built against), the BPF programs built in, and the
 * libraries and build features the figures and outputs depend on.
 */
static void print_version(FILE *out, struct argp_state *state)
{
	(void)state;
	fprintf(out, "bhscope %s\n", BHSCOPE_VERSION);
	fprintf(out, "using libbpf v%u.%u (built against v%d.%d)\n",
		libbpf_major_version(), libbpf_minor_version(),
		LIBBPF_MAJOR_VERSION, LIBBPF_MINOR_VERSION);
	fprintf(out, "features: skeletons (jbd2, lru), json-c %s, libmicrohttpd %s, zstd %s, %s%s\n",
		json_c_version(), MHD_get_version(), ZSTD_versionString(),
		getauxval(AT_BASE) ? "dynamic" : "static",
#ifdef __SSE2__
		", sse2"
#else
		""
#endif
	);
}

/* -V and --version in every command's argp, and at the top. */
void (*argp_program_version_hook)(FILE *, struct argp_state *) = print_version;

static int run(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 64;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		print_version(stdout, NULL);
		return 0;
	}
	/*
	 * Hidden, for bash completion (completion/bhscope): the commands, or
	 * a command's options as its argp tables hold them.
	 */
	if (!strcmp(argv[1], "--complete")) {
		for (size_t i = 0; i < NR_COMMANDS; i++) {
			if (argc < 3)
				printf("%s\n", commands[i].name);
			else if (!strcmp(argv[2], commands[i].name))
				argp_words_print(stdout, commands[i].argp);
		}
		return 0;
	}
	for (size_t i = 0; i < NR_COMMANDS; i++) {
		char name[64];

		if (strcmp(argv[1], commands[i].name))
			continue;
		/* argp prefixes its messages with argv[0]. */
		snprintf(name, sizeof(name), "bhscope %s", commands[i].name);
		argv[1] = name;
		return commands[i].run(argc - 1, argv + 1);
	}
	errmsg("unknown command '%s'; see 'bhscope --help'",
	       argv[1]);
	return 64;
}

int main(int argc, char **argv)
{
	int rc;

	/* argp's --help and usage errors end in exit(): checked there too. */
	stdout_check_at_exit();
	rc = run(argc, argv);
	if (stdout_check() && !rc)
		rc = 1;
	return rc;
}
