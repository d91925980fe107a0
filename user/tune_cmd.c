// SPDX-License-Identifier: GPL-2.0
/*
 * bhscope tune: show and set the buffer-head LRU size and the jbd2 batch
 * times. bhtune.ko makes both tunable at run time; without it the batch
 * times of ext4 can still be set by a remount, and the LRU size is fixed.
 */
#include <argp.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "commands.h"
#include "lib/cli.h"
#include "lru/lru_kernel.h"
#include "lib/devname.h"
#include "lib/tunables.h"
#include "lib/tunables_lock.h"
#include "lib/json_out.h"
#include "lib/stop_signals.h"

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

/* bhtune's batch times over what the filesystem set, and from where. */
static const char *effective(const struct bhtune_params *b,
			     struct journal_tunables *j)
{
	char nums[32];

	tunables_dev_numbers(j->dev, nums, sizeof(nums));
	if (journal_apply_bhtune(j, b, nums))
		return "bhtune";
	return j->from == TUNABLES_EXT4_OPTIONS ? "ext4" : "jbd2 default";
}

/* A parameter as tune shows it: -1 when unreadable. */
static long shown(long v)
{
	return v == BHTUNE_ABSENT ? -1 : v;
}

static int show(const struct tune_opts *o)
{
	struct journal_tunables *js;
	struct bhtune_params b;
	const char *why = bhtune_unavailable_reason();
	char slots_why[256];
	int n, slots;

	bhtune_params_read(&b);
	slots = lru_kernel_slots(slots_why, sizeof(slots_why));
	n = journals_list(&js);
	if (n < 0) {
		fprintf(stderr, "bhscope: cannot list /proc/fs/jbd2: %s\n",
			strerror(-n));
		return 1;
	}
	if (o->json) {
		struct json_object *root = json_out_new("bhscope.tune/1"), *arr, *jo,
				   *bo = json_object_new_object();

		json_object_object_add(bo, "loaded", json_object_new_boolean(b.loaded));
		if (!b.loaded && why)
			json_object_object_add(bo, "unavailable", json_object_new_string(why));
		if (b.loaded) {
			json_object_object_add(bo, "lru_size", json_object_new_int64(shown(b.lru_size)));
			json_object_object_add(bo, "batch_min_us", json_object_new_int64(shown(b.batch_min_us)));
			json_object_object_add(bo, "batch_max_us", json_object_new_int64(shown(b.batch_max_us)));
			json_object_object_add(bo, "batch_dev", json_object_new_string(b.batch_dev));
		}
		json_object_object_add(root, "bhtune", bo);
		jo = json_object_new_object();
		json_object_object_add(jo, "value", b.loaded ? json_object_new_int64(shown(b.lru_size)) :
				       slots > 0 ? json_object_new_int(slots) : NULL);
		json_object_object_add(jo, "from", json_object_new_string(b.loaded ? "bhtune" : "kernel"));
		json_object_object_add(root, "lru_size", jo);
		arr = json_object_new_array();
		for (int i = 0; i < n; i++) {
			const char *from = effective(&b, &js[i]);

			if (o->dev && strcmp(o->dev, js[i].dev))
				continue;
			jo = json_object_new_object();
			json_object_object_add(jo, "device", json_object_new_string(js[i].dev));
			json_object_object_add(jo, "mount", json_object_new_string(js[i].mnt));
			json_object_object_add(jo, "min_batch_us", json_object_new_int64(js[i].min_batch_us));
			json_object_object_add(jo, "max_batch_us", json_object_new_int64(js[i].max_batch_us));
			json_object_object_add(jo, "from", json_object_new_string(from));
			json_object_array_add(arr, jo);
		}
		json_object_object_add(root, "journals", arr);
		free(js);
		/* A write error: main's stdout check says why. */
		return json_out_print(stdout, root, o->pretty ? JSON_OUT_PRETTY :
							       JSON_OUT_LINE) ? 1 : 0;
	}

	if (b.loaded)
		printf("bhtune.ko: loaded; batch_min_us %ld, batch_max_us %ld (-1: each filesystem's own), batch_dev %s\n",
		       shown(b.batch_min_us), shown(b.batch_max_us),
		       b.batch_dev[0] ? b.batch_dev : "all");
	else
		printf("bhtune.ko: not loaded%s%s\n", why ? ": " : "",
		       why ? why : " (insmod kmod/bhtune.ko to tune the LRU size)");
	if (b.loaded)
		printf("lru_size: %ld (bhtune's per-CPU LRU)\n", shown(b.lru_size));
	else if (slots > 0)
		printf("lru_size: %d (the kernel's BH_LRU_SIZE, fixed at build time)\n", slots);
	else
		printf("lru_size: unknown (%s)\n", slots_why);
	printf("%-12s %-32s %12s %12s  %s\n", "journal of", "mounted on",
	       "min_batch_us", "max_batch_us", "from");
	for (int i = 0; i < n; i++) {
		const char *from = effective(&b, &js[i]);

		if (o->dev && strcmp(o->dev, js[i].dev))
			continue;
		printf("%-12s %-32s %12ld %12ld  %s\n", js[i].dev,
		       js[i].mnt[0] ? js[i].mnt : "-", js[i].min_batch_us,
		       js[i].max_batch_us, from);
	}
	if (!n)
		printf("(no jbd2 journal is in use)\n");
	free(js);
	return 0;
}

