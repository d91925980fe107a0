// SPDX-License-Identifier: GPL-2.0
/*
 * bhvm-mover: moves the tasks named COMM between CPUs until SIGTERM, as a
 * busy host's scheduler and cpusets do: every PERIOD_MS one of them, in
 * turn, gets a single random online CPU or every CPU. The list of tasks
 * is refreshed from /proc every 100 ms. Prints the moves made on exit.
 *
 *   bhvm-mover COMM PERIOD_MS
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_TASKS 256

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int scan(const char *comm, pid_t *tids)
{
	char path[300], name[64];
	struct dirent *e;
	int n = 0;
	DIR *d = opendir("/proc");
	FILE *f;

	while (d && (e = readdir(d)) && n < MAX_TASKS) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(name, sizeof(name), f)) {
			name[strcspn(name, "\n")] = 0;
			if (!strcmp(name, comm))
				tids[n++] = atoi(e->d_name);
		}
		fclose(f);
	}
	if (d)
		closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF), moves = 0, failed = 0;
	struct timespec period, last = {}, now;
	pid_t tids[MAX_TASKS];
	int n = 0, next = 0;
	cpu_set_t set;

	if (argc != 3) {
		fprintf(stderr, "usage: %s COMM PERIOD_MS\n", argv[0]);
		return 2;
	}
	period.tv_sec = 0;
	period.tv_nsec = atol(argv[2]) * 1000000L;
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	srand(getpid());
	while (!stop) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - last.tv_sec) * 1000000000L +
		    (now.tv_nsec - last.tv_nsec) > 100000000L) {
			n = scan(argv[1], tids);
			last = now;
		}
		if (n) {
			int r = rand() % (ncpu + 1);

			CPU_ZERO(&set);
			for (int c = 0; c < ncpu; c++)
				if (r == ncpu || c == r)
					CPU_SET(c, &set);
			/* an offline CPU or an exited task: EINVAL, ESRCH */
			if (sched_setaffinity(tids[next++ % n], sizeof(set), &set))
				failed++;
			else
				moves++;
		}
		nanosleep(&period, NULL);
	}
	printf("moves %ld failed %ld\n", moves, failed);
	return 0;
}
