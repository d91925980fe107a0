/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers shared by the BPF programs. */
#ifndef BHSCOPE_MAPS_BPF_H
#define BHSCOPE_MAPS_BPF_H

#include "bhscope.h"

/*
 * For the lookup probes' rare branches: the compiler then keeps the
 * common path's values in registers and spills on the rare ones.
 */
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

/* Lookup of key in map, inserting a zeroed value first if it is absent. */
static __always_inline void *map_lookup_or_init(void *map, const void *key,
						const void *zero)
{
	void *val = bpf_map_lookup_elem(map, key);

	if (val)
		return val;
	bpf_map_update_elem(map, key, zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(map, key);
}

#endif /* BHSCOPE_MAPS_BPF_H */
