// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "lib/env.h"
#include "lib/errmsg.h"

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

/* Set by env_prepare_tracing() when tracefs cannot be read: why. */
static char tracefs_why[256];

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
		errmsg("cannot read capabilities: %s",
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
		errmsg("changing mount options and bhtune's parameters needs root (missing:%s%s); nothing was run or changed; run with sudo",
		       admin ? "" : " CAP_SYS_ADMIN", dac ? "" : " CAP_DAC_OVERRIDE");
		return -1;
	}
	if (!(needs & ENV_TRACE) || admin ||
	    (has_cap(data, CAP_BPF) && has_cap(data, CAP_PERFMON)))
		return 0;
	errmsg("need root, or CAP_BPF and CAP_PERFMON (missing:%s%s); run with sudo",
	       has_cap(data, CAP_BPF) ? "" : " CAP_BPF",
	       has_cap(data, CAP_PERFMON) ? "" : " CAP_PERFMON");
	return -1;
}

bool env_capable(int cap)
{
	struct __user_cap_data_struct data[2] = {};

	return !read_capabilities(data) && has_cap(data, cap);
}

int env_drop_to_service_caps(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {};
	const int keep[] = { CAP_BPF, CAP_PERFMON };

	for (size_t i = 0; i < sizeof(keep) / sizeof(*keep); i++) {
		data[keep[i] / 32].effective |= 1U << (keep[i] % 32);
		data[keep[i] / 32].permitted |= 1U << (keep[i] % 32);
	}
	if (syscall(SYS_capset, &hdr, data)) {
		errmsg("cannot drop to CAP_BPF and CAP_PERFMON: %s",
		       strerror(errno));
		return -1;
	}
	return 0;
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

/*
 * Only classic tracepoints (their ids), legacy kprobes and bhtune's event
 * formats need tracefs: BTF tracepoints, fentry and kprobes through the
 * perf PMU do not. So an unreadable tracefs is not an error here; it is
 * noted, and what needs it says so when it fails (env_tracefs_why()).
 */
static void ensure_tracefs(void)
{
	int first_err;

	tracefs_why[0] = 0;
	if (tracefs_ready(tracefs_dirs[0]))
		return;
	first_err = errno;
	for (size_t i = 1; i < sizeof(tracefs_dirs) / sizeof(*tracefs_dirs); i++)
		if (tracefs_ready(tracefs_dirs[i]))
			return;
	/* Mounted (mode 0700, root's) but not ours to read: mounting won't help. */
	if (first_err == EACCES) {
		snprintf(tracefs_why, sizeof(tracefs_why),
			 "tracefs at %s is not readable by this user (%s)",
			 tracefs_dirs[0], strerror(first_err));
		return;
	}
	/* Minimal systems (and the VM bench) boot without it mounted. */
	if (mount("tracefs", tracefs_dirs[0], "tracefs", 0, NULL) == 0 &&
	    tracefs_ready(tracefs_dirs[0]))
		return;
	snprintf(tracefs_why, sizeof(tracefs_why),
		 "tracefs is not mounted and mounting it failed (%s): mount -t tracefs tracefs %s",
		 strerror(errno), tracefs_dirs[0]);
}

const char *env_tracefs_why(void)
{
	return tracefs_why[0] ? tracefs_why : NULL;
}

int env_prepare_tracing(void)
{
	struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };

	if (env_check_privileges(ENV_TRACE))
		return -1;
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		errmsg("kernel BTF /sys/kernel/btf/vmlinux is missing; bhscope needs a kernel built with CONFIG_DEBUG_INFO_BTF=y");
		return -1;
	}
	ensure_tracefs();
	/* Kernels before 5.11 charge BPF maps to RLIMIT_MEMLOCK. */
	setrlimit(RLIMIT_MEMLOCK, &unlimited);
	return 0;
}

/* Whether the string table of the BTF file at path holds s, whole. */
static bool btf_has_string(const char *path, const char *s)
{
	struct {
		uint16_t magic;
		uint8_t version, flags;
		uint32_t hdr_len, type_off, type_len, str_off, str_len;
	} h;
	size_t n = strlen(s);
	char *strs = NULL, *p;
	bool found = false;
	FILE *f = fopen(path, "r");

	if (!f)
		return false;
	if (fread(&h, sizeof(h), 1, f) != 1 || h.magic != 0xeB9F ||
	    h.str_len > (64U << 20) || !(strs = malloc(h.str_len + 1)) ||
	    fseek(f, (long)h.hdr_len + h.str_off, SEEK_SET) ||
	    fread(strs, 1, h.str_len, f) != h.str_len)
		goto out;
	strs[h.str_len] = 0;
	/* strings are NUL-separated, the table starts with an empty one */
	for (p = strs; p < strs + h.str_len; p += strlen(p) + 1)
		if (strlen(p) == n && !memcmp(p, s, n)) {
			found = true;
			break;
		}
out:
	free(strs);
	fclose(f);
	return found;
}

/*
 * A tracepoint with a BTF flavour has a btf_trace_<name> typedef in the
 * BTF of vmlinux, or of its module, assumed named after its category
 * (jbd2); /sys/kernel/btf is readable by every user.
 */
static bool btf_has_tracepoint(const char *category, const char *name)
{
	char sym[256], path[300];

	snprintf(sym, sizeof(sym), "btf_trace_%s", name);
	if (btf_has_string("/sys/kernel/btf/vmlinux", sym))
		return true;
	snprintf(path, sizeof(path), "/sys/kernel/btf/%s", category);
	return !strchr(category, '/') && btf_has_string(path, sym);
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
	/* tracefs unreadable (the service) or unmounted: the BTF says */
	return btf_has_tracepoint(category, name);
}

const char *env_kernel_release(void)
{
	static struct utsname u;

	if (!u.release[0] && uname(&u))
		return "unknown";
	return u.release;
}
