/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BTF of vmlinux and of one kernel module as one standalone BTF, for
 * libbpf's btf_custom_path. libbpf reads a module's BTF through
 * BPF_BTF_GET_NEXT_ID, which only CAP_SYS_ADMIN may call (libbpf 1.1
 * then fails every CO-RE relocation), while /sys/kernel/btf/MODULE is
 * world-readable: with this file CO-RE relocations against the module's
 * types work with CAP_BPF and CAP_PERFMON alone. Programs that need the
 * module's BTF in the kernel (fentry on its functions, BTF tracepoints on
 * its events) still need CAP_SYS_ADMIN.
 */
#ifndef BHSCOPE_MODULE_BTF_H
#define BHSCOPE_MODULE_BTF_H

#include <stdbool.h>
#include <stddef.h>

/* Whether MODULE is a loaded module with BTF (/sys/kernel/btf/MODULE). */
bool module_btf_exists(const char *module);

/*
 * Writes vmlinux's BTF and MODULE's split BTF as one into a memory file
 * and sets path to it (/proc/self/fd/N). Returns its fd, which the caller
 * closes once libbpf has loaded, or a negative errno.
 */
int module_btf_merged(const char *module, char *path, size_t len);

#endif /* BHSCOPE_MODULE_BTF_H */
