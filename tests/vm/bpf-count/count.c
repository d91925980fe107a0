// SPDX-License-Identifier: GPL-2.0
/*
 * bhvm-count: attach count.bpf.o's fentry or kprobe program to FUNC, run
 * CMD, and print how many times FUNC ran and on how many CPUs.
 *
 *   bhvm-count OBJ fentry|kprobe FUNC CMD [ARG...]
 *
 * Exit 0 when the program loaded, attached, CMD succeeded and FUNC ran at
 * least BHVM_COUNT_MIN times (default 1; 0 checks load and attach only);
 * 1 otherwise, with a one-line reason on stderr.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

static int run(char **argv)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "bhvm-count: exec %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

int main(int argc, char **argv)
{
	struct bpf_object *obj = NULL;
	struct bpf_program *prog, *other;
	struct bpf_link *link = NULL;
	int ncpu, cpus_seen = 0, err = 1, rc;
	unsigned long long total = 0, *vals = NULL;
	const char *mode, *func, *min_env = getenv("BHVM_COUNT_MIN");
	unsigned long long min = min_env ? strtoull(min_env, NULL, 10) : 1;
	__u32 zero = 0;

	if (argc < 5) {
		fprintf(stderr,
			"usage: %s OBJ fentry|kprobe FUNC CMD [ARG...]\n",
			argv[0]);
		return 2;
	}
	mode = argv[2];
	func = argv[3];
	if (strcmp(mode, "fentry") && strcmp(mode, "kprobe")) {
		fprintf(stderr, "bhvm-count: mode must be fentry or kprobe\n");
		return 2;
	}

	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "bhvm-count: open %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	prog = bpf_object__find_program_by_name(
		obj, !strcmp(mode, "fentry") ? "on_fentry" : "on_kprobe");
	other = bpf_object__find_program_by_name(
		obj, !strcmp(mode, "fentry") ? "on_kprobe" : "on_fentry");
	if (!prog || !other) {
		fprintf(stderr, "bhvm-count: programs missing from %s\n",
			argv[1]);
		goto out;
	}
	bpf_program__set_autoload(other, false);
	if (!strcmp(mode, "fentry") &&
	    bpf_program__set_attach_target(prog, 0, func)) {
		fprintf(stderr, "bhvm-count: no BTF target %s\n", func);
		goto out;
	}
	if (bpf_object__load(obj)) {
		fprintf(stderr, "bhvm-count: load %s program: %s\n", mode,
			strerror(errno));
		goto out;
	}
	if (!strcmp(mode, "fentry"))
		link = bpf_program__attach(prog);
	else
		link = bpf_program__attach_kprobe(prog, false, func);
	if (!link) {
		fprintf(stderr, "bhvm-count: attach %s to %s: %s\n", mode, func,
			strerror(errno));
		goto out;
	}

	rc = run(argv + 4);

	ncpu = libbpf_num_possible_cpus();
	vals = calloc(ncpu > 0 ? ncpu : 1, sizeof(*vals));
	if (ncpu <= 0 || !vals ||
	    bpf_map_lookup_elem(bpf_map__fd(bpf_object__find_map_by_name(
					obj, "calls")),
				&zero, vals)) {
		fprintf(stderr, "bhvm-count: reading the counters failed\n");
		goto out;
	}
	for (int i = 0; i < ncpu; i++) {
		total += vals[i];
		cpus_seen += vals[i] > 0;
	}
	printf("%s %s: %llu calls on %d of %d CPUs\n", mode, func, total,
	       cpus_seen, ncpu);
	if (rc)
		fprintf(stderr, "bhvm-count: command exited %d\n", rc);
	else if (total < min)
		fprintf(stderr, "bhvm-count: %s ran %llu times, expected >= %llu\n",
			func, total, min);
	else
		err = 0;
out:
	free(vals);
	bpf_link__destroy(link);
	bpf_object__close(obj);
	return err;
}
