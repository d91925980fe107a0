/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the running kernel offers the LRU tracer: BH_LRU_SIZE from its BTF,
 * which lookup functions are symbols, whether kprobes exist, and bhtune.ko.
 */
#ifndef BHSCOPE_LRU_KERNEL_H
#define BHSCOPE_LRU_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Functions the tracer hooks, as /proc/kallsyms lists them. */
struct lru_symbols {
	bool find_get_block_common;	/* 6.15+ and backports (6.12.31+) */
	bool find_get_block;		/* __find_get_block */
	bool find_get_block_nonatomic;	/* __find_get_block_nonatomic (6.15+) */
	bool invalidate_all;		/* invalidate_bh_lrus */
	bool invalidate_cpu;		/* invalidate_bh_lrus_cpu */
	bool invalidate_ipi;		/* invalidate_bh_lru: the IPI body */
	bool cpu_dead;			/* buffer_exit_cpu_dead: hotplug */
	bool klp_transition;		/* klp_start_transition: livepatch */
	bool install;			/* bh_lru_install (inlined on 6.1-6.18) */
	bool bh_lrus;			/* the per-CPU LRU itself: a data
					 * symbol, listed with KALLSYMS_ALL */
	bool sched_dynamic_update;	/* PREEMPT_DYNAMIC's model switch */
	uint64_t preempt_dynamic_mode;	/* its model's address; 0: none, or
					 * hidden (kptr_restrict) */
	bool lru_cache_disable;		/* stops installs while it holds */
	uint64_t lru_disable_count;	/* its count's address, as above */
	bool partition_xcpus_add;	/* 6.12+: isolates CPUs at run time */
};

/*
 * vmlinux's symbols, from /proc/kallsyms: read once per process (they
 * cannot change while it runs; a module's are not read), so each of
 * serve --lru-duty's windows reuses the first read. Returns 0 or a
 * negative errno.
 */
int lru_kernel_symbols(struct lru_symbols *s);

/* Same, from any kallsyms-format stream (unit tests). */
void lru_kernel_symbols_parse(FILE *kallsyms, struct lru_symbols *s);

/*
 * BH_LRU_SIZE: the element count of struct bh_lru's bhs[] in the kernel's
 * BTF. Returns it, or a negative errno with a one-line reason in why.
 */
int lru_kernel_slots(char *why, size_t len);

/*
 * True when the kernel preempts kernel code anywhere: full, lazy or RT
 * preemption, from debugfs's sched/preempt (PREEMPT_DYNAMIC), else the
 * command line's preempt=, else uname -v (a PREEMPT or PREEMPT_RT build).
 * why says which, for reports.
 */
bool lru_kernel_preempt_full(char *why, size_t len);

/* Same, from those three texts (any may be NULL): for unit tests. */
bool lru_kernel_preempt_full_of(const char *debugfs, const char *cmdline,
				const char *version, char *why, size_t len);

/*
 * May an exit probe alone prove a lookup that cannot sleep (no task is
 * switched inside it)? Only under a model that never preempts kernel code:
 * dyn_mode is PREEMPT_DYNAMIC's (none 0, voluntary 1, full 2, lazy 3, read
 * from the kernel; -1 where it is not a symbol), version is uname -v (a
 * build without PREEMPT_DYNAMIC names PREEMPT, PREEMPT_RT or PREEMPT_LAZY
 * there when it preempts). Under PREEMPT_DYNAMIC a switch must also be
 * watched (watched). why says which, for reports.
 */
bool lru_kernel_preempt_solo_of(int dyn_mode, bool watched, const char *version,
				char *why, size_t len);

/* True when the kernel can attach kprobes (tracefs kprobe_events exists). */
bool lru_kernel_has_kprobes(void);

/* bhtune's lru_size parameter, or a negative errno. */
int lru_kernel_bhtune_lru_size(void);

/*
 * Checks that bhtune_events.ko fires its events in the layout the LRU probe
 * reads (its abi parameter, struct bhtune_lookup_info). Returns 0, or -1 with why.
 */
int lru_kernel_bhtune_check_abi(char *why, size_t len);

#endif /* BHSCOPE_LRU_KERNEL_H */
