// SPDX-License-Identifier: GPL-2.0
/*
 * bhscope tune: show and set the buffer-head LRU size and the jbd2 batch
 * times. bhtune.ko makes both tunable at run time; without it the batch
 * times of ext4 can still be set by a remount, and the LRU size is fixed.
 */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "lib/cli.h"
#include "lru/lru_kernel.h"
#include "lib/devname.h"
#include "lib/errmsg.h"
#include "lib/tunables.h"
#include "lib/stop_signals.h"
#include "tune/tune_change.h"
#include "tune/tune_show.h"

static const char tune_doc[] =
	"Show or set the tunables: the buffer-head LRU size (lru_size, needs "
	"bhtune.ko) and the jbd2 batch times (batch_min_us, batch_max_us; "
	"through bhtune.ko when loaded, else by remounting ext4 with "
	"min_batch_time/max_batch_time).\v"
	"Actions:\n"
	"  show                 the tunables in force (default)\n"
	"  set NAME=VALUE...    lru_size, batch_min_us, batch_max_us (-1: each\n"
	"                       filesystem's own), batch_dev (MAJOR:MINOR, bhtune)\n"
	"  reset                every journal back to its filesystem's own batch\n"
	"                       times (bhtune), or to ext4's defaults (remount)\n"
	"Examples:\n"
	"  bhscope tune\n"
	"  bhscope tune set lru_size=32 batch_min_us=0\n"
	"  bhscope tune set -d loop0 batch_min_us=4000";

struct tune_opts {
	bool json, pretty;
	const char *dev;	/* -d: only this filesystem, as jbd2 names it */
	const char *dev_arg;	/* as the user wrote it */
	char dev_name[64];
	const char *action;
	char **assignments;
	int nr_assignments;
};

static const struct argp_option tune_options[] = {
	{ "device", 'd', "DEV", 0,
	  "Only the journal of this filesystem device: a name (loop0, "
	  "/dev/loop0) or MAJOR:MINOR", 0 },
	{ "json", 'j', NULL, 0, "JSON output (show), one line", 0 },
	{ "pretty", 'p', NULL, 0, "JSON output, indented (implies -j)", 0 },
	{ 0 },
};

/*
 * -d as elsewhere (a name, /dev/NAME or MAJOR:MINOR) to the name jbd2
 * gives the journal's device: the kernel's, '/' written as '!'.
 */
static int tune_device(const char *arg, char *name, size_t len, char *err,
		       size_t errlen)
{
	uint32_t kdev;

	if (devname_parse(arg, &kdev, 0, err, errlen))
		return -1;
	devname_of(kdev, name, len);
	for (char *c = name; *c; c++)
		if (*c == '/')
			*c = '!';
	return 0;
}

