// SPDX-License-Identifier: GPL-2.0
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/capability.h>
#include <unistd.h>

#include "lib/env.h"
#include "lib/module_btf.h"
#include "jbd2.skel.h"
#include "jbd2/jbd2_load.h"
#include "lib/bpf_on_cpus.h"
#include "lib/errmsg.h"
#include "lib/map_each.h"
#include "lib/probe_status.h"
#include "lib/prog_misses.h"

/* The tracepoints every jbd2 figure needs (checkpoints are optional). */
static const char *const jbd2_tracepoints[] = {
	"jbd2_start_commit", "jbd2_commit_flushing", "jbd2_end_commit",
	"jbd2_run_stats",    "jbd2_handle_stats",
};

const char *jbd2_load_missing_tracepoint(void)
{
	for (size_t i = 0; i < sizeof(jbd2_tracepoints) / sizeof(*jbd2_tracepoints); i++)
		if (!env_tracepoint_exists("jbd2", jbd2_tracepoints[i]))
			return jbd2_tracepoints[i];
	return NULL;
}

static const char *const flavour_names[JBD2_NR_FLAVOURS] = {
	[JBD2_TP_BTF] = "tp_btf", [JBD2_RAW_TP] = "raw_tp",
	[JBD2_TRACEPOINT] = "tracepoint",
};

static const char *const flavour_prefixes[JBD2_NR_FLAVOURS] = {
	[JBD2_TP_BTF] = "btf_", [JBD2_RAW_TP] = "raw_",
	[JBD2_TRACEPOINT] = "tp_",
};

const char *jbd2_load_flavour_name(enum jbd2_flavour f)
{
	return f < JBD2_NR_FLAVOURS ? flavour_names[f] : "?";
}

const char *jbd2_load_flavour_prefix(enum jbd2_flavour f)
{
	return f < JBD2_NR_FLAVOURS ? flavour_prefixes[f] : "?";
}

/* Whether prog is one of the event programs of flavour f. */
static bool of_flavour(const struct bpf_program *prog, enum jbd2_flavour f)
{
	const char *prefix = flavour_prefixes[f];

	return !strncmp(bpf_program__name(prog), prefix, strlen(prefix));
}

/* The event programs of one flavour, and the checkpoint one if wanted. */
static void autoload_events(struct jbd2_bpf *skel, enum jbd2_flavour flavour,
			    bool checkpoints)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, skel->obj) {
		bool events = false;

		for (int f = 0; f < JBD2_NR_FLAVOURS; f++)
			events |= of_flavour(prog, f);
		if (!events)
			continue;
		bpf_program__set_autoload(prog, of_flavour(prog, flavour) &&
				(checkpoints || !strstr(bpf_program__name(prog),
							"_checkpoint_stats")));
	}
}

/*
 * btf_path: a BTF for CO-RE relocations instead of the kernel's, or NULL
 * (module_btf_merged(): jbd2 is a module whose BTF this process may not
 * ask the kernel for).
 */
static int load_attach(uint32_t kdev, enum jbd2_flavour flavour,
		       bool with_batch_sleep, bool with_checkpoints,
		       const char *btf_path, struct jbd2_bpf **out,
		       bool *attaching)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .btf_custom_path = btf_path);
	struct jbd2_bpf *skel = jbd2_bpf__open_opts(&opts);
	int err;

	*out = NULL;
	*attaching = false;
	if (!skel)
		return -errno;
	skel->rodata->target_dev = kdev;
	autoload_events(skel, flavour, with_checkpoints);
	bpf_program__set_autoload(skel->progs.journal_stop_entry,
				  with_batch_sleep);
	bpf_program__set_autoload(skel->progs.journal_stop_exit,
				  with_batch_sleep);
	err = jbd2_bpf__load(skel);
	if (!err) {
		err = jbd2_bpf__attach(skel);
		*attaching = err;
	}
	if (err) {
		jbd2_bpf__destroy(skel);
		return err;
	}
	*out = skel;
	return 0;
}

