// SPDX-License-Identifier: GPL-2.0
/*
 * A probe's reason, classed for alerts (probe_status_cause): a kernel that
 * refuses a kind of program by design, or lacks a hook, is no failure.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/probe_status.h"

static const char *cause_of(const char *kind, const char *target, int err)
{
	static char why[400];

	probe_status_reason(why, sizeof(why), kind, target, err);
	return probe_status_cause(why);
}

static void refusals_and_absent_hooks_are_expected(void **state)
{
	(void)state;
	assert_string_equal(cause_of("fentry/fexit", "jbd2_journal_stop", -EPERM), "refused");
	assert_string_equal(cause_of("fentry/fexit", "x", -EOPNOTSUPP), "refused");
	assert_string_equal(cause_of("kprobe", "__find_get_block", -ENOENT), "absent");
	assert_string_equal(probe_status_cause("this kernel has no kprobes (no kprobe_events in tracefs: CONFIG_KPROBES or CONFIG_KPROBE_EVENTS is off)"), "absent");
	assert_string_equal(probe_status_cause("this kernel has no jbd2:jbd2_checkpoint_stats tracepoint"), "absent");
	assert_string_equal(probe_status_cause("tracepoint jbd2:jbd2_run_stats not found: jbd2 is not loaded yet (mount an ext4 with a journal, or modprobe jbd2); retried every interval"), "absent");
	assert_string_equal(probe_status_cause("bhtune.ko does not own the LRU: the lookup is the kernel's own lookup (no livepatch replaces it)"), "not_chosen");
}

static void anything_else_is_a_failure(void **state)
{
	(void)state;
	assert_string_equal(cause_of("tp_btf", "the jbd2 tracepoints", -EINVAL), "failed");
	assert_string_equal(probe_status_cause("the verifier rejected the fentry/fexit programs for __find_get_block (BHSCOPE_DEBUG=1 prints its log)"), "failed");
	assert_string_equal(probe_status_cause("cannot open the LRU BPF object: Cannot allocate memory"), "failed");
	assert_string_equal(probe_status_cause(""), "failed");
	assert_string_equal(probe_status_cause(NULL), "failed");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(refusals_and_absent_hooks_are_expected),
		cmocka_unit_test(anything_else_is_a_failure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
