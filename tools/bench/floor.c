// SPDX-License-Identifier: GPL-2.0
/*
 * bench-floor: attaches the empty program of floor.bpf.c and waits for a
 * stop signal (make bench starts and stops it like a tracer).
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "lib/stop_signals.h"
#include "bench-floor.skel.h"

int main(int argc, char **argv)
{
	struct bench_floor_bpf *skel;
	sigset_t old, waiting;
	int err;

	if (argc != 1) {
		fprintf(stderr, "usage: %s\n", argv[0]);
		return 64;
	}
	stop_signals_install();
	stop_signals_block(&old, &waiting);
	skel = bench_floor_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "bench-floor: cannot load the BPF program: %s\n",
			strerror(errno));
		return 1;
	}
	err = bench_floor_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "bench-floor: cannot attach: %s\n", strerror(-err));
		bench_floor_bpf__destroy(skel);
		return 1;
	}
	while (!stop_requested())
		sigsuspend(&waiting);
	bench_floor_bpf__destroy(skel);
	return 0;
}