enum jbd2_flavour jbd2_load_events_flavour(const struct jbd2_bpf *skel)
{
	if (bpf_program__autoload(skel->progs.btf_run_stats))
		return JBD2_TP_BTF;
	if (bpf_program__autoload(skel->progs.raw_run_stats))
		return JBD2_RAW_TP;
	return JBD2_TRACEPOINT;
}

int jbd2_load_hook_parse(const char *s, enum jbd2_hook *hook)
{
	static const char *const names[] = {
		[JBD2_HOOK_AUTO] = "auto",
		[JBD2_HOOK_BTF] = "btf",
		[JBD2_HOOK_RAW] = "raw",
		[JBD2_HOOK_TRACEPOINT] = "tracepoint",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (!strcmp(s, names[i])) {
			*hook = i;
			return 0;
		}
	return -1;
}

/*
 * Whether a kind of program can run is only known by really loading it:
 * each flavour hook allows, BTF first, with the fentry/fexit pair, then
 * without. Keeps the reason of what failed for the report.
 */
/* Whether hook lets flavour f be tried. */
static bool hook_allows(enum jbd2_hook hook, enum jbd2_flavour f)
{
	static const enum jbd2_flavour only[] = {
		[JBD2_HOOK_BTF] = JBD2_TP_BTF, [JBD2_HOOK_RAW] = JBD2_RAW_TP,
		[JBD2_HOOK_TRACEPOINT] = JBD2_TRACEPOINT,
	};

	return hook == JBD2_HOOK_AUTO || only[hook] == f;
}

struct jbd2_bpf *jbd2_load(uint32_t kdev, enum jbd2_hook hook,
			   struct probe_status *events,
			   struct probe_status *batch_sleep,
			   struct probe_status *checkpoints, int *errp)
{
	bool allowed[JBD2_NR_FLAVOURS], batch_tried = false, attaching;
	struct jbd2_bpf *skel;
	char btf_path[64];
	int err = -ENOENT, btf_fd = -1;
	const char *name;

	if (env_tracepoint_exists("jbd2", "jbd2_checkpoint_stats"))
		probe_status_from(checkpoints, "tracepoint jbd2:jbd2_checkpoint_stats");
	else
		probe_status_missing(checkpoints,
				     "this kernel has no jbd2:jbd2_checkpoint_stats tracepoint");
	for (int f = 0; f < JBD2_NR_FLAVOURS; f++)
		allowed[f] = hook_allows(hook, f);
	/*
	 * jbd2 a module, and no CAP_SYS_ADMIN (bhscope.service): libbpf may
	 * not read the module's BTF from the kernel, so the BTF tracepoints on
	 * its events and fentry on its functions cannot load; the raw and
	 * classic tracepoints can, with its types from sysfs for CO-RE.
	 */
	if (module_btf_exists("jbd2") && !env_capable(CAP_SYS_ADMIN)) {
		btf_fd = module_btf_merged("jbd2", btf_path, sizeof(btf_path));
		if (btf_fd >= 0) {
			allowed[JBD2_TP_BTF] = false;
			snprintf(events->why, sizeof(events->why),
				 "BTF tracepoints on the jbd2 module need its BTF from the kernel, which only CAP_SYS_ADMIN may read");
			batch_tried = true;
			probe_status_missing(batch_sleep,
					     "fentry/fexit on the jbd2 module's jbd2_journal_stop need its BTF from the kernel, which only CAP_SYS_ADMIN may read");
		}
	}
	for (int f = 0; f < JBD2_NR_FLAVOURS; f++) {
		if (!allowed[f])
			continue;
		err = load_attach(kdev, f, !batch_tried, checkpoints->available,
				  btf_fd >= 0 ? btf_path : NULL, &skel, &attaching);
		if (!err) {
			probe_status_from(batch_sleep, "fentry/fexit jbd2_journal_stop");
			goto loaded;
		}
		if (!batch_tried) {
			batch_sleep->available = false;
			probe_status_reason(batch_sleep->why, sizeof(batch_sleep->why),
					    "fentry/fexit", "jbd2_journal_stop", err);
			batch_tried = true;
		}
		err = load_attach(kdev, f, false, checkpoints->available,
				  btf_fd >= 0 ? btf_path : NULL, &skel, &attaching);
		if (!err)
			goto loaded;
		if (err == -EACCES && !attaching) /* BPF_PROG_LOAD: the verifier */
			snprintf(events->why, sizeof(events->why),
				 "the verifier rejected the %s programs for the jbd2 tracepoints (BHSCOPE_DEBUG=1 prints its log)",
				 flavour_names[f]);
		else
			probe_status_reason(events->why, sizeof(events->why),
					    flavour_names[f], "the jbd2 tracepoints",
					    err);
	}
	events->available = false;
	errmsg("loading the jbd2 BPF programs failed: %s",
	       events->why);
	if (errp)
		*errp = err;
	if (btf_fd >= 0)
		close(btf_fd);
	return NULL;
loaded:
	if (btf_fd >= 0)
		close(btf_fd);
	name = flavour_names[jbd2_load_events_flavour(skel)];
	probe_status_from(events, "%s jbd2:*", name);
	if (checkpoints->available)
		probe_status_from(checkpoints, "%s jbd2:jbd2_checkpoint_stats",
				  name);
	return skel;
}

static int read_dropped(struct jbd2_bpf *skel, struct jbd2_snapshot *snap)
{
	__u64 *percpu = calloc(snap->nr_cpus, sizeof(*percpu));
	__u32 zero = 0;
	int err;

	if (!percpu)
		return -ENOMEM;
	err = bpf_map_lookup_elem(bpf_map__fd(skel->maps.dropped_events),
				  &zero, percpu);
	snap->dropped_events = 0;
	for (int c = 0; !err && c < snap->nr_cpus; c++)
		snap->dropped_events += percpu[c];
	free(percpu);
	return err ? -errno : 0;
}

/* Adds every CPU's buckets. */
static int read_buckets(struct jbd2_bpf *skel, struct jbd2_snapshot *snap)
{
	size_t stride = (sizeof(struct jbd2_cpu_buckets) + 7) & ~(size_t)7;
	char *all = calloc(snap->nr_cpus, stride);
	const struct jbd2_dev_bucket *b;
	__u32 zero = 0;
	int err = 0;

	if (!all)
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.cpu_buckets), &zero, all))
		err = -errno;
	for (int c = 0; !err && c < snap->nr_cpus; c++) {
		b = ((const struct jbd2_cpu_buckets *)(all + c * stride))->b;
		for (unsigned int i = 0; !err && i < BHSCOPE_JBD2_BUCKETS; i++)
			if (b[i].owner)
				err = jbd2_snapshot_add_cpu(snap, b[i].owner - 1,
							    c, &b[i].s);
	}
	free(all);
	return err;
}