struct setting {
	const char *name;
	const char *value;
	long num;
};

static const char *const known[] = { "lru_size", "batch_min_us",
				     "batch_max_us", "batch_dev" };

/* Splits NAME=VALUE in place (argv is ours) and checks both. */
static int parse_setting(char *arg, struct setting *s)
{
	char *eq = strchr(arg, '='), *end;

	if (!eq || eq == arg) {
		fprintf(stderr, "bhscope: tune set: '%s' is not NAME=VALUE\n", arg);
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
			fprintf(stderr, "bhscope: tune set: invalid value '%s' for %s\n",
				s->value, s->name);
			return -1;
		}
		if (strcmp(s->name, "lru_size") && s->num > BATCH_US_MAX) {
			fprintf(stderr, "bhscope: tune set: %s=%s is out of range (-1..%d)\n",
				s->name, s->value, BATCH_US_MAX);
			return -1;
		}
		return 0;
	}
	fprintf(stderr, "bhscope: tune set: unknown tunable '%s' (lru_size, batch_min_us, batch_max_us, batch_dev)\n",
		s->name);
	return -1;
}

/* Why bhtune refused a write, for the one-line error. */
static const char *refusal(const char *name, int err)
{
	if (err == -ENODEV)
		return "no ext4 journal on that device";
	if (err != -EINVAL)
		return strerror(-err);
	if (strcmp(name, "batch_min_us") && strcmp(name, "batch_max_us"))
		return "out of range";
	return "out of range, or a min above a journal's max batch time (the kernel log names it)";
}

static int set_with_bhtune(struct setting *s, int n)
{
	const struct setting *min = NULL, *max = NULL;
	int err;

	/* batch_dev first, so the batch times apply to the chosen journal. */
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < n; i++) {
			if ((pass == 0) != !strcmp(s[i].name, "batch_dev"))
				continue;
			if (!strcmp(s[i].name, "batch_min_us")) {
				min = &s[i];
				continue;
			}
			if (!strcmp(s[i].name, "batch_max_us")) {
				max = &s[i];
				continue;
			}
			err = bhtune_param_set(s[i].name, s[i].value);
			if (err) {
				fprintf(stderr, "bhscope: bhtune refused %s=%s: %s\n",
					s[i].name, s[i].value, refusal(s[i].name, err));
				return 1;
			}
			printf("%s = %s (bhtune)\n", s[i].name, s[i].value);
		}
	}
	if (min && max) {
		err = bhtune_batch_set(min->num, max->num);
		if (err) {
			fprintf(stderr, "bhscope: bhtune refused batch_min_us=%s batch_max_us=%s: %s\n",
				min->value, max->value, refusal(min->name, err));
			return 1;
		}
		printf("%s = %s (bhtune)\n%s = %s (bhtune)\n", min->name,
		       min->value, max->name, max->value);
		return 0;
	}
	if (min || max) {
		const struct setting *b = min ? min : max;

		err = bhtune_param_set(b->name, b->value);
		if (err) {
			fprintf(stderr, "bhscope: bhtune refused %s=%s: %s\n",
				b->name, b->value, refusal(b->name, err));
			return 1;
		}
		printf("%s = %s (bhtune)\n", b->name, b->value);
	}
	return 0;
}

/* Whether remount_batch() touches journal j: an ext4 it can remount. */
static bool remountable(const struct tune_opts *o,
			const struct journal_tunables *j)
{
	return (!o->dev || !strcmp(o->dev, j->dev)) &&
	       j->from == TUNABLES_EXT4_OPTIONS && j->mnt[0];
}

