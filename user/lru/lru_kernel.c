// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "lru_bhtune.h"
#include "lib/env.h"
#include "lru/lru_kernel.h"
#include "lru_stats.h"
#include "lib/tunables.h"

static const char *const tracefs_dirs[] = {
	"/sys/kernel/tracing",
	"/sys/kernel/debug/tracing",
};

void lru_kernel_symbols_parse(FILE *kallsyms, struct lru_symbols *s)
{
	char line[512];

	memset(s, 0, sizeof(*s));
	/* 170,000 lines: no sscanf; the name decides before the address */
	while (fgets(line, sizeof(line), kallsyms)) {
		/* "ADDR TYPE NAME[\t[MODULE]]": vmlinux symbols only. */
		char *type = strchr(line, ' '), *name;
		size_t len;

		if (!type || !type[1] || type[2] != ' ')
			continue;
		name = type + 3;
		len = strcspn(name, "\t\n");
		if (name[len] == '\t')
			continue;
		name[len] = 0;
		if (!strcmp(name, "find_get_block_common"))
			s->find_get_block_common = true;
		else if (!strcmp(name, "__find_get_block"))
			s->find_get_block = true;
		else if (!strcmp(name, "__find_get_block_nonatomic"))
			s->find_get_block_nonatomic = true;
		else if (!strcmp(name, "invalidate_bh_lrus"))
			s->invalidate_all = true;
		else if (!strcmp(name, "invalidate_bh_lrus_cpu"))
			s->invalidate_cpu = true;
		else if (!strcmp(name, "invalidate_bh_lru"))
			s->invalidate_ipi = true;
		else if (!strcmp(name, "buffer_exit_cpu_dead"))
			s->cpu_dead = true;
		else if (!strcmp(name, "klp_start_transition"))
			s->klp_transition = true;
		else if (!strcmp(name, "bh_lru_install"))
			s->install = true;
		else if (!strcmp(name, "bh_lrus"))
			s->bh_lrus = true;
		else if (!strcmp(name, "sched_dynamic_update"))
			s->sched_dynamic_update = true;
		else if (!strcmp(name, "preempt_dynamic_mode"))
			s->preempt_dynamic_mode = strtoull(line, NULL, 16);
		else if (!strcmp(name, "lru_cache_disable"))
			s->lru_cache_disable = true;
		else if (!strcmp(name, "lru_disable_count"))
			s->lru_disable_count = strtoull(line, NULL, 16);
		else if (!strcmp(name, "partition_xcpus_add"))
			s->partition_xcpus_add = true;
	}
}

int lru_kernel_symbols(struct lru_symbols *s)
{
	/* vmlinux's symbols never change: one read per process */
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static struct lru_symbols cache;
	static bool cached;
	FILE *f;
	int err = 0;

	pthread_mutex_lock(&lock);
	if (!cached) {
		f = fopen("/proc/kallsyms", "r");
		if (f) {
			lru_kernel_symbols_parse(f, &cache);
			fclose(f);
			cached = true;
		} else {
			err = -errno;
		}
	}
	*s = cache;
	pthread_mutex_unlock(&lock);
	return err;
}

static bool tracefs_file(const char *rel, char *path, size_t len)
{
	for (size_t i = 0; i < sizeof(tracefs_dirs) / sizeof(*tracefs_dirs); i++) {
		snprintf(path, len, "%s/%s", tracefs_dirs[i], rel);
		if (access(path, F_OK) == 0)
			return true;
	}
	return false;
}

