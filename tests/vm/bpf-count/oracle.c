// SPDX-License-Identifier: GPL-2.0
/*
 * bhvm-oracle: counts, per CPU, the calls of the buffer-head lookup
 * function(s) and the block:block_touch_buffer events of one device until
 * SIGINT or SIGTERM, then prints one JSON line:
 *   {"calls":[per CPU],"touches":[per CPU],"found":[per CPU],
 *    "absent":[per CPU],"misses":N}
 * found and absent (the lookups that returned a bh or none) with fentry
 * only; all 0 with kprobe.
 * misses: runs of its own programs the kernel skipped (recursion_misses),
 * so a test can allow for them.
 *
 *   bhvm-oracle OBJ fentry|kprobe KDEV FUNC[,FUNC2]
 *
 * Prints "ready" on stderr once attached.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

static struct bpf_program *prog(struct bpf_object *obj, const char *name)
{
	return bpf_object__find_program_by_name(obj, name);
}

static unsigned long long misses(struct bpf_object *obj)
{
	unsigned long long n = 0;
	struct bpf_program *p;

	bpf_object__for_each_program(p, obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (bpf_program__fd(p) >= 0 &&
		    !bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len))
			n += info.recursion_misses;
	}
	return n;
}

static void print_array(const char *name, const unsigned long long *v, int n)
{
	printf("\"%s\":[", name);
	for (int i = 0; i < n; i++)
		printf("%s%llu", i ? "," : "", v[i]);
	printf("]");
}

int main(int argc, char **argv)
{
	struct bpf_link *links[6] = {};
	char *funcs[2] = {}, *comma;
	struct bpf_object *obj;
	static const char *const names[] = { "calls", "touches", "found", "absent" };
	unsigned long long *counts[4] = {};
	int ncpu = libbpf_num_possible_cpus(), nl = 0, err = 1, sig;
	sigset_t stop_signals;
	__u32 key, dev = strtoul(argc > 3 ? argv[3] : "0", NULL, 0);
	struct bpf_map *rodata;
	bool fentry;

	if (argc != 5 || (strcmp(argv[2], "fentry") && strcmp(argv[2], "kprobe"))) {
		fprintf(stderr, "usage: %s OBJ fentry|kprobe KDEV FUNC[,FUNC2]\n",
			argv[0]);
		return 2;
	}
	fentry = !strcmp(argv[2], "fentry");
	funcs[0] = argv[4];
	comma = strchr(argv[4], ',');
	if (comma) {
		*comma = 0;
		funcs[1] = comma + 1;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "bhvm-oracle: open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	rodata = bpf_object__find_map_by_name(obj, ".rodata");
	if (!rodata || bpf_map__set_initial_value(rodata, &dev, sizeof(dev))) {
		fprintf(stderr, "bhvm-oracle: cannot set the device\n");
		goto out;
	}
	bpf_program__set_autoload(prog(obj, "calls_a"), fentry);
	bpf_program__set_autoload(prog(obj, "calls_b"), fentry && funcs[1]);
	bpf_program__set_autoload(prog(obj, "calls_kprobe"), !fentry);
	bpf_program__set_autoload(prog(obj, "returns_a"), fentry);
	bpf_program__set_autoload(prog(obj, "returns_b"), fentry && funcs[1]);
	if (fentry) {
		bpf_program__set_attach_target(prog(obj, "calls_a"), 0, funcs[0]);
		bpf_program__set_attach_target(prog(obj, "returns_a"), 0, funcs[0]);
		if (funcs[1]) {
			bpf_program__set_attach_target(prog(obj, "calls_b"), 0,
						       funcs[1]);
			bpf_program__set_attach_target(prog(obj, "returns_b"), 0,
						       funcs[1]);
		}
	}
	if (bpf_object__load(obj)) {
		fprintf(stderr, "bhvm-oracle: load: %s\n", strerror(errno));
		goto out;
	}
	if (fentry) {
		links[nl++] = bpf_program__attach(prog(obj, "calls_a"));
		links[nl++] = bpf_program__attach(prog(obj, "returns_a"));
		if (funcs[1]) {
			links[nl++] = bpf_program__attach(prog(obj, "calls_b"));
			links[nl++] = bpf_program__attach(prog(obj, "returns_b"));
		}
	} else {
		for (int i = 0; i < 2 && funcs[i]; i++)
			links[nl++] = bpf_program__attach_kprobe(
				prog(obj, "calls_kprobe"), false, funcs[i]);
	}
	links[nl++] = bpf_program__attach(prog(obj, "touches"));
	for (int i = 0; i < nl; i++) {
		if (!links[i]) {
			fprintf(stderr, "bhvm-oracle: attach: %s\n", strerror(errno));
			goto out;
		}
	}
	/*
	 * Blocked, then waited for: a signal that comes at any time after
	 * "ready" stays pending until sigwait() takes it (a flag tested
	 * before pause() misses one that lands in between).
	 */
	sigemptyset(&stop_signals);
	sigaddset(&stop_signals, SIGINT);
	sigaddset(&stop_signals, SIGTERM);
	sigprocmask(SIG_BLOCK, &stop_signals, NULL);
	fprintf(stderr, "ready\n");
	sigwait(&stop_signals, &sig);
	printf("{");
	for (key = 0; key < 4; key++) {
		counts[key] = calloc(ncpu, sizeof(**counts));
		if (!counts[key] ||
		    bpf_map_lookup_elem(bpf_map__fd(bpf_object__find_map_by_name(obj, "counts")),
					&key, counts[key]))
			goto out;
		print_array(names[key], counts[key], ncpu);
		printf(",");
	}
	printf("\"misses\":%llu}\n", misses(obj));
	err = 0;
out:
	for (int i = 0; i < nl; i++)
		bpf_link__destroy(links[i]);
	for (int i = 0; i < 4; i++)
		free(counts[i]);
	bpf_object__close(obj);
	return err;
}
