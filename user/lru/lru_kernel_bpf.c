// SPDX-License-Identifier: GPL-2.0
/* BH_LRU_SIZE from the running kernel's BTF (libbpf's BTF reader). */
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lru/lru_kernel.h"
#include "lru_stats.h"

/* t with typedefs and qualifiers peeled off. */
static const struct btf_type *btf_resolve(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t && (btf_is_typedef(t) || btf_is_mod(t)))
		t = btf__type_by_id(btf, t->type);
	return t;
}

static int bh_lru_slots(const struct btf *btf, char *why, size_t len)
{
	const struct btf_type *t, *at;
	const struct btf_member *m;
	__s32 id;

	id = btf__find_by_name_kind(btf, "bh_lru", BTF_KIND_STRUCT);
	if (id < 0) {
		snprintf(why, len,
			 "struct bh_lru is not in the kernel's BTF (kernel without CONFIG_BUFFER_HEAD?)");
		return -ENOENT;
	}
	t = btf__type_by_id(btf, id);
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		if (strcmp(btf__name_by_offset(btf, m->name_off), "bhs"))
			continue;
		at = btf_resolve(btf, m->type);
		if (!at || !btf_is_array(at))
			break;
		return (int)btf_array(at)->nelems;
	}
	snprintf(why, len, "struct bh_lru in the kernel's BTF has no bhs[] array");
	return -ENOENT;
}

int lru_kernel_slots(char *why, size_t len)
{
	struct btf *btf = btf__load_vmlinux_btf();
	int n;

	if (!btf) {
		snprintf(why, len, "cannot read the kernel's BTF: %s",
			 strerror(errno));
		return -errno;
	}
	n = bh_lru_slots(btf, why, len);
	btf__free(btf);
	/* the probe compares slots 0 and 1 (shadow_matches()) */
	if ((n >= 0 && n < 2) || n > BHSCOPE_LRU_SLOTS_MAX) {
		snprintf(why, len,
			 "this kernel's BH_LRU_SIZE is %d; bhscope handles 2 to %d",
			 n, BHSCOPE_LRU_SLOTS_MAX);
		return -ERANGE;
	}
	return n;
}