/* Claims journal j's batch times for this command (one tuner at a time). */
static int claim_journal(const struct tune_opts *o,
			 const struct journal_tunables *j,
			 struct tunables_claim *c)
{
	char by[32], err[512];
	struct stat st;

	snprintf(by, sizeof(by), "tune %s", o->action);
	if (stat(j->mnt, &st)) {
		fprintf(stderr, "bhscope: %s: %s\n", j->mnt, strerror(errno));
		return -1;
	}
	if (!tunables_claim_journal(c, major(st.st_dev), minor(st.st_dev),
				    j->dev, by, err, sizeof(err)))
		return 0;
	fprintf(stderr, "bhscope: %s\n", err);
	return -1;
}

/*
 * Without bhtune: remount each (or the -d) ext4 with the batch times (-1:
 * that journal's own). reset: ext4's defaults, or where a killed tuner
 * left its originals saved, those. Every journal is checked and claimed
 * before any is changed: a refusal leaves all of them as they were.
 */
static int remount_batch(const struct tune_opts *o, long min_us, long max_us,
			 bool reset)
{
	struct tunables_claim *claims;
	struct journal_tunables *js;
	int n = journals_list(&js), done = 0, rc = 0;

	if (n < 0) {
		fprintf(stderr, "bhscope: cannot list /proc/fs/jbd2: %s\n", strerror(-n));
		return 1;
	}
	claims = calloc(n ? n : 1, sizeof(*claims));
	if (!claims) {
		free(js);
		fprintf(stderr, "bhscope: out of memory\n");
		return 1;
	}
	for (int i = 0; i < n; i++)
		claims[i] = (struct tunables_claim)TUNABLES_CLAIM_NONE;
	for (int i = 0; i < n && !rc; i++) {
		char why[128];

		if (!remountable(o, &js[i]))
			continue;
		if (batch_times_check(min_us >= 0 ? min_us : js[i].min_batch_us,
				      max_us >= 0 ? max_us : js[i].max_batch_us,
				      why, sizeof(why))) {
			fprintf(stderr, "bhscope: refused for %s (%s): %s\n",
				js[i].mnt, js[i].dev, why);
			rc = 1;
		}
	}
	for (int i = 0; i < n && !rc; i++)
		if (remountable(o, &js[i]) && claim_journal(o, &js[i], &claims[i]))
			rc = 1;
	for (int i = 0; i < n && !rc; i++) {
		struct tunables_saved saved;
		char data[128], err[1024];
		long min, max;
		int r;

		if (!remountable(o, &js[i]))
			continue;
		r = tunables_saved_restore(&claims[i], js[i].mnt, &saved, err,
					   sizeof(err));
		if (r < 0) {
			fprintf(stderr, "bhscope: %s\n", err);
			rc = 1;
			continue;
		}
		if (r > 0 && reset) {
			journal_batch_options(saved.min_us, saved.max_us, data,
					      sizeof(data));
			printf("%s (%s): %s (remount: as before the bhscope %s, pid %ld, that ended before it could put them back)\n",
			       js[i].mnt, js[i].dev, data, saved.by, saved.pid);
			done++;
			continue;
		}
		if (r > 0) {
			tunables_saved_note(&claims[i], &saved);
			journal_tunables_read(js[i].dev, &js[i]);
		}
		min = min_us >= 0 ? min_us : js[i].min_batch_us;
		max = max_us >= 0 ? max_us : js[i].max_batch_us;
		if (journal_remount_batch(js[i].mnt, min, max, err, sizeof(err))) {
			fprintf(stderr, "bhscope: %s\n", err);
			rc = 1;
			continue;
		}
		journal_batch_options(min, max, data, sizeof(data));
		printf("%s (%s): %s (remount)\n", js[i].mnt, js[i].dev, data);
		done++;
	}
	if (!done && !rc) {
		fprintf(stderr, "bhscope: no mounted ext4 journal%s%s to set\n",
			o->dev ? " on " : "", o->dev ? o->dev : "");
		rc = 1;
	}
	for (int i = 0; i < n; i++)
		tunables_release(&claims[i]);
	free(claims);
	free(js);
	return rc;
}

