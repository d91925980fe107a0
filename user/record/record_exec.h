/* SPDX-License-Identifier: GPL-2.0 */
/* Running one workload: its exit status, wall time and standard output. */
#ifndef BHSCOPE_RECORD_EXEC_H
#define BHSCOPE_RECORD_EXEC_H

#include <stdbool.h>
#include <stddef.h>

struct exec_result {
	int exit_status;	/* as a shell reports it: 128 + signal if killed */
	int signal;		/* the signal that killed it, or 0 */
	double wall_s;		/* fork to reaping, CLOCK_MONOTONIC */
	char *out;		/* its standard output (NUL-terminated) */
	size_t out_len;
	char error[256];	/* set when it could not be started */
};

/*
 * Runs argv[0] (searched in PATH) with argv and waits for it. Its standard
 * output is captured (up to a few MiB) and also copied to ours when echo is
 * set. Returns 0 when the command ran (whatever its exit status), -1 when it
 * could not be started (reason in r->error, exit_status 127).
 */
int record_exec_run(char *const argv[], bool echo, struct exec_result *r);

void record_exec_result_free(struct exec_result *r);

/* "SIGKILL" for 9; "signal N" for numbers without a name. */
const char *record_exec_signal_name(int sig, char *buf, size_t len);

#endif /* BHSCOPE_RECORD_EXEC_H */
