// SPDX-License-Identifier: GPL-2.0
#include <bpf/btf.h>
#include <errno.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/module_btf.h"

#define SYSFS_BTF "/sys/kernel/btf"

bool module_btf_exists(const char *module)
{
	char path[256];

	snprintf(path, sizeof(path), SYSFS_BTF "/%s", module);
	return access(path, R_OK) == 0;
}

/*
 * vmlinux's types keep their ids in the merged BTF, so the module's, added
 * after them in order, keep theirs too, and with them every reference.
 */
static struct btf *merge(struct btf *vmlinux, const struct btf *mod)
{
	struct btf *m = btf__new_empty();
	int err;

	if (!m)
		return NULL;
	err = btf__add_btf(m, vmlinux);
	for (__u32 id = btf__type_cnt(vmlinux);
	     err >= 0 && id < btf__type_cnt(mod); id++)
		err = btf__add_type(m, mod, btf__type_by_id(mod, id));
	if (err < 0) {
		btf__free(m);
		errno = -err;
		return NULL;
	}
	return m;
}

int module_btf_merged(const char *module, char *path, size_t len)
{
	struct btf *vmlinux = NULL, *mod = NULL, *m = NULL;
	const void *raw;
	char src[256];
	__u32 size;
	int fd = -1, err = 0;

	snprintf(src, sizeof(src), SYSFS_BTF "/%s", module);
	vmlinux = btf__parse(SYSFS_BTF "/vmlinux", NULL);
	mod = vmlinux ? btf__parse_split(src, vmlinux) : NULL;
	m = mod ? merge(vmlinux, mod) : NULL;
	raw = m ? btf__raw_data(m, &size) : NULL;
	if (!raw)
		err = -(errno ?: EINVAL);
	if (!err) {
		fd = memfd_create("bhscope-btf", MFD_CLOEXEC);
		if (fd < 0 || write(fd, raw, size) != (ssize_t)size)
			err = -(errno ?: EIO);
	}
	btf__free(m);
	btf__free(mod);
	btf__free(vmlinux);
	if (err) {
		if (fd >= 0)
			close(fd);
		return err;
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}
