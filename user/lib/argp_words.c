// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>

#include "lib/argp_words.h"

static void print_option(FILE *out, const struct argp_option *o,
			 const char *arg)
{
	if (o->name)
		fprintf(out, "--%s\t%s\n", o->name, arg ? arg : "");
	/* argp's keys for long-only options lie outside the characters */
	if (o->key > 0 && o->key < 128 && isprint(o->key))
		fprintf(out, "-%c\t%s\n", o->key, arg ? arg : "");
}

static void walk(FILE *out, const struct argp *a)
{
	const char *arg = NULL;

	for (const struct argp_option *o = a->options; o &&
	     (o->name || o->key || o->doc || o->group); o++) {
		if (o->flags & OPTION_DOC)
			continue;
		/* an alias takes its option's argument */
		if (!(o->flags & OPTION_ALIAS))
			arg = o->arg;
		if (!(o->flags & OPTION_HIDDEN) && (o->name || o->key))
			print_option(out, o, arg);
	}
	for (const struct argp_child *c = a->children; c && c->argp; c++)
		walk(out, c->argp);
}

void argp_words_print(FILE *out, const struct argp *a)
{
	walk(out, a);
	/* argp's own, on every command */
	fputs("-?\t\n--help\t\n--usage\t\n", out);
	if (argp_program_version || argp_program_version_hook)
		fputs("-V\t\n--version\t\n", out);
}
