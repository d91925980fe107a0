// SPDX-License-Identifier: GPL-2.0
/* Input files: regular files (or stdin for "-"), bounded, never waited on. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "scratch_dir.h"

#include "lib/clock.h"
#include "lib/input_file.h"

static char path[128];
static char err[256];
static char *data;
static size_t len;

static int read_path(const char *p, size_t max, int flags)
{
	int ret;

	err[0] = '\0';
	data = NULL;
	ret = input_file_read(p, max, flags, &data, &len, err, sizeof(err));
	if (ret) {
		assert_null(data);
		assert_true(err[0] != '\0');
		assert_null(strchr(err, '\n'));
	}
	return ret;
}

static void regular_file_is_read_whole_and_terminated(void **state)
{
	(void)state;
	assert_int_equal(read_path(scratch_file("a", "key = value\n", 12), 100, 0), 0);
	assert_int_equal(len, 12);
	assert_string_equal(data, "key = value\n");
	free(data);
}

static void empty_file_is_an_empty_string(void **state)
{
	(void)state;
	assert_int_equal(read_path(scratch_file("e", "", 0), 100, 0), 0);
	assert_int_equal(len, 0);
	assert_string_equal(data, "");
	free(data);
}

static void file_of_exactly_the_bound_is_read_one_more_byte_is_refused(void **state)
{
	char big[40000];
	const char *p;

	(void)state;
	memset(big, 'x', sizeof(big));
	p = scratch_file("b", big, sizeof(big));
	assert_int_equal(read_path(p, sizeof(big), 0), 0);
	assert_int_equal(len, sizeof(big));
	free(data);
	assert_int_equal(read_path(p, sizeof(big) - 1, 0), -1);
	assert_int_equal(errno, EFBIG);
	assert_non_null(strstr(err, "larger than"));
}

static void directory_is_refused(void **state)
{
	(void)state;
	assert_int_equal(read_path(scratch_dir, 100, 0), -1);
	assert_string_equal(err, "a directory, not a regular file");
}

/* /dev/zero never ends: it must be refused, not read until the bound. */
static void endless_device_is_refused_at_once(void **state)
{
	(void)state;
	assert_int_equal(read_path("/dev/zero", 1 << 30, 0), -1);
	assert_string_equal(err, "a character device, not a regular file");
}

/* Opening a FIFO without a writer blocks, unless it is refused first. */
static void fifo_without_writer_is_refused_without_waiting(void **state)
{
	double t0;

	(void)state;
	snprintf(path, sizeof(path), "%s/fifo", scratch_dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	alarm(10);	/* a hang fails the test instead of blocking make check */
	t0 = clock_s(CLOCK_MONOTONIC);
	assert_int_equal(read_path(path, 100, 0), -1);
	alarm(0);
	assert_true(clock_s(CLOCK_MONOTONIC) - t0 < 1);
	assert_string_equal(err, "a FIFO, not a regular file");
}

static void socket_is_refused(void **state)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	(void)state;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/sock", scratch_dir);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(read_path(sa.sun_path, 100, 0), -1);
	/* open() itself refuses a socket (ENXIO): either way, one line. */
	close(fd);
}

static void missing_file_gives_the_system_error(void **state)
{
	(void)state;
	snprintf(path, sizeof(path), "%s/nope", scratch_dir);
	assert_int_equal(read_path(path, 100, 0), -1);
	assert_int_equal(errno, ENOENT);
	assert_string_equal(err, strerror(ENOENT));
}

/* "-" is standard input only where the command asks for it. */
static void dash_is_stdin_when_asked_else_a_file_name(void **state)
{
	int p[2], saved = dup(0);

	(void)state;
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], "from a pipe", 11), 11);
	close(p[1]);
	dup2(p[0], 0);
	close(p[0]);
	assert_int_equal(read_path("-", 100, INPUT_FILE_STDIN), 0);
	assert_string_equal(data, "from a pipe");
	free(data);
	dup2(saved, 0);
	close(saved);
	assert_true(fcntl(0, F_GETFD) >= 0);	/* stdin is not closed */
	assert_int_equal(chdir(scratch_dir), 0);
	assert_int_equal(read_path("-", 100, 0), -1);
	assert_int_equal(errno, ENOENT);
}

static void stdin_beyond_the_bound_is_refused(void **state)
{
	int p[2], saved = dup(0);
	char big[5000];

	(void)state;
	memset(big, 'y', sizeof(big));
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], big, sizeof(big)), (ssize_t)sizeof(big));
	close(p[1]);
	dup2(p[0], 0);
	close(p[0]);
	assert_int_equal(read_path("-", 4096, INPUT_FILE_STDIN), -1);
	assert_non_null(strstr(err, "larger than 4 KiB"));
	dup2(saved, 0);
	close(saved);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(regular_file_is_read_whole_and_terminated),
		cmocka_unit_test(empty_file_is_an_empty_string),
		cmocka_unit_test(file_of_exactly_the_bound_is_read_one_more_byte_is_refused),
		cmocka_unit_test(directory_is_refused),
		cmocka_unit_test(endless_device_is_refused_at_once),
		cmocka_unit_test(fifo_without_writer_is_refused_without_waiting),
		cmocka_unit_test(socket_is_refused),
		cmocka_unit_test(missing_file_gives_the_system_error),
		cmocka_unit_test(dash_is_stdin_when_asked_else_a_file_name),
		cmocka_unit_test(stdin_beyond_the_bound_is_refused),
	};

	return cmocka_run_group_tests(tests, scratch_setup, scratch_teardown);
}