static int add_journal(__u32 kdev, void *values, void *arg)
{
	return jbd2_snapshot_add_dev(arg, kdev, values);
}

/* Adds the journals whose bucket another one holds. */
static int read_hash(struct jbd2_bpf *skel, struct jbd2_snapshot *snap)
{
	return map_each_percpu(bpf_map__fd(skel->maps.dev_stats),
			       sizeof(struct jbd2_dev_stats), snap->nr_cpus,
			       add_journal, snap);
}

/* Each journal's commit-time average, from its bucket or the hash map. */
static void read_commit_averages(struct jbd2_bpf *skel,
				 struct jbd2_snapshot *snap)
{
	int bucket_fd = bpf_map__fd(skel->maps.state_buckets);
	int hash_fd = bpf_map__fd(skel->maps.journal_state);
	struct jbd2_state_bucket b;
	struct jbd2_journal_state st;

	for (int i = 0; i < snap->nr_devs; i++) {
		struct jbd2_dev_snapshot *d = &snap->devs[i];
		__u32 k = BHSCOPE_DEV_BUCKET(d->kdev, BHSCOPE_JBD2_BUCKET_BITS);

		if (!bpf_map_lookup_elem(bucket_fd, &k, &b) &&
		    b.owner == d->kdev + 1ULL)
			d->avg_commit_ns = b.st.avg_commit_ns;
		else if (!bpf_map_lookup_elem(hash_fd, &d->kdev, &st))
			d->avg_commit_ns = st.avg_commit_ns;
	}
}

