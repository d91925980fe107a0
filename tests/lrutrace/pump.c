// SPDX-License-Identifier: GPL-2.0
/*
 * lrutrace-pump: how fast the --trace writer drains. A BPF program
 * (pump.bpf.c) writes lookup records into a ring buffer at a set rate,
 * and the recorder `bhscope lru --trace` uses (lru_recorder_start())
 * writes them to a trace file; it reports what was produced, what the
 * ring buffer dropped, and the writer thread's CPU time. Needs root.
 *
 *   lrutrace-pump RATE SECONDS FILE [BUFFER_MB]
 *
 * Prints one JSON object.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lrutrace/lru_recorder.h"
#include "lrutrace-pump.skel.h"

struct pump_args {
	__u32 n;
};

int main(int argc, char **argv)
{
	struct lrutrace_pump_bpf *skel;
	struct lru_recorder rec;
	struct lru_trace_params p;
	struct pump_args args;
	double rate, secs, t0, t, writer_cpu = 0;
	long mb = argc > 4 ? atol(argv[4]) : 16;
	uint64_t lost, produced, records, bytes, lookups;
	clockid_t wclock;
	int nr_cpus, err, fd;

	if (argc < 4 || (rate = atof(argv[1])) <= 0 || (secs = atof(argv[2])) <= 0 ||
	    mb < 1) {
		fprintf(stderr, "usage: lrutrace-pump RATE SECONDS FILE [BUFFER_MB]\n");
		return 64;
	}
	nr_cpus = libbpf_num_possible_cpus();
	skel = lrutrace_pump_bpf__open();
	if (!skel || nr_cpus < 1) {
		fprintf(stderr, "lrutrace-pump: cannot open the BPF object\n");
		return 1;
	}
	skel->rodata->nr_cpus = nr_cpus;
	bpf_map__set_max_entries(skel->maps.events, mb << 20);
	err = lrutrace_pump_bpf__load(skel);
	if (err) {
		fprintf(stderr, "lrutrace-pump: cannot load the BPF program: %s\n",
			strerror(-err));
		return 1;
	}
	p = (struct lru_trace_params){
		.lru_size = 16, .nr_cpus = nr_cpus, .hook = "lrutrace-pump",
		.raw_bits = true,
	};
	err = lru_recorder_start(&rec, bpf_map__fd(skel->maps.events), argv[3], &p);
	if (err) {
		fprintf(stderr, "lrutrace-pump: %s: %s\n", argv[3],
			lru_trace_create_strerror(err));
		return 1;
	}
	fd = bpf_program__fd(skel->progs.pump);
	t0 = clock_s(CLOCK_MONOTONIC);
	/* every millisecond, the records due by now */
	while ((t = clock_s(CLOCK_MONOTONIC) - t0) < secs) {
		double due = rate * t - skel->bss->produced - skel->bss->lost;
		LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = &args,
			    .ctx_size_in = sizeof(args));

		if (due >= 1) {
			args.n = due > 1000000 ? 1000000 : (__u32)due;
			err = bpf_prog_test_run_opts(fd, &o);
			if (err) {
				fprintf(stderr, "lrutrace-pump: running the BPF program: %s\n",
					strerror(errno));
				break;
			}
		}
		usleep(1000);
	}
	t = clock_s(CLOCK_MONOTONIC) - t0;
	if (!pthread_getcpuclockid(rec.thread, &wclock))
		writer_cpu = clock_s(wclock);
	produced = skel->bss->produced;
	lost = skel->bss->lost;
	err = lru_recorder_stop(&rec, lost);
	records = rec.w.h.records;
	bytes = rec.w.bytes;
	lookups = rec.w.lookups;
	printf("{\"rate\": %.0f, \"seconds\": %.3f, \"produced\": %llu, \"lost\": %llu, "
	       "\"records\": %llu, \"lookups\": %llu, \"bytes\": %llu, "
	       "\"bytes_per_lookup\": %.3f, \"achieved_per_s\": %.0f, "
	       "\"writer_cpu_s\": %.3f, \"writer_ns_per_record\": %.1f, "
	       "\"buffer_mb\": %ld, \"error\": %d}\n",
	       rate, t, (unsigned long long)produced, (unsigned long long)lost,
	       (unsigned long long)records, (unsigned long long)lookups,
	       (unsigned long long)bytes,
	       lookups ? (double)bytes / lookups : 0.0, produced / t, writer_cpu,
	       records ? writer_cpu * 1e9 / records : 0.0, mb, err);
	lrutrace_pump_bpf__destroy(skel);
	return err || lost ? 1 : 0;
}
