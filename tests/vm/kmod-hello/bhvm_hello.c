// SPDX-License-Identifier: GPL-2.0
/*
 * The smallest out-of-tree module that proves the VM bench can build against
 * a guest kernel's headers and load the result: it exposes a read-only
 * parameter the test reads back, and logs load and unload.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/utsname.h>

static int magic = 4242;
module_param(magic, int, 0444);
MODULE_PARM_DESC(magic, "value the guest test reads back from sysfs");

static int __init bhvm_hello_init(void)
{
	pr_info("loaded on %s, magic %d\n", init_utsname()->release, magic);
	return 0;
}

static void __exit bhvm_hello_exit(void)
{
	pr_info("unloaded\n");
}

module_init(bhvm_hello_init);
module_exit(bhvm_hello_exit);
MODULE_DESCRIPTION("bhscope VM bench smoke-test module");
MODULE_LICENSE("GPL");
