// SPDX-License-Identifier: GPL-2.0
/*
 * One tuner at a time (lib/tunables_lock): a second claim of a journal is
 * refused naming the holder, a claim of another journal is not, a holder
 * killed with SIGKILL frees its claim, and the originals saved in a state
 * file read back as written (and are refused when they are not bhscope's).
 */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/tunables_lock.h"
#include "scratch_dir.h"

static void second_claim_is_refused_naming_the_holder(void **state)
{
	struct tunables_claim a, b, other;
	char err[512], want[64];

	(void)state;
	assert_int_equal(tunables_lock_journal(&a, 7, 0, "loop0", "sweep", err,
					       sizeof(err)), 0);
	assert_int_equal(tunables_lock_journal(&b, 7, 0, "loop0", "tune set",
					       err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "(pid %ld, sweep)", (long)getpid());
	assert_non_null(strstr(err, "the journal of loop0 (7:0) is being changed by another bhscope"));
	assert_non_null(strstr(err, want));
	assert_null(strchr(err, '\n'));
	assert_int_equal(tunables_lock_journal(&other, 7, 1, "loop1", "sweep",
					       err, sizeof(err)), 0);
	assert_int_equal(tunables_lock_bhtune(&b, "sweep", err, sizeof(err)), 0);
	tunables_lock_release(&b);
	tunables_lock_release(&other);
	tunables_lock_release(&a);
	assert_int_equal(tunables_lock_journal(&b, 7, 0, "loop0", "tune set",
					       err, sizeof(err)), 0);
	tunables_lock_release(&b);
	tunables_lock_release(&b);	/* twice is harmless */
}

/* A workload bhscope runs must not inherit the lock. */
static void lock_is_closed_on_exec(void **state)
{
	struct tunables_claim c;
	char err[512];

	(void)state;
	assert_int_equal(tunables_lock_bhtune(&c, "sweep", err, sizeof(err)), 0);
	assert_true(fcntl(c.fd, F_GETFD) & FD_CLOEXEC);
	assert_true(fcntl(c.dirfd, F_GETFD) & FD_CLOEXEC);
	tunables_lock_release(&c);
}

static void killed_holder_frees_its_claim(void **state)
{
	struct tunables_claim c;
	int ready[2], status;
	char err[512], x;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(ready), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		if (tunables_lock_journal(&c, 8, 1, "sda1", "sweep", err,
					  sizeof(err)) ||
		    write(ready[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(2);
	}
	assert_int_equal(read(ready[0], &x, 1), 1);
	assert_int_equal(tunables_lock_journal(&c, 8, 1, "sda1", "sweep", err,
					       sizeof(err)), -1);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(tunables_lock_journal(&c, 8, 1, "sda1", "sweep", err,
					       sizeof(err)), 0);
	tunables_lock_release(&c);
	close(ready[0]);
	close(ready[1]);
}

static void saved_originals_read_back(void **state)
{
	struct tunables_saved s = { .v = { .batch = true, .min_us = 300,
					   .max_us = 15000, .lru = true,
					   .lru_size = 16 } }, r;
	struct tunables_claim c;
	char err[512], text[128];

	(void)state;
	assert_int_equal(tunables_lock_journal(&c, 7, 2, "loop2", "sweep", err,
					       sizeof(err)), 0);
	assert_int_equal(tunables_lock_saved(&c, &r, err, sizeof(err)), 0);
	assert_int_equal(tunables_lock_save(&c, &s, "sweep", err, sizeof(err)), 0);
	assert_int_equal(tunables_lock_saved(&c, &r, err, sizeof(err)), 1);
	assert_int_equal(r.pid, getpid());
	assert_string_equal(r.by, "sweep");
	assert_true(r.v.batch && r.v.lru);
	assert_int_equal(r.v.min_us, 300);
	assert_int_equal(r.v.max_us, 15000);
	assert_int_equal(r.v.lru_size, 16);
	tunables_lock_describe(&r, text, sizeof(text));
	assert_string_equal(text, "lru_size 16, batch times 300/15000 us");
	/* a journal no longer mounted: nothing to put back, the file goes */
	assert_int_equal(tunables_restore(&c, "", NULL, err, sizeof(err)), 0);
	assert_int_equal(tunables_lock_saved(&c, &r, err, sizeof(err)), 0);
	tunables_lock_release(&c);
}

static void state_file_not_ours_is_refused(void **state)
{
	struct tunables_claim c;
	struct tunables_saved r;
	char err[512];

	(void)state;
	scratch_file("journal-7:3.state", "min_batch_us 300\nrm -rf /\n", 26);
	assert_int_equal(tunables_lock_journal(&c, 7, 3, "loop3", "sweep", err,
					       sizeof(err)), 0);
	assert_int_equal(tunables_lock_saved(&c, &r, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "is not a state file bhscope wrote"));
	assert_int_equal(tunables_restore(&c, "/mnt", NULL, err,
					  sizeof(err)), -1);
	tunables_lock_release(&c);
}

static int setup(void **state)
{
	if (scratch_setup(state))
		return -1;
	tunables_lock_dir_set(scratch_dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(second_claim_is_refused_naming_the_holder),
		cmocka_unit_test(lock_is_closed_on_exec),
		cmocka_unit_test(killed_holder_frees_its_claim),
		cmocka_unit_test(saved_originals_read_back),
		cmocka_unit_test(state_file_not_ours_is_refused),
	};

	return cmocka_run_group_tests(tests, setup, scratch_teardown);
}
