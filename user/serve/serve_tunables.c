// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/serve_tunables.h"
#include "lib/tunables.h"

void serve_journal_tunables_read(const char *name,
				 struct serve_journal_tunables *t)
{
	char path[128], text[4096];
	size_t len = 0;
	FILE *f;
	long v;

	t->min_batch_us = JBD2_DEFAULT_MIN_BATCH_US;
	t->max_batch_us = JBD2_DEFAULT_MAX_BATCH_US;
	t->commit_s = JBD2_DEFAULT_COMMIT_S;
	snprintf(path, sizeof(path), "/proc/fs/ext4/%s/options", name);
	f = fopen(path, "r");
	if (!f)
		return;
	len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = '\0';
	if ((v = options_value(text, "min_batch_time")) >= 0)
		t->min_batch_us = v;
	if ((v = options_value(text, "max_batch_time")) >= 0)
		t->max_batch_us = v;
	if ((v = options_value(text, "commit")) >= 0)
		t->commit_s = v;
}

/* A parameter file's value when it is one number; false otherwise. */
static bool read_number(const char *dir, const char *name, double *out)
{
	char path[512], buf[64], *end;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return false;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	errno = 0;
	*out = strtod(buf, &end);
	return !errno && end != buf && !*end;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static void collect_bhtune(struct prom_buf *out)
{
	struct dirent **names;
	bool header = false;
	int n;

	n = scandir(BHTUNE_PARAMETERS_DIR, &names, NULL, by_name);
	if (n < 0)
		return;
	for (int i = 0; i < n; i++) {
		struct prom_labels ls = {};
		double v;

		if (names[i]->d_name[0] != '.' &&
		    read_number(BHTUNE_PARAMETERS_DIR, names[i]->d_name, &v)) {
			if (!header)
				prom_family(out, "bhscope_bhtune_parameter",
					    PROM_GAUGE,
					    "Numeric parameters of the bhtune module, as /sys/module/bhtune/parameters shows them.");
			header = true;
			prom_labels_add(&ls, "parameter", names[i]->d_name);
			prom_sample(out, "bhscope_bhtune_parameter", &ls, v);
		}
		free(names[i]);
	}
	free(names);
}

void serve_tunables_collect(const struct serve_view *v, struct prom_buf *out)
{
	(void)v;
	collect_bhtune(out);
}
