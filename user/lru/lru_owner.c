// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lru/lru_owner.h"

const struct lru_owner_paths lru_owner_sysfs = {
	.livepatch = "/sys/kernel/livepatch",
	.module = "/sys/module",
};

/* The functions that read or fill bh_lrus on a lookup, 6.1 to 6.18. */
static const char *const lookup_funcs[] = {
	"__find_get_block", "__find_get_block_nonatomic",
	"find_get_block_common", "lookup_bh_lru", "bh_lru_install",
};

static bool is_lookup_func(const char *entry)
{
	/* livepatch names a function's directory "NAME,SYMPOS" */
	size_t n = strcspn(entry, ",");

	for (size_t i = 0; i < sizeof(lookup_funcs) / sizeof(*lookup_funcs); i++)
		if (strlen(lookup_funcs[i]) == n &&
		    !strncmp(entry, lookup_funcs[i], n))
			return true;
	return false;
}

static bool patches_lookup(const char *lp, const char *patch)
{
	char path[512];
	struct dirent *e;
	bool found = false;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%s/vmlinux", lp, patch);
	d = opendir(path);
	if (!d)
		return false;
	while (!found && (e = readdir(d)))
		found = is_lookup_func(e->d_name);
	closedir(d);
	return found;
}

/* The first character of a sysfs flag file, '?' when unreadable. */
static char flag(const char *lp, const char *patch, const char *name)
{
	char path[512], c = '?';
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/%s", lp, patch, name);
	f = fopen(path, "r");
	if (!f)
		return '?';
	if (fread(&c, 1, 1, f) != 1)
		c = '?';
	fclose(f);
	return c;
}

/* bhtune.ko links against bhtune_events.ko: the loader made it a holder. */
static bool bhtune_events_bound(const struct lru_owner_paths *p)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/bhtune_events/holders/bhtune",
		 p->module);
	return access(path, F_OK) == 0;
}

void lru_owner_read(const struct lru_owner_paths *p, struct lru_owner *o)
{
	int patching = 0;
	struct dirent *e;
	DIR *d;

	*o = (struct lru_owner){ .kind = LRU_OWNER_KERNEL };
	d = opendir(p->livepatch);
	if (!d)
		return;
	while ((e = readdir(d))) {
		bool on;

		if (e->d_name[0] == '.' || !patches_lookup(p->livepatch, e->d_name))
			continue;
		/* unpatching: enabled reads 0 while tasks still run the patch */
		if (flag(p->livepatch, e->d_name, "transition") == '1') {
			o->kind = LRU_OWNER_CHANGING;
			snprintf(o->patch, sizeof(o->patch), "%.63s", e->d_name);
			break;
		}
		on = flag(p->livepatch, e->d_name, "enabled") == '1';
		if (!on)
			continue;
		if (patching++)
			o->kind = LRU_OWNER_OTHER;	/* stacked: whose is on top? */
		else if (!strcmp(e->d_name, "bhtune"))
			o->kind = bhtune_events_bound(p) ? LRU_OWNER_BHTUNE
							 : LRU_OWNER_BHTUNE_SILENT;
		else
			o->kind = LRU_OWNER_OTHER;
		if (patching == 1 || !strcmp(o->patch, "bhtune"))
			snprintf(o->patch, sizeof(o->patch), "%.63s", e->d_name);
	}
	closedir(d);
}

bool lru_owner_same(const struct lru_owner *a, const struct lru_owner *b)
{
	return a->kind == b->kind && !strcmp(a->patch, b->patch);
}

const char *lru_owner_describe(const struct lru_owner *o, char *buf,
			       size_t len)
{
	switch (o->kind) {
	case LRU_OWNER_KERNEL:
		snprintf(buf, len, "the kernel's own lookup (no livepatch replaces it)");
		break;
	case LRU_OWNER_BHTUNE:
		snprintf(buf, len, "bhtune.ko's livepatch");
		break;
	case LRU_OWNER_BHTUNE_SILENT:
		snprintf(buf, len, "bhtune.ko's livepatch, loaded without bhtune_events.ko (no bhtune:* events fire)");
		break;
	case LRU_OWNER_OTHER:
		snprintf(buf, len, "livepatch %s, which replaces the lookup (its LRU is not bh_lrus)",
			 o->patch);
		break;
	case LRU_OWNER_CHANGING:
		snprintf(buf, len, "livepatch %s's transition, still running (some tasks in the patched lookup, some not)",
			 o->patch);
		break;
	}
	return buf;
}