static int set_by_remount(const struct tune_opts *o, struct setting *s, int n)
{
	long min_us = -1, max_us = -1;
	const char *why = bhtune_unavailable_reason();

	for (int i = 0; i < n; i++) {
		if (!strcmp(s[i].name, "lru_size") || !strcmp(s[i].name, "batch_dev")) {
			fprintf(stderr, "bhscope: %s needs bhtune.ko, which is not loaded: %s\n",
				s[i].name, why ? why : "insmod kmod/bhtune.ko first");
			return 1;
		}
		if (!strcmp(s[i].name, "batch_min_us"))
			min_us = s[i].num;
		else
			max_us = s[i].num;
	}
	return remount_batch(o, min_us, max_us, false);
}

/* -d names a device: it must hold a journal in use, or nothing matches. */
static int check_device_has_journal(const struct tune_opts *o)
{
	struct journal_tunables *js;
	int n = journals_list(&js), found = 0;

	if (n < 0) {
		fprintf(stderr, "bhscope: cannot list /proc/fs/jbd2: %s\n",
			strerror(-n));
		return -1;
	}
	for (int i = 0; i < n && !found; i++)
		found = !strcmp(js[i].dev, o->dev);
	free(js);
	if (found)
		return 0;
	fprintf(stderr, "bhscope: tune: no jbd2 journal in use on %s (see bhscope tune)\n",
		o->dev);
	return -1;
}

/* Both batch times given: min above max is refused on either path. */
static int refuse_pair(const struct setting *s, int n)
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
	    !batch_times_check(min_us, max_us, why, sizeof(why)))
		return 0;
	fprintf(stderr, "bhscope: tune set: refused: %s\n", why);
	return -1;
}

/*
 * With bhtune: its parameters claimed (one tuner at a time), what a killed
 * tuner left changed put back, then reset (unless that put back was it:
 * the values before that tuner) or set.
 */
static int change_bhtune(const struct tune_opts *o, struct setting *s, int n)
{
	bool reset = !strcmp(o->action, "reset");
	struct tunables_claim c;
	struct tunables_saved saved;
	char by[32], err[512], what[128];
	int r, ret = 1;

	snprintf(by, sizeof(by), "tune %s", o->action);
	if (tunables_claim_bhtune(&c, by, err, sizeof(err))) {
		fprintf(stderr, "bhscope: %s\n", err);
		return 1;
	}
	r = tunables_saved_restore(&c, NULL, &saved, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "bhscope: %s\n", err);
	} else if (r > 0 && reset) {
		tunables_saved_describe(&saved, what, sizeof(what));
		printf("bhtune: %s put back, as before the bhscope %s (pid %ld) that ended before it could\n",
		       what, saved.by, saved.pid);
		ret = 0;
	} else if (reset) {
		int e = bhtune_param_set("reset", "1");

		if (e)
			fprintf(stderr, "bhscope: bhtune reset failed: %s\n", strerror(-e));
		else
			printf("bhtune: every journal back to its filesystem's batch times\n");
		ret = e ? 1 : 0;
	} else {
		if (r > 0)
			tunables_saved_note(&c, &saved);
		ret = set_with_bhtune(s, n);
	}
	tunables_release(&c);
	return ret;
}

/* reset, or set the n settings s (parsed and checked). */
static int change(struct tune_opts *o, struct setting *s, int n)
{
	if (bhtune_loaded())
		return change_bhtune(o, s, n);
	if (!strcmp(o->action, "reset"))
		return remount_batch(o, JBD2_DEFAULT_MIN_BATCH_US,
				     JBD2_DEFAULT_MAX_BATCH_US, true);
	return set_by_remount(o, s, n);
}

int cmd_tune(int argc, char **argv)
{
	struct tune_opts o = {};
	struct setting s[16];
	sigset_t mask;
	int ret;

	if (argp_parse(&tune_argp, argc, argv, ARGP_IN_ORDER, NULL, &o))
		return 64;
	if (o.dev && check_device_has_journal(&o))
		return 1;
	if (!strcmp(o.action, "show"))
		return show(&o);
	if (geteuid()) {
		fprintf(stderr, "bhscope: tune %s needs root\n", o.action);
		return 1;
	}
	if (o.nr_assignments > (int)(sizeof(s) / sizeof(*s))) {
		fprintf(stderr, "bhscope: tune set: too many settings\n");
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
	ret = change(&o, s, o.nr_assignments);
	fflush(stdout);
	stop_signals_restore(&mask);
	return ret;
}
