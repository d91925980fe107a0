// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "lib/env.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static const char *const tracefs_dirs[] = {
	"/sys/kernel/tracing",
	"/sys/kernel/debug/tracing",
};

static bool has_cap(const struct __user_cap_data_struct *d, int cap)
{
	return d[cap / 32].effective & (1U << (cap % 32));
}

static int read_capabilities(struct __user_cap_data_struct data[2])
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};

	if (syscall(SYS_capget, &hdr, data)) {
		fprintf(stderr, "bhscope: cannot read capabilities: %s\n",
			strerror(errno));
		return -1;
	}
	return 0;
}

int env_check_privileges(int needs)
{
	struct __user_cap_data_struct data[2] = {};
	bool admin, dac;

	if (read_capabilities(data))
		return -1;
	admin = has_cap(data, CAP_SYS_ADMIN);
	dac = has_cap(data, CAP_DAC_OVERRIDE);
	/* mount(2) needs CAP_SYS_ADMIN; bhtune's 0644 files, root's write. */
	if ((needs & ENV_TUNE) && !(admin && dac)) {
		fprintf(stderr,
			"bhscope: changing mount options and bhtune's parameters needs root (missing:%s%s); nothing was run or changed; run with sudo\n",
			admin ? "" : " CAP_SYS_ADMIN", dac ? "" : " CAP_DAC_OVERRIDE");
		return -1;
	}
	if (!(needs & ENV_TRACE) || admin ||
	    (has_cap(data, CAP_BPF) && has_cap(data, CAP_PERFMON)))
		return 0;
	fprintf(stderr,
		"bhscope: need root, or CAP_BPF and CAP_PERFMON (missing:%s%s); run with sudo\n",
		has_cap(data, CAP_BPF) ? "" : " CAP_BPF",
		has_cap(data, CAP_PERFMON) ? "" : " CAP_PERFMON");
	return -1;
}

/*
 * With the effective ids and capabilities (AT_EACCESS): plain access()
 * drops the capabilities of a non-root caller, so a service running with
 * CAP_DAC_READ_SEARCH instead of root would find tracefs unreadable.
 */
static bool readable(const char *path, int mode)
{
	return faccessat(AT_FDCWD, path, mode, AT_EACCESS) == 0;
}

static bool tracefs_ready(const char *dir)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/events", dir);
	return readable(path, R_OK);
}

static int ensure_tracefs(void)
{
	int first_err;

	if (tracefs_ready(tracefs_dirs[0]))
		return 0;
	first_err = errno;
	for (size_t i = 1; i < sizeof(tracefs_dirs) / sizeof(*tracefs_dirs); i++)
		if (tracefs_ready(tracefs_dirs[i]))
			return 0;
	/* Mounted (mode 0700, root's) but not ours to read: mounting won't help. */
	if (first_err == EACCES) {
		fprintf(stderr,
			"bhscope: tracefs at %s is not readable (%s); run as root, or add CAP_DAC_READ_SEARCH to CAP_BPF and CAP_PERFMON\n",
			tracefs_dirs[0], strerror(first_err));
		return -1;
	}
	/* Minimal systems (and the VM bench) boot without it mounted. */
	if (mount("tracefs", tracefs_dirs[0], "tracefs", 0, NULL) == 0 &&
	    tracefs_ready(tracefs_dirs[0]))
		return 0;
	fprintf(stderr,
		"bhscope: tracefs is not mounted and mounting it failed (%s); mount -t tracefs tracefs /sys/kernel/tracing\n",
		strerror(errno));
	return -1;
}

int env_prepare_tracing(void)
{
	struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };

	if (env_check_privileges(ENV_TRACE))
		return -1;
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		fprintf(stderr,
			"bhscope: kernel BTF /sys/kernel/btf/vmlinux is missing; bhscope needs a kernel built with CONFIG_DEBUG_INFO_BTF=y\n");
		return -1;
	}
	if (ensure_tracefs())
		return -1;
	/* Kernels before 5.11 charge BPF maps to RLIMIT_MEMLOCK. */
	setrlimit(RLIMIT_MEMLOCK, &unlimited);
	return 0;
}

bool env_tracepoint_exists(const char *category, const char *name)
{
	char path[512];

	for (size_t i = 0; i < sizeof(tracefs_dirs) / sizeof(*tracefs_dirs); i++) {
		snprintf(path, sizeof(path), "%s/events/%s/%s", tracefs_dirs[i],
			 category, name);
		if (readable(path, F_OK))
			return true;
	}
	return false;
}

const char *env_kernel_release(void)
{
	static struct utsname u;

	if (!u.release[0] && uname(&u))
		return "unknown";
	return u.release;
}
