// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel-private symbols that bhtune needs, reached the way livepatch
 * modules are meant to reach them: livepatch relocations
 * (Documentation/livepatch/module-elf-format.rst).
 *
 * - bh_lrus (fs/buffer.c, static per-CPU): the kernel's own LRU.  Once the
 *   lookup is patched nothing fills it, but entries installed by tasks that
 *   had not switched yet during the patch transition would otherwise keep
 *   their buffer references forever: no drain path reaches them any more,
 *   because the drains are patched too.
 * - lru_disable_count (mm/swap.c, not exported): lru_cache_disabled(),
 *   which the kernel's bh_lru_install() honours so that page migration is
 *   not defeated by LRU references.
 *
 * The table below holds the address of each symbol.  It is written in
 * assembly so the references can carry the names the livepatch loader
 * parses, ".klp.sym.vmlinux.NAME,0", and so that its relocation section
 * holds nothing else.  The references are weak so that modpost does not
 * stop on them.  After the link, kmod/klp-fixup turns that section into
 * ".klp.rela.vmlinux.bhtune_ksym" with SHF_RELA_LIVEPATCH and marks the
 * symbols SHN_LIVEPATCH; the module loader then resolves them through
 * kallsyms before the module runs, and refuses to load the module (with
 * "livepatch: symbol 'NAME' not found in symbol table") if one is missing.
 * A module that skipped klp-fixup gets zeros here and init says so.
 */
#define pr_fmt(fmt) "bhtune: " fmt

#include <linux/atomic.h>
#include <linux/errno.h>
#include <linux/printk.h>

#include "bhtune.h"

enum {
	BHTUNE_KSYM_BH_LRUS,
	BHTUNE_KSYM_LRU_DISABLE_COUNT,
	BHTUNE_KSYM_NR
};

static const char *const bhtune_ksym_names[BHTUNE_KSYM_NR] = {
	[BHTUNE_KSYM_BH_LRUS] = "bh_lrus",
	[BHTUNE_KSYM_LRU_DISABLE_COUNT] = "lru_disable_count",
};

#define BHTUNE_KLP_SYM(name) "\".klp.sym.vmlinux." name ",0\""

asm("\t.pushsection .bhtune_ksym, \"aw\", @progbits\n"
	"\t.balign 8\n"
	"\t.globl bhtune_ksym_addr\n"
	"bhtune_ksym_addr:\n"
	"\t.quad " BHTUNE_KLP_SYM("bh_lrus") "\n"
	"\t.quad " BHTUNE_KLP_SYM("lru_disable_count") "\n"
	"\t.weak " BHTUNE_KLP_SYM("bh_lrus") "\n"
	"\t.weak " BHTUNE_KLP_SYM("lru_disable_count") "\n"
	"\t.popsection\n");

extern unsigned long bhtune_ksym_addr[BHTUNE_KSYM_NR];

int bhtune_ksym_check(void)
{
	int i;

	for (i = 0; i < BHTUNE_KSYM_NR; i++) {
		if (!READ_ONCE(bhtune_ksym_addr[i])) {
			pr_err("address of %s was not resolved: bhtune.ko must be finalised by kmod/klp-fixup (build with 'make -C kmod')\n",
			       bhtune_ksym_names[i]);
			return -ENOEXEC;
		}
	}
	return 0;
}

struct bhtune_kernel_lru __percpu *bhtune_kernel_lrus(void)
{
	return (struct bhtune_kernel_lru __percpu *)
		bhtune_ksym_addr[BHTUNE_KSYM_BH_LRUS];
}

/* The kernel's lru_cache_disabled(), which modules cannot link against. */
bool bhtune_lru_cache_disabled(void)
{
	atomic_t *count = (atomic_t *)bhtune_ksym_addr[BHTUNE_KSYM_LRU_DISABLE_COUNT];

	return atomic_read(count);
}
