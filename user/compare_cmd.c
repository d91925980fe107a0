// SPDX-License-Identifier: GPL-2.0
/*
 * bhscope compare: before/after tables from records, in the seeds' style.
 */
#include <argp.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyse/chart_svg.h"
#include "cmd.h"
#include "lib/cli.h"
#include "analyse/compare_model.h"
#include "analyse/compare_print.h"
#include "lib/errmsg.h"
#include "lib/json_out.h"
#include "lib/term_safe.h"

enum { OPT_CSV = 0x100, OPT_MARKDOWN, OPT_CHART };

enum format { FMT_TEXT, FMT_JSON, FMT_CSV, FMT_MARKDOWN };

static const char compare_doc[] =
	"Compare records (from bhscope record or sweep): per metric and per "
	"record, the median and spread over its successful runs and the % change "
	"against the first record, with changes within the noise marked '~'. "
	"Warns when the records differ in kernel, filesystem or workload.\v"
	"Examples:\n"
	"  bhscope compare base.json tuned.json\n"
	"  bhscope compare --markdown base.json b1000.json b4000.json\n"
	"  bhscope compare --chart before-after.svg base.json tuned.json\n"
	"  bhscope compare -j base.json tuned.json | jq '.metrics[0]'\n"
	"  ssh host cat base.json | bhscope compare - tuned.json\n\n"
	"Exit status: 0, 1 when a record cannot be read (one line names the "
	"file and the problem) or the output cannot be written, 64 on usage "
	"errors.";

static const struct argp_option compare_options[] = {
	{ "json", 'j', NULL, 0, "JSON (schema bhscope.compare/1), one line", 0 },
	{ "pretty", 'p', NULL, 0, "JSON, indented (implies -j)", 0 },
	{ "csv", OPT_CSV, NULL, 0, "CSV, one line per metric and record", 0 },
	{ "markdown", OPT_MARKDOWN, NULL, 0, "A Markdown table", 0 },
	{ "chart", OPT_CHART, "FILE.svg", 0,
	  "Also write an SVG chart: throughput and per-CPU LRU hit ratio", 0 },
	{ "quiet", 'q', NULL, 0, "No warnings on stderr", 0 },
	{ 0 },
};

struct compare_args {
	enum format fmt;
	const char *chart;
	bool quiet, pretty;
	char **files;
	int nr_files;
};

static error_t compare_parse(int key, char *arg, struct argp_state *state)
{
	struct compare_args *a = state->input;
	enum format want = FMT_TEXT;

	switch (key) {
	case 'p':
		a->pretty = true;
		/* fall through */
	case 'j':
		want = FMT_JSON;
		if (a->fmt == FMT_JSON)
			return 0;	/* -j -p */
		break;
	case OPT_CSV:
		want = FMT_CSV;
		break;
	case OPT_MARKDOWN:
		want = FMT_MARKDOWN;
		break;
	case OPT_CHART:
		a->chart = arg;
		return 0;
	case 'q':
		a->quiet = true;
		return 0;
	case ARGP_KEY_ARGS:
		a->files = state->argv + state->next;
		a->nr_files = state->argc - state->next;
		return 0;
	case ARGP_KEY_NO_ARGS:
		argp_error(state, "give the records to compare, the baseline first");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	if (a->fmt != FMT_TEXT && a->fmt != want)
		argp_error(state, "choose one of -j, --csv, --markdown");
	a->fmt = want;
	return 0;
}

const struct argp compare_argp = {
	.options = compare_options,
	.parser = compare_parse,
	.args_doc = "BASE.json OTHER.json... ('-': standard input)",
	.doc = compare_doc,
	.children = cli_help_children,
};

int cmd_compare(int argc, char **argv)
{
	struct compare_args a = { 0 };
	struct cmp_table t;
	struct json_object *o;
	char err[1024];
	int ret = 0;

	argp_err_exit_status = 64;
	if (argp_parse(&compare_argp, argc, argv, 0, NULL, &a))
		return 64;
	if (a.nr_files > 26) {
		errmsg("compare takes at most 26 records (A to Z)");
		return 64;
	}
	if (compare_model_load(&t, a.files, a.nr_files, err, sizeof(err))) {
		term_safe_error("%s", err);
		compare_model_free(&t);
		return 1;
	}
	for (int i = 0; i < t.nr_warnings && !a.quiet; i++)
		term_safe_error("warning: %s", t.warnings[i]);
	switch (a.fmt) {
	case FMT_TEXT:
		compare_print_text(stdout, &t);
		break;
	case FMT_CSV:
		compare_print_csv(stdout, &t);
		break;
	case FMT_MARKDOWN:
		compare_print_markdown(stdout, &t);
		break;
	case FMT_JSON:
		o = compare_print_json(&t);
		/* A write error is reported once, by main's stdout check. */
		if (json_out_print(stdout, o, a.pretty ? JSON_OUT_PRETTY :
							 JSON_OUT_LINE))
			ret = 1;
		break;
	}
	if (a.chart && chart_svg_save(a.chart, &t))
		ret = 1;
	compare_model_free(&t);
	return ret;
}