static error_t tune_parse(int key, char *arg, struct argp_state *state)
{
	struct tune_opts *o = state->input;
	char err[512];

	switch (key) {
	case 'd':
		if (o->dev) {
			argp_error(state, "-d given twice ('%s', then '%s'): one device, or none for every journal",
				   o->dev_arg, arg);
			return EINVAL;
		}
		o->dev_arg = arg;
		if (tune_device(arg, o->dev_name, sizeof(o->dev_name), err,
				sizeof(err))) {
			argp_failure(state, 1, 0, "%s", err);
			return EINVAL;
		}
		o->dev = o->dev_name;
		break;
	case 'p':
		o->pretty = true;
		/* fall through */
	case 'j':
		o->json = true;
		break;
	case ARGP_KEY_ARG:
		if (!o->action) {
			if (strcmp(arg, "show") && strcmp(arg, "set") &&
			    strcmp(arg, "reset")) {
				argp_error(state, "unknown action '%s': want show, set or reset", arg);
				return EINVAL;
			}
			o->action = arg;
			break;
		}
		if (strcmp(o->action, "set")) {
			argp_error(state, "unexpected argument '%s'", arg);
			return EINVAL;
		}
		o->assignments = &state->argv[state->next - 1];
		o->nr_assignments = state->argc - state->next + 1;
		state->next = state->argc;
		break;
	case ARGP_KEY_END:
		if (!o->action)
			o->action = "show";
		if (!strcmp(o->action, "set") && !o->nr_assignments) {
			argp_error(state, "set needs NAME=VALUE, e.g. batch_min_us=1000");
			return EINVAL;
		}
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp tune_argp = {
	.options = tune_options,
	.parser = tune_parse,
	.args_doc = "[show | set NAME=VALUE... | reset]",
	.doc = tune_doc,
	.children = cli_help_children,
};

static const char *const known[] = { "lru_size", "batch_min_us",
				     "batch_max_us", "batch_dev" };

/* Splits NAME=VALUE in place (argv is ours) and checks both. */
static int parse_setting(char *arg, struct tune_setting *s)
{
	char *eq = strchr(arg, '='), *end;

	if (!eq || eq == arg) {
		errmsg("tune set: '%s' is not NAME=VALUE", arg);
		return -1;
	}
	*eq = '\0';
	s->name = arg;
	s->value = eq + 1;
	for (size_t i = 0; i < sizeof(known) / sizeof(*known); i++) {
		if (strcmp(s->name, known[i]))
			continue;
		if (!strcmp(s->name, "batch_dev"))
			return 0;
		errno = 0;
		s->num = strtol(s->value, &end, 10);
		if (errno || end == s->value || *end ||
		    s->num < (strcmp(s->name, "lru_size") ? -1 : 0)) {
			errmsg("tune set: invalid value '%s' for %s",
			       s->value, s->name);
			return -1;
		}
		if (strcmp(s->name, "lru_size") && s->num > BATCH_US_MAX) {
			errmsg("tune set: %s=%s is out of range (-1..%d)",
			       s->name, s->value, BATCH_US_MAX);
			return -1;
		}
		return 0;
	}
	errmsg("tune set: unknown tunable '%s' (lru_size, batch_min_us, batch_max_us, batch_dev)",
	       s->name);
	return -1;
}

/* -d names a device: it must hold a journal in use, or nothing matches. */
static int check_device_has_journal(const struct tune_opts *o)
{
	struct journal_tunables *js;
	int n = tunables_journals_list(&js), found = 0;

	if (n < 0) {
		errmsg("cannot list /proc/fs/jbd2: %s",
		       strerror(-n));
		return -1;
	}
	for (int i = 0; i < n && !found; i++)
		found = !strcmp(js[i].dev, o->dev);
	free(js);
	if (found)
		return 0;
	errmsg("tune: no jbd2 journal in use on %s (see bhscope tune)",
	       o->dev);
	return -1;
}

/* Both batch times given: min above max is refused on either path. */
static int refuse_pair(const struct tune_setting *s, int n)
{
	long min_us = -1, max_us = -1;
	char why[128];

	for (int i = 0; i < n; i++) {
		if (!strcmp(s[i].name, "batch_min_us"))
			min_us = s[i].num;
		else if (!strcmp(s[i].name, "batch_max_us"))
			max_us = s[i].num;
	}
	if (min_us < 0 || max_us < 0 ||
	    !tunables_batch_check(min_us, max_us, why, sizeof(why)))
		return 0;
	errmsg("tune set: refused: %s", why);
	return -1;
}

int cmd_tune(int argc, char **argv)
{
	struct tune_opts o = {};
	struct tune_setting s[16];
	sigset_t mask;
	int ret;

	if (argp_parse(&tune_argp, argc, argv, ARGP_IN_ORDER, NULL, &o))
		return 64;
	if (o.dev && check_device_has_journal(&o))
		return 1;
	if (!strcmp(o.action, "show")) {
		char why[256];
		int slots = lru_kernel_slots(why, sizeof(why));

		return tune_show(o.dev, slots, why, o.json, o.pretty);
	}
	if (geteuid()) {
		errmsg("tune %s needs root", o.action);
		return 1;
	}
	if (o.nr_assignments > (int)(sizeof(s) / sizeof(*s))) {
		errmsg("tune set: too many settings");
		return 64;
	}
	for (int i = 0; i < o.nr_assignments; i++)
		if (parse_setting(o.assignments[i], &s[i]))
			return 64;
	if (refuse_pair(s, o.nr_assignments))
		return 1;
	/*
	 * All or nothing: a stop signal waits until every change is made,
	 * or rolled back, and said; then it ends bhscope as it would have.
	 */
	stop_signals_block(&mask, NULL);
	ret = tune_change(&(struct tune_request){ .action = o.action,
						  .dev = o.dev },
			  s, o.nr_assignments);
	fflush(stdout);
	stop_signals_restore(&mask);
	return ret;
}