/*
 * Events whose program the kernel skipped (recursion_misses), if it counts
 * them for the programs that run: classic tracepoints before 6.7 do not.
 */
static void read_lost(struct jbd2_bpf *skel, struct jbd2_snapshot *snap)
{
	struct bpf_program *prog;

	snap->lost_known = true;
	snap->lost_events = 0;
	bpf_object__for_each_program(prog, skel->obj) {
		if (!bpf_program__autoload(prog) || prog == skel->progs.forget_device)
			continue;
		if (!prog_misses_counted(prog))
			snap->lost_known = false;
		snap->lost_events += prog_misses(prog);
	}
}

int jbd2_load_read_snapshot(struct jbd2_bpf *skel, struct jbd2_snapshot *snap)
{
	int err;

	/* misses first: one skipped while the maps are read is the next's */
	read_lost(skel, snap);
	err = read_dropped(skel, snap) ?: read_buckets(skel, snap) ?:
	      read_hash(skel, snap);
	if (!err)
		read_commit_averages(skel, snap);
	return err;
}

/* Frees kdev's buckets (on every CPU) and drops it from the hash maps. */
static int forget_dev(struct jbd2_bpf *skel, int nr_cpus, uint32_t kdev)
{
	__u32 k = BHSCOPE_DEV_BUCKET(kdev, BHSCOPE_JBD2_BUCKET_BITS);
	struct jbd2_state_bucket b, empty = {};
	int err = 0;

	skel->bss->forget_owner = kdev + 1ULL;
	bpf_on_cpus_run(bpf_program__fd(skel->progs.forget_device), nr_cpus);
	skel->bss->forget_owner = 0;
	/* The journal is gone: no commit of it writes its state any more. */
	if (!bpf_map_lookup_elem(bpf_map__fd(skel->maps.state_buckets), &k, &b) &&
	    b.owner == kdev + 1ULL &&
	    bpf_map_update_elem(bpf_map__fd(skel->maps.state_buckets), &k,
				&empty, BPF_ANY))
		err = -errno;

	if (bpf_map_delete_elem(bpf_map__fd(skel->maps.dev_stats), &kdev) &&
	    errno != ENOENT)
		err = -errno;
	if (bpf_map_delete_elem(bpf_map__fd(skel->maps.journal_state), &kdev) &&
	    errno != ENOENT && !err)
		err = -errno;
	return err;
}

int jbd2_load_forget_devices(struct jbd2_bpf *skel, dev_present_fn present,
			     void *arg)
{
	struct jbd2_snapshot snap = { .nr_cpus = libbpf_num_possible_cpus() };
	int err;

	if (snap.nr_cpus <= 0)
		return snap.nr_cpus ?: -EINVAL;
	/* every journal counted, in a bucket or in the hash maps */
	err = jbd2_load_read_snapshot(skel, &snap);
	for (int i = 0; !err && i < snap.nr_devs; i++)
		if (!present(snap.devs[i].kdev, arg))
			err = forget_dev(skel, snap.nr_cpus, snap.devs[i].kdev);
	jbd2_snapshot_free(&snap);
	return err;
}
