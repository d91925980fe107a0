// SPDX-License-Identifier: GPL-2.0
/*
 * bhbench COMMAND [OPTION...]: dispatch to a workload. The top-level parser
 * only finds the command; each workload parses the rest itself, so that
 * "bhbench meta --help" documents exactly the options "meta" takes.
 */
#include "bhbench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/argp_words.h"

const char *argp_program_version = "bhbench " BHBENCH_VERSION;

static const struct {
	const char *name;
	int (*main)(int argc, char **argv);
	const struct argp *argp;	/* its options, for completion */
} commands[] = {
	{ "meta", meta_main, &meta_argp },
	{ "sync", sync_main, &sync_argp },
};

static const char doc[] =
	"Workloads for bhscope.\v"
	"Commands:\n"
	"  meta   create, stat and remove files (in the spirit of mdtest)\n"
	"  sync   synchronous writers: create, write, fsync (like fs_mark)\n"
	"\n"
	"'bhbench COMMAND --help' lists a command's options.";

struct top {
	int cmd_index;
};

static const struct argp_option top_options[] = {
	{ NULL, 'h', NULL, 0, "Give this help list (as -?, --help)", -1 },
	{ 0 },
};

static error_t top_parse(int key, char *arg, struct argp_state *state)
{
	struct top *top = state->input;

	(void)arg;
	switch (key) {
	case 'h':
		argp_state_help(state, state->out_stream, ARGP_HELP_STD_HELP);
		break;
	case ARGP_KEY_ARG:
		/* The command: leave it and what follows to the workload. */
		top->cmd_index = state->next - 1;
		state->next = state->argc;
		break;
	case ARGP_KEY_END:
		if (!top->cmd_index) {
			fprintf(stderr, "bhbench: missing command, meta or "
					"sync (see 'bhbench --help')\n");
			exit(EXIT_USAGE);
		}
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp top_argp = {
	.options = top_options,
	.parser = top_parse,
	.args_doc = "meta|sync [OPTION...]",
	.doc = doc,
};

int main(int argc, char **argv)
{
	struct top top = { 0 };
	char name[64];
	size_t i;

	argp_err_exit_status = EXIT_USAGE;
	/* Hidden, for bash completion: the commands, or a command's options. */
	if (argc > 1 && !strcmp(argv[1], "--complete")) {
		for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
			if (argc < 3)
				printf("%s\n", commands[i].name);
			else if (!strcmp(argv[2], commands[i].name))
				argp_words_print(stdout, commands[i].argp);
		}
		return 0;
	}
	argp_parse(&top_argp, argc, argv, ARGP_IN_ORDER, NULL, &top);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[top.cmd_index], commands[i].name))
			continue;
		/* argp names itself after argv[0]: "bhbench meta". */
		snprintf(name, sizeof(name), "bhbench %s", commands[i].name);
		argv[top.cmd_index] = name;
		return commands[i].main(argc - top.cmd_index,
					argv + top.cmd_index);
	}
	fprintf(stderr, "bhbench: unknown command '%s', want meta or sync "
			"(see 'bhbench --help')\n", argv[top.cmd_index]);
	return EXIT_USAGE;
}
