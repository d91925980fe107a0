// SPDX-License-Identifier: GPL-2.0
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <string.h>

#include "lib/prog_misses.h"

/* Whether the struct or union id, or one nested in it, has a member name. */
static bool has_member(const struct btf *btf, __u32 id, const char *name,
		       int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m;

	while (t && (btf_is_typedef(t) || btf_is_mod(t)))
		t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_composite(t) || depth > 4)
		return false;
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), name) ||
		    has_member(btf, m->type, name, depth + 1))
			return true;
	return false;
}

/*
 * trace_call_bpf() began counting the runs it skips in the same change
 * (6.7) that gave kprobe links a "missed" figure in struct bpf_link_info:
 * the kernel's BTF says which kernel this is, backports included.
 */
static bool trace_call_counts_misses(void)
{
	static int known = -1;
	struct btf *btf;
	__s32 id;

	if (known >= 0)
		return known;
	btf = btf__load_vmlinux_btf();
	if (!btf)
		return false;	/* unknown: claim nothing */
	id = btf__find_by_name_kind(btf, "bpf_link_info", BTF_KIND_STRUCT);
	known = id > 0 && has_member(btf, id, "missed", 0);
	btf__free(btf);
	return known;
}

bool prog_misses_counted(const struct bpf_program *prog)
{
	switch (bpf_program__type(prog)) {
	case BPF_PROG_TYPE_TRACING:
	case BPF_PROG_TYPE_RAW_TRACEPOINT:
	case BPF_PROG_TYPE_RAW_TRACEPOINT_WRITABLE:
		return true;
	case BPF_PROG_TYPE_KPROBE:
	case BPF_PROG_TYPE_TRACEPOINT:
		return trace_call_counts_misses();
	default:
		return false;
	}
}

uint64_t prog_misses(const struct bpf_program *prog)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	int fd = bpf_program__fd(prog);

	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	return info.recursion_misses;
}
