// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/errmsg.h"
#include "lib/stdout_check.h"
#include "lib/stop_signals.h"

static bool checked;
static int first_errno;

void stdout_check_note(int err)
{
	if (!first_errno)
		first_errno = err;
}

int stdout_check(void)
{
	bool failed_before;
	int rc;

	if (checked)
		return 0;
	checked = true;
	/*
	 * An error from an earlier write stays in the stream's error flag;
	 * the data still buffered then fails again, with its errno.
	 */
	failed_before = ferror(stdout);
	errno = 0;
	rc = fclose(stdout);
	if (!rc && !failed_before)
		return 0;
	if (rc && errno == EBADF && !failed_before)
		return 0;	/* closed by the command itself: nothing lost */
	if (rc && errno && errno != EBADF)
		stdout_check_note(errno);
	if (first_errno == EINTR && stop_signals_requested())
		/* a reader that stopped reading (a paused pager), then Ctrl-C */
		errmsg("stopped while standard output was blocked: the last report is incomplete");
	else if (first_errno)
		errmsg("writing standard output: %s",
		       strerror(first_errno));
	else
		errmsg("writing standard output failed");
	return -1;
}

static void check_at_exit(void)
{
	if (stdout_check())
		_exit(1);
}

void stdout_check_at_exit(void)
{
	/*
	 * Into a file or a pipe, a buffer that holds the longest --help: a
	 * write that fails while the text is printed (a 4 KiB buffer, and
	 * bhscope lru --help) leaves only the stream's error flag, and the
	 * check could not say why. Reports flush themselves.
	 */
	static char buf[1 << 16];

	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, buf, _IOFBF, sizeof(buf));
	atexit(check_at_exit);
}