bool lru_kernel_preempt_full_of(const char *debugfs, const char *cmdline,
				const char *version, char *why, size_t len)
{
	static const char *const modes[] = { "full", "lazy", "rt" };
	const char *p, *q;
	char arg[32];

	/* "none voluntary (full) lazy": the mode in use is in parentheses */
	if (debugfs && (p = strchr(debugfs, '(')) && (q = strchr(p, ')'))) {
		snprintf(arg, sizeof(arg), "%.*s", (int)(q - p - 1), p + 1);
		snprintf(why, len, "the kernel runs with %s preemption (sched/preempt)",
			 arg);
		for (size_t i = 0; i < sizeof(modes) / sizeof(*modes); i++)
			if (!strcmp(arg, modes[i]))
				return true;
		return false;
	}
	for (p = cmdline; p && (p = strstr(p, "preempt=")); p += 8) {
		if (p != cmdline && p[-1] != ' ')
			continue;
		snprintf(arg, sizeof(arg), "%.*s", (int)strcspn(p + 8, " \n"),
			 p + 8);
		snprintf(why, len, "the kernel runs with preempt=%s", arg);
		for (size_t i = 0; i < sizeof(modes) / sizeof(*modes); i++)
			if (!strcmp(arg, modes[i]))
				return true;
		return false;
	}
	/* a static model: "#1 SMP PREEMPT_RT ..." or "#1 SMP PREEMPT ..." */
	if (version && (strstr(version, " PREEMPT_RT") ||
			(strstr(version, " PREEMPT ")))) {
		snprintf(why, len, "the kernel is built with full preemption (%s)",
			 strstr(version, " PREEMPT_RT") ? "PREEMPT_RT" : "PREEMPT");
		return true;
	}
	return false;
}

bool lru_kernel_preempt_solo_of(int dyn_mode, bool watched, const char *version,
				char *why, size_t len)
{
	static const char *const names[] = { "none", "voluntary", "full", "lazy" };

	if (dyn_mode >= 0) {
		snprintf(why, len, "%s%s preemption (PREEMPT_DYNAMIC)",
			 dyn_mode < 4 ? names[dyn_mode] : "unknown",
			 dyn_mode < 4 ? "" : " model");
		if (dyn_mode > 1)
			return false;
		if (!watched) {
			snprintf(why + strlen(why), len - strlen(why),
				 ", but its switches cannot be watched (no fentry on sched_dynamic_update)");
			return false;
		}
		return true;
	}
	if (!version) {
		snprintf(why, len, "the preemption model is not known (no uname)");
		return false;
	}
	if (strstr(version, "PREEMPT_DYNAMIC")) {
		snprintf(why, len,
			 "the PREEMPT_DYNAMIC model cannot be read (preempt_dynamic_mode is not in kallsyms)");
		return false;
	}
	if (strstr(version, "PREEMPT")) {
		snprintf(why, len, "a kernel built to preempt (%s)",
			 strstr(version, "PREEMPT_RT") ? "PREEMPT_RT" :
			 strstr(version, "PREEMPT_LAZY") ? "PREEMPT_LAZY" :
			 "PREEMPT");
		return false;
	}
	snprintf(why, len, "a kernel built without kernel preemption (none or voluntary, fixed)");
	return true;
}

static char *read_small(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = 0;
	return buf;
}

bool lru_kernel_preempt_full(char *why, size_t len)
{
	char dbg[128], cmd[4096];
	struct utsname u;

	return lru_kernel_preempt_full_of(read_small("/sys/kernel/debug/sched/preempt",
						     dbg, sizeof(dbg)),
				   read_small("/proc/cmdline", cmd, sizeof(cmd)),
				   uname(&u) ? NULL : u.version, why, len);
}

bool lru_kernel_has_kprobes(void)
{
	char path[256];

	return tracefs_file("kprobe_events", path, sizeof(path)) ||
	       access("/sys/bus/event_source/devices/kprobe", F_OK) == 0;
}

int lru_kernel_bhtune_lru_size(void)
{
	long n;
	int err = tunables_bhtune_get("lru_size", &n);

	if (err)
		return err;
	return n > 0 && n <= INT_MAX ? (int)n : -EINVAL;
}

int lru_kernel_bhtune_check_abi(char *why, size_t len)
{
	long abi;
	int err = tunables_module_param_get("bhtune_events", "abi", &abi);

	if (err == -ENOENT) {
		snprintf(why, len,
			 "bhtune_events.ko has no abi parameter: it fires its events in a layout older than this bhscope reads (rebuild bhtune from this release)");
		return -1;
	}
	if (err) {
		snprintf(why, len, "cannot read bhtune_events.ko's abi parameter: %s",
			 strerror(-err));
		return -1;
	}
	if (abi != BHSCOPE_BHTUNE_EVENTS_ABI) {
		snprintf(why, len,
			 "bhtune_events.ko fires its events in layout %ld, this bhscope reads layout %d (kmod and bhscope are of different releases)",
			 abi, BHSCOPE_BHTUNE_EVENTS_ABI);
		return -1;
	}
	return 0;
}
