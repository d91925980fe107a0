// SPDX-License-Identifier: GPL-2.0
/* Files written all or nothing, and never over anything but a regular file. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/atomic_file.h"

static char dir[64];
static int dirfd_;

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/bhscope-atomic-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	dirfd_ = open(dir, O_RDONLY | O_DIRECTORY);
	return dirfd_ < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	close(dirfd_);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) ? -1 : 0;
}

static char *content(const char *name)
{
	static char buf[256];
	int fd = openat(dirfd_, name, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	buf[n < 0 ? 0 : n] = '\0';
	return buf;
}

/* Entries of the directory: the temporary files must be gone. */
static int nr_entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while ((e = readdir(d)))
		n += e->d_name[0] != '.' || (strcmp(e->d_name, ".") &&
					     strcmp(e->d_name, ".."));
	closedir(d);
	return n;
}

static void new_name_and_regular_file_are_written(void **state)
{
	char err[256];
	struct stat st;

	(void)state;
	assert_int_equal(atomic_file_write(dirfd_, "a", "one", 3, 0, err,
					   sizeof(err)), 0);
	assert_string_equal(content("a"), "one");
	assert_int_equal(atomic_file_write(dirfd_, "a", "two!", 4,
					   ATOMIC_FILE_SYNC, err, sizeof(err)), 0);
	assert_string_equal(content("a"), "two!");
	assert_int_equal(fstatat(dirfd_, "a", &st, 0), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	assert_int_equal(nr_entries(), 1);
}

static void symlink_is_refused_and_its_target_kept(void **state)
{
	char err[256];
	struct stat st;

	(void)state;
	assert_int_equal(atomic_file_write(dirfd_, "target", "keep", 4, 0, err,
					   sizeof(err)), 0);
	assert_int_equal(symlinkat("target", dirfd_, "link"), 0);
	assert_int_equal(atomic_file_write(dirfd_, "link", "evil", 4, 0, err,
					   sizeof(err)), -1);
	assert_int_equal(errno, EEXIST);
	assert_non_null(strstr(err, "link is a symbolic link; refusing"));
	assert_int_equal(fstatat(dirfd_, "link", &st, AT_SYMLINK_NOFOLLOW), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_string_equal(content("target"), "keep");
}

static void fifo_and_directory_are_refused(void **state)
{
	char err[256];
	struct stat st;

	(void)state;
	assert_int_equal(mkfifoat(dirfd_, "fifo", 0600), 0);
	assert_int_equal(mkdirat(dirfd_, "sub", 0700), 0);
	assert_int_equal(atomic_file_write(dirfd_, "fifo", "x", 1, 0, err,
					   sizeof(err)), -1);
	assert_non_null(strstr(err, "a FIFO"));
	assert_int_equal(atomic_file_write(dirfd_, "sub", "x", 1, 0, err,
					   sizeof(err)), -1);
	assert_non_null(strstr(err, "a directory"));
	assert_int_equal(fstatat(dirfd_, "fifo", &st, 0), 0);
	assert_true(S_ISFIFO(st.st_mode));
	assert_int_equal(atomic_file_check(dirfd_, "fifo", err, sizeof(err)), -1);
	assert_int_equal(atomic_file_check(dirfd_, "absent", err, sizeof(err)), 0);
}

static void device_node_is_refused(void **state)
{
	char err[256];

	(void)state;
	assert_int_equal(atomic_file_write(AT_FDCWD, "/dev/null", "x", 1, 0,
					   err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/dev/null is a device"));
}

static void missing_directory_fails_and_says_so(void **state)
{
	char err[256];

	(void)state;
	assert_int_equal(atomic_file_write(dirfd_, "nodir/x", "x", 1, 0, err,
					   sizeof(err)), -1);
	assert_non_null(strstr(err, "nodir/x"));
}

/* Names that can never be written are refused by the check itself. */
static void empty_and_directory_names_are_refused(void **state)
{
	char err[256];

	(void)state;
	assert_int_equal(atomic_file_check(dirfd_, "", err, sizeof(err)), -1);
	assert_string_equal(err, "an empty file name: give one");
	assert_int_equal(atomic_file_check(dirfd_, "new/", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "new/ ends in '/'"));
	assert_int_equal(atomic_file_check(dirfd_, "nodir/x", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no directory nodir"));
	assert_int_equal(atomic_file_check(dirfd_, "x", err, sizeof(err)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(empty_and_directory_names_are_refused),
		cmocka_unit_test(new_name_and_regular_file_are_written),
		cmocka_unit_test(symlink_is_refused_and_its_target_kept),
		cmocka_unit_test(fifo_and_directory_are_refused),
		cmocka_unit_test(device_node_is_refused),
		cmocka_unit_test(missing_directory_fails_and_says_so),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
