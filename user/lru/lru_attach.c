// SPDX-License-Identifier: GPL-2.0
/*
 * Choosing the LRU tracer's hooks by loading and attaching them, best
 * first, and what each figure then comes from (struct lru_hooks).
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "lib/bpf_on_cpus.h"
#include "lib/cpu_busy.h"
#include "lib/env.h"
#include "lib/errmsg.h"
#include "lib/ticker.h"
#include "lru.skel.h"
#include "lru/lru_kernel.h"
#include "lru/lru_session.h"
#include "lru/lru_timing.h"
#include "lib/probe_status.h"

/*
 * The lookup functions the hooks attach to on this kernel: the one every
 * lookup goes through where it is a symbol, else the exported wrappers
 * (where 6.15's find_get_block_common is inlined into both, ext4 calls
 * the nonatomic one).
 */
struct lookup_target {
	const char *func;	/* NULL: no lookup function is a symbol */
	const char *func2;	/* the second wrapper, or NULL */
	bool common;		/* find_get_block_common(bdev, block, size, atomic) */
};

/*
 * BHSCOPE_LRU_HOOK_WRAPPERS=1 hooks the two wrappers even where
 * find_get_block_common is a symbol: so the VM tests can run the
 * two-function hooks on a kernel that has the common function.
 */
static void lookup_target_pick(const struct lru_symbols *sym,
			       struct lookup_target *t)
{
	const char *force = getenv("BHSCOPE_LRU_HOOK_WRAPPERS");
	bool wrappers = force && !strcmp(force, "1") && sym->find_get_block &&
			sym->find_get_block_nonatomic;

	memset(t, 0, sizeof(*t));
	if (sym->find_get_block_common && !wrappers) {
		t->func = "find_get_block_common";
		t->common = true;
	} else if (sym->find_get_block) {
		t->func = "__find_get_block";
		if (sym->find_get_block_nonatomic)
			t->func2 = "__find_get_block_nonatomic";
	}
}

enum hook_kind { HOOK_FENTRY, HOOK_FEXIT, HOOK_KPROBE, HOOK_KRETPROBE, HOOK_TP,
		 HOOK_TP_BTF, HOOK_RAW_TP };

static const char *const hook_kind_names[] = {
	[HOOK_FENTRY] = "fentry",
	[HOOK_FEXIT] = "fexit",
	[HOOK_KPROBE] = "kprobe",
	[HOOK_KRETPROBE] = "kretprobe",
	[HOOK_TP] = "tracepoint",
	[HOOK_TP_BTF] = "tp_btf",
	[HOOK_RAW_TP] = "raw_tp",
};

static struct lru_bpf *open_skel(const struct lru_load_opts *o, int lru_size,
				 bool count_runs)
{
	struct lru_bpf *skel = lru_bpf__open();
	struct bpf_program *p;

	if (!skel)
		return NULL;
	skel->rodata->target_dev = o->kdev;
	skel->rodata->lru_slots = lru_size > 0 ? lru_size : 16;
	/* the last slot's hits go the long way when its key is kept */
	skel->rodata->short_slots = skel->rodata->lru_slots -
				    (o->whatif > (int)skel->rodata->lru_slots);
	/* with the ghost list, an install updates it: the long way */
	skel->rodata->short_installs = o->whatif <= (int)skel->rodata->lru_slots;
	skel->rodata->whatif_depth = o->whatif;
	skel->rodata->trace_events = o->trace;
	/* lost kretprobe instances show only as entries without an exit */
	skel->rodata->count_runs = count_runs;
	/*
	 * Kprobes: a map copy that holds a CPU's bpf_prog_active makes the
	 * kernel skip both of a lookup's probes there, leaving no trace in
	 * BPF (6.7+ counts them, for user space, after the fact): lookups may
	 * go unseen at any time, so every check compares every slot.
	 */
	skel->rodata->check_every_slot = count_runs;
	bpf_map__set_max_entries(skel->maps.events,
				 o->trace ? o->trace_bytes : (uint32_t)getpagesize());
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, false);
	bpf_program__set_autoload(skel->progs.forget_device, true);
	bpf_program__set_autoload(skel->progs.mark_unseen, true);
	return skel;
}

/* What a program is to a lookup. */
enum hook_role { ROLE_OTHER, ROLE_LOOKUP_ENTRY, ROLE_LOOKUP_EXIT, ROLE_EMPTIED,
		 ROLE_DISABLE, ROLE_TIMING };

/*
 * Attaches prog; target is a function, "category:name" for HOOK_TP, or
 * the tracepoint's name for HOOK_RAW_TP. With later, only takes its slot in s->att (link NULL): attach_slot()
 * attaches it when it is needed.
 */
static int attach_or_later(struct lru_session *s, struct bpf_program *prog,
			   enum hook_kind kind, const char *target,
			   enum hook_role role, bool later)
{
	struct bpf_link *link = NULL;
	struct lru_attached *a;
	char category[64];
	const char *colon;

	if (s->nr_att >= LRU_MAX_ATTACHED)
		return -E2BIG;
	if (later)
		goto add;
	switch (kind) {
	case HOOK_FENTRY:
	case HOOK_FEXIT:
	case HOOK_TP_BTF:
		link = bpf_program__attach_trace(prog);
		break;
	case HOOK_KPROBE:
	case HOOK_KRETPROBE:
		link = bpf_program__attach_kprobe(prog, kind == HOOK_KRETPROBE,
						  target);
		break;
	case HOOK_RAW_TP:
		link = bpf_program__attach_raw_tracepoint(prog, target);
		break;
	case HOOK_TP:
		colon = strchr(target, ':');
		snprintf(category, sizeof(category), "%.*s",
			 (int)(colon - target), target);
		link = bpf_program__attach_tracepoint(prog, category, colon + 1);
		break;
	}
	if (!link)
		return -errno;
add:
	a = &s->att[s->nr_att++];
	a->prog = prog;
	a->link = link;
	a->per_lookup = role == ROLE_LOOKUP_ENTRY || role == ROLE_LOOKUP_EXIT ||
			role == ROLE_TIMING;
	a->timing = role == ROLE_TIMING;
	a->lookup_exit = role == ROLE_LOOKUP_EXIT;
	a->sees_emptied = role == ROLE_EMPTIED;
	a->sees_disable = role == ROLE_DISABLE;
	snprintf(a->what, sizeof(a->what), "%s %s", hook_kind_names[kind],
		 target);
	return 0;
}

static int attach(struct lru_session *s, struct bpf_program *prog,
		  enum hook_kind kind, const char *target, enum hook_role role)
{
	return attach_or_later(s, prog, kind, target, role, false);
}

/* Attaches the fentry/fexit program of att[i], taken by attach_or_later(). */
static int attach_slot(struct lru_session *s, int i)
{
	struct bpf_link *link = bpf_program__attach_trace(s->att[i].prog);

	if (!link)
		return -errno;
	s->att[i].link = link;
	return 0;
}

static void detach_all(struct lru_session *s)
{
	for (int i = 0; i < s->nr_att; i++)
		bpf_link__destroy(s->att[i].link);
	s->nr_att = 0;
}

static void drop_skel(struct lru_session *s)
{
	detach_all(s);
	lru_bpf__destroy(s->skel);
	s->skel = NULL;
}

static int load_skel(struct lru_session *s, struct lru_bpf *skel,
		     const char *kind, const char *target, char *why,
		     size_t len)
{
	int err = lru_bpf__load(skel);

	if (err == -EACCES) {
		/* From BPF_PROG_LOAD, EACCES is the verifier saying no. */
		snprintf(why, len,
			 "the verifier rejected the %s programs for %s (BHSCOPE_DEBUG=1 prints its log)",
			 kind, target);
		lru_bpf__destroy(skel);
		return err;
	}
	if (err) {
		probe_status_reason(why, len, kind, target, err);
		lru_bpf__destroy(skel);
		return err;
	}
	s->skel = skel;
	return 0;
}

static void attach_livepatch_watch(struct lru_session *s,
				   enum hook_kind kind);

static int try_bhtune(struct lru_session *s, const struct lru_load_opts *o,
		      char *why, size_t len)
{
	struct lru_bpf *skel;
	char who[200];
	bool watch = true;
	int n, err;

	if (s->owner.kind != LRU_OWNER_BHTUNE) {
		snprintf(why, len, "bhtune.ko does not own the LRU: the lookup is %s",
			 lru_owner_describe(&s->owner, who, sizeof(who)));
		return -ENOENT;
	}
	if (lru_kernel_bhtune_check_abi(why, len))
		return -EPROTO;
	n = lru_kernel_bhtune_lru_size();
	if (n <= 0) {
		snprintf(why, len, "cannot read bhtune's lru_size parameter: %s",
			 strerror(-n));
		return n ?: -EINVAL;
	}
	s->hooks.lru_size = n;
retry:
	skel = open_skel(o, n, false);
	if (!skel) {
		snprintf(why, len, "cannot open the LRU BPF object: %s",
			 strerror(errno));
		return -errno;
	}
	bpf_program__set_autoload(skel->progs.raw_bhtune_lookup, true);
	bpf_program__set_autoload(skel->progs.raw_bhtune_invalidate, true);
	bpf_program__set_autoload(skel->progs.fentry_livepatch, watch);
	err = load_skel(s, skel, "raw tracepoint", "bhtune_lookup", why, len);
	if (err && watch) {
		/* perhaps only the livepatch watch: the owner is read anyway */
		watch = false;
		goto retry;
	}
	if (err)
		return err;
	if (watch)
		attach_livepatch_watch(s, HOOK_FENTRY);
	err = attach(s, skel->progs.raw_bhtune_lookup, HOOK_RAW_TP,
		     "bhtune_lookup", ROLE_LOOKUP_EXIT) ?:
	      attach(s, skel->progs.raw_bhtune_invalidate, HOOK_RAW_TP,
		     "bhtune_invalidate", ROLE_EMPTIED);
	if (err) {
		probe_status_reason(why, len, "raw tracepoint", "bhtune_*", err);
		drop_skel(s);
		return err;
	}
	snprintf(s->hooks.hook, sizeof(s->hooks.hook), "raw_tp:bhtune_lookup");
	lru_hooks_bhtune(&s->hooks, o, n);
	return 0;
}

/*
 * Every way an LRU is emptied is watched (see lru_emptied_gen): the
 * number moves once more, so that no exit before the last attach took
 * it for proof, and the lookups' exits may rely on it.
 */
static void watch_emptied(struct lru_session *s)
{
	__atomic_fetch_add(&s->skel->data->lru_emptied_gen, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&s->skel->bss->emptied_watched, 1, __ATOMIC_SEQ_CST);
}

/*
 * Where an LRU is emptied next (see note_emptying() in bpf/lru.bpf.c):
 * the IPI body of invalidate_bh_lrus(), invalidate_bh_lrus_cpu() and the
 * hotplug teardown. Returns whether every one is watched.
 */
static bool attach_emptying(struct lru_session *s, enum hook_kind kind,
			    const struct lru_symbols *sym)
{
	bool fentry = kind == HOOK_FENTRY;
	struct lru_bpf *k = s->skel;
	const struct {
		bool present;
		struct bpf_program *prog;
		const char *func;
	} w[] = {
		{ sym->invalidate_ipi, fentry ? k->progs.fentry_emptying_ipi :
						k->progs.kprobe_emptying_ipi,
		  "invalidate_bh_lru" },
		{ sym->invalidate_cpu, fentry ? k->progs.fentry_invalidate_cpu :
						k->progs.kprobe_invalidate_cpu,
		  "invalidate_bh_lrus_cpu" },
		{ sym->cpu_dead, fentry ? k->progs.fentry_emptying_dead :
					  k->progs.kprobe_emptying_dead,
		  "buffer_exit_cpu_dead" },
	};
	/*
	 * A kernel without them empties LRUs where no probe sees it. Kprobes
	 * are not proof: the kernel skips the IPI's while it interrupts the
	 * lookup's own kprobe (bpf_prog_active), between its LRU read and
	 * its note of the count.
	 */
	bool watched = fentry && sym->invalidate_ipi && sym->cpu_dead;

	for (size_t i = 0; i < sizeof(w) / sizeof(*w); i++) {
		if (!w[i].present)
			continue;
		if (attach(s, w[i].prog, kind, w[i].func, ROLE_EMPTIED))
			watched = false;
	}
	return watched;
}

/*
 * invalidate_bh_lrus and bh_lru_install: counters, best effort. The
 * emptying watch also tells a lone slot-0 hit from a refill
 * (lone_front_ambiguous()); without it, such a hit is unsynced.
 */
static void attach_optional(struct lru_session *s, enum hook_kind kind,
			    const struct lru_symbols *sym, bool loaded,
			    const char *load_why)
{
	bool fentry = kind == HOOK_FENTRY;
	struct lru_bpf *k = s->skel;
	char why[320] = "";
	int err;

	if (!sym->invalidate_all && !sym->invalidate_cpu)
		snprintf(why, sizeof(why),
			 "invalidate_bh_lrus is not in /proc/kallsyms");
	else if (!loaded)
		snprintf(why, sizeof(why), "%s", load_why);
	if (loaded && attach_emptying(s, kind, sym))
		watch_emptied(s);
	if (loaded && sym->invalidate_all) {
		err = attach(s, fentry ? k->progs.fentry_invalidate_all :
					 k->progs.kprobe_invalidate_all,
			     kind, "invalidate_bh_lrus", ROLE_OTHER);
		if (err)
			probe_status_reason(why, sizeof(why), hook_kind_names[kind],
					    "invalidate_bh_lrus", err);
	}
	if (!why[0])
		probe_status_from(&s->hooks.fig[LRU_FIG_INVALIDATIONS],
			     "%s invalidate_bh_lrus%s; an emptied LRU is also seen at the next lookup (resets)",
			     hook_kind_names[kind],
			     sym->invalidate_cpu ? ", invalidate_bh_lrus_cpu" : "");
	else
		probe_status_missing(&s->hooks.fig[LRU_FIG_INVALIDATIONS],
				"%s; an emptied LRU is still seen at the next lookup (resets)",
				why);

	if (!sym->install) {
		probe_status_missing(&s->hooks.fig[LRU_FIG_INSTALLS],
				"bh_lru_install is not a symbol on this kernel (inlined into the lookup); installs are counted at the lookup's exit");
		return;
	}
	err = loaded ? attach(s, fentry ? k->progs.fentry_install :
					  k->progs.kprobe_install,
			      kind, "bh_lru_install", ROLE_OTHER) : -ENOENT;
	if (!err)
		probe_status_from(&s->hooks.fig[LRU_FIG_INSTALLS], "%s bh_lru_install",
			     hook_kind_names[kind]);
	else if (!loaded)
		probe_status_missing(&s->hooks.fig[LRU_FIG_INSTALLS], "%s", load_why);
	else
		probe_status_reason(s->hooks.fig[LRU_FIG_INSTALLS].why,
				    sizeof(s->hooks.fig[LRU_FIG_INSTALLS].why),
				    hook_kind_names[kind], "bh_lru_install", err);
}

/*
 * Livepatch transitions, counted (livepatch_gen): whoever runs the lookup
 * may change and change back between two reads. Best effort: without it
 * the owner is still read from /sys/kernel/livepatch after every read
 * (lru_session_recheck_owner()).
 */
static void attach_livepatch_watch(struct lru_session *s,
				   enum hook_kind kind)
{
	struct bpf_program *p = kind == HOOK_FENTRY ?
				s->skel->progs.fentry_livepatch :
				s->skel->progs.kprobe_livepatch;

	if (bpf_program__fd(p) < 0 ||
	    attach(s, p, kind, "klp_start_transition", ROLE_OTHER))
		return;
	s->livepatch_watched = true;
	s->livepatch_gen = __atomic_load_n(&s->skel->bss->livepatch_gen,
					   __ATOMIC_SEQ_CST);
}

/*
 * The lookup's programs: an entry probe (which task, its context
 * switches) and an exit probe that classifies, for func and, with a
 * second wrapper, for func2. kprobes attach one program to both.
 */
struct lookup_progs {
	struct bpf_program *entry, *exit;	/* func */
	struct bpf_program *entry2, *exit2;	/* func2, or NULL */
};

/*
 * timed: the _timed programs, which also start and stop the sampled
 * timings; the entry's own start them where no fentry_timing does
 * (timing_autoload()).
 */
static void lookup_progs(struct lru_bpf *skel, bool fentry,
			 const struct lookup_target *t, bool timed,
			 bool entry_timed, struct lookup_progs *p)
{
	memset(p, 0, sizeof(*p));
	if (!fentry) {
		p->entry = entry_timed ? skel->progs.kprobe_lookup_timed :
					 skel->progs.kprobe_lookup;
		p->exit = timed ? skel->progs.kretprobe_lookup_timed :
				  skel->progs.kretprobe_lookup;
		return;
	}
	p->entry = entry_timed ? skel->progs.fentry_lookup_timed :
				 skel->progs.fentry_lookup;
	if (t->common)
		p->exit = timed ? skel->progs.fexit_lookup_common_timed :
				  skel->progs.fexit_lookup_common;
	else
		p->exit = timed ? skel->progs.fexit_lookup_timed :
				  skel->progs.fexit_lookup;
	if (t->func2) {
		p->entry2 = entry_timed ? skel->progs.fentry_lookup2_timed :
					  skel->progs.fentry_lookup2;
		p->exit2 = timed ? skel->progs.fexit_lookup2_timed :
				   skel->progs.fexit_lookup2;
	}
}

static void lookup_progs_autoload(const struct lookup_progs *p,
				  const struct lookup_target *t)
{
	struct bpf_program *f[] = { p->entry, p->exit };
	struct bpf_program *f2[] = { p->entry2, p->exit2 };

	for (int i = 0; i < 2; i++) {
		bpf_program__set_autoload(f[i], true);
		if (bpf_program__type(f[i]) == BPF_PROG_TYPE_TRACING)
			bpf_program__set_attach_target(f[i], 0, t->func);
		if (!f2[i])
			continue;
		bpf_program__set_autoload(f2[i], true);
		bpf_program__set_attach_target(f2[i], 0, t->func2);
	}
}

/*
 * solo: func's exit proves its lookups alone; its entry takes its slot,
 * for lru_session_recheck_preempt() to attach.
 */
static int lookup_progs_attach(struct lru_session *s, bool fentry,
			       const struct lookup_progs *p,
			       const struct lookup_target *t, bool solo)
{
	enum hook_kind in = fentry ? HOOK_FENTRY : HOOK_KPROBE;
	enum hook_kind out = fentry ? HOOK_FEXIT : HOOK_KRETPROBE;
	int err;

	if (solo)
		s->solo_entry = s->nr_att;
	err = attach_or_later(s, p->entry, in, t->func, ROLE_LOOKUP_ENTRY,
			      solo) ?:
	      attach(s, p->exit, out, t->func, ROLE_LOOKUP_EXIT);
	if (err || !t->func2)
		return err;
	return attach(s, p->entry2 ?: p->entry, in, t->func2,
		      ROLE_LOOKUP_ENTRY) ?:
	       attach(s, p->exit2 ?: p->exit, out, t->func2, ROLE_LOOKUP_EXIT);
}

/*
 * --timing: where the exit may prove its lookups alone, a program of its
 * own at the entry starts the sampled timings (no entry probe runs there,
 * or one attached later, which then does not time); elsewhere the
 * lookup's entry probe does.
 */
static void timing_autoload(struct lru_bpf *skel, const struct lookup_target *t)
{
	bpf_program__set_autoload(skel->progs.fentry_timing, true);
	bpf_program__set_attach_target(skel->progs.fentry_timing, 0, t->func);
}

static int timing_attach(struct lru_session *s, const struct lookup_target *t,
			 bool solo_ok, uint32_t every)
{
	struct bpf_program *prog = s->skel->progs.fentry_timing;

	if (!solo_ok || every < LRU_TIMING_DENSE) {
		s->skel->data->time_every = every;
		return solo_ok ? attach(s, prog, HOOK_FENTRY, t->func,
					ROLE_TIMING) : 0;
	}
	s->skel->data->time_every = every / LRU_TIMING_DENSE ?: 1;
	s->timing_cycle = lru_timing_cycle_start(prog, LRU_TIMING_WINDOW_MS,
						 LRU_TIMING_PERIOD_MS);
	return s->timing_cycle ? 0 : -errno;
}

/*
 * The deferred hook (design A of ../shared/designs/lru-entry-probe.md):
 * one fentry program per lookup instead of an entry and an exit, where
 * BHSCOPE_LRU_DEFERRED=1 asks for it, the preemption model switches no
 * task inside a lookup, and everything its proofs need is a symbol:
 * lru_cache_disable() and its count (the one reason a found bh is not
 * installed), and on 6.12+ (find_get_block_common) partition_xcpus_add()
 * (isolating a CPU at run time stops installs there too), and there,
 * where a lookup may sleep, the sched_switch tracepoint. Not with
 * --trace (records would leave one lookup late) or the wrappers hooked.
 */
static bool deferred_wanted(const struct lru_load_opts *o, bool fentry,
			    const struct lookup_target *t,
			    const struct lru_symbols *sym)
{
	const char *v = getenv("BHSCOPE_LRU_DEFERRED");

	return v && !strcmp(v, "1") && fentry && !o->trace && !t->func2 &&
	       sym->lru_cache_disable && sym->lru_disable_count &&
	       (!t->common || sym->partition_xcpus_add);
}

/*
 * The deferred entry: its twins for a lookup that may sleep (6.12+) and
 * for the ghost list (--whatif above the LRU's size: no short installs).
 */
static struct bpf_program *deferred_prog(struct lru_bpf *skel,
					 const struct lookup_target *t)
{
	if (!skel->rodata->short_installs)
		return t->common ? skel->progs.fentry_deferred_ghost_sleeps :
				   skel->progs.fentry_deferred_ghost;
	return t->common ? skel->progs.fentry_deferred_sleeps :
			   skel->progs.fentry_deferred;
}

static void deferred_autoload(struct lru_bpf *skel,
			      const struct lookup_target *t,
			      const struct lru_symbols *sym)
{
	struct bpf_program *entry = deferred_prog(skel, t);

	bpf_program__set_autoload(entry, true);
	bpf_program__set_attach_target(entry, 0, t->func);
	bpf_program__set_autoload(skel->progs.fentry_cache_disable, true);
	bpf_program__set_autoload(skel->progs.fexit_cache_disable, true);
	bpf_program__set_autoload(skel->progs.fentry_isolate, t->common);
	bpf_program__set_autoload(skel->progs.switch_settle, t->common);
	bpf_program__set_autoload(skel->progs.dead_settle, sym->cpu_dead);
	bpf_program__set_autoload(skel->progs.settle_pending, true);
	/* the nonatomic lookup may sleep in the page cache */
	skel->rodata->deferred_switch_check = t->common;
	skel->rodata->deferred_settles_emptying = true;
	skel->rodata->lru_disable_count_addr = sym->lru_disable_count;
}

/*
 * Attaches the deferred hook: its watches first (a lookup from then on
 * has its proof), then the program; the exit design's entry and exit
 * take their slots for lru_session_recheck_preempt(). Returns 0, or a
 * negative errno with nothing of it attached (the caller attaches the
 * exit design instead).
 */
static int deferred_attach(struct lru_session *s, const struct lookup_progs *p,
			   const struct lookup_target *t,
			   const struct lru_symbols *sym)
{
	struct lru_bpf *skel = s->skel;
	int first = s->nr_att, err;

	err = attach(s, skel->progs.fentry_cache_disable, HOOK_FENTRY,
		     "lru_cache_disable", ROLE_DISABLE) ?:
	      attach(s, skel->progs.fexit_cache_disable, HOOK_FEXIT,
		     "lru_cache_disable", ROLE_DISABLE) ?:
	      (t->common ? attach(s, skel->progs.fentry_isolate, HOOK_FENTRY,
				  "partition_xcpus_add", ROLE_DISABLE) ?:
			   attach(s, skel->progs.switch_settle, HOOK_TP_BTF,
				  "sched_switch", ROLE_OTHER) : 0) ?:
	      /* a CPU going offline settles its last lookup */
	      (sym->cpu_dead ? attach(s, skel->progs.dead_settle, HOOK_FENTRY,
				      "buffer_exit_cpu_dead", ROLE_OTHER) : 0);
	if (!err) {
		__atomic_store_n(&skel->bss->disable_watched, 1,
				 __ATOMIC_SEQ_CST);
		s->deferred_at = s->nr_att;
		/* its skipped runs are lost lookups, as an exit's */
		err = attach(s, deferred_prog(skel, t), HOOK_FENTRY, t->func,
			     ROLE_LOOKUP_EXIT);
	}
	if (!err) {
		s->fallback_at = s->nr_att;
		err = attach_or_later(s, p->entry, HOOK_FENTRY, t->func,
				      ROLE_LOOKUP_ENTRY, true) ?:
		      attach_or_later(s, p->exit, HOOK_FEXIT, t->func,
				      ROLE_LOOKUP_EXIT, true);
	}
	if (!err)
		return 0;
	while (s->nr_att > first) {
		bpf_link__destroy(s->att[--s->nr_att].link);
		s->att[s->nr_att].link = NULL;
	}
	s->deferred_at = -1;
	return err;
}

/*
 * The preemption model was switched, or allows a switch inside a lookup
 * now: the exit design replaces the deferred hook. Its entry attaches
 * first and the exits trust only entries (lookups entered before are
 * unsynced); the deferred program counts the lookups it sees until then
 * as lost, and leaves its pending ones unsynced.
 */
static void deferred_fall_back(struct lru_session *s, bool watched)
{
	char why[200], at[16];
	int err;

	__atomic_fetch_or(&s->skel->bss->solo_off,
			  LRU_SOLO_SWITCHED | LRU_SOLO_ENTRY, __ATOMIC_SEQ_CST);
	/* the deferred entry tests this bit, not solo_off */
	__atomic_fetch_or(&s->skel->data->lru_emptied_gen, LRU_GEN_STOPPED,
			  __ATOMIC_SEQ_CST);
	err = attach_slot(s, s->fallback_at) ?:
	      attach_slot(s, s->fallback_at + 1);
	__atomic_store_n(&s->skel->bss->deferred_off, 1, __ATOMIC_SEQ_CST);
	/* its pending lookups: unsynced, before the reads stop settling */
	lru_session_settle(s);
	bpf_link__destroy(s->att[s->deferred_at].link);
	s->att[s->deferred_at].link = NULL;
	s->deferred_at = -1;
	ticker_timestamp(at, sizeof(at));
	if (err) {
		probe_status_reason(why, sizeof(why), "fentry/fexit",
				    s->hooks.hook + strlen("fentry:"), err);
		errmsg("%s the preemption model was switched and the lookup's exit probe cannot attach: %s; every lookup is lost from now on",
		       at, why);
		return;
	}
	errmsg("%s the preemption model was switched%s: the lookup's entry and exit probes replace the deferred hook, and the lookups in between are counted lost or unsynced",
	       at, watched ? " unseen" : "");
	probe_status_from(&s->hooks.fig[LRU_FIG_LOOKUPS],
			  "fentry+fexit %s since %s (the preemption model was switched: the deferred hook's lookups before it lost or unsynced)",
			  s->hooks.hook + strlen("fentry:"), at);
}

/*
 * Before a read: the deferred hook's pending lookups settled, each on its
 * own CPU, so the read counts every lookup entered before it.
 */
void lru_session_settle(struct lru_session *s)
{
	if (s->deferred_at >= 0 && s->att[s->deferred_at].link)
		bpf_on_cpus_run_pinned(bpf_program__fd(s->skel->progs.settle_pending),
				       s->nr_cpus);
}

/* The PREEMPT_DYNAMIC model the kernel runs, read by BPF; -1: not a symbol. */
static int read_preempt_mode(struct lru_session *s)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);

	s->skel->data->preempt_mode_now = -1;
	if (bpf_prog_test_run_opts(bpf_program__fd(s->skel->progs.read_preempt_mode),
				   &opts))
		return -1;
	return s->skel->data->preempt_mode_now;
}

/*
 * Does the preemption model switch no task on a lookup's LRU path (none,
 * voluntary), watched for switches (the watch attaches first: a switch
 * from then on is seen by the exits)? Then the exit of a lookup that
 * cannot sleep proves it alone, and a switch inside any lookup proves a
 * miss (switch_means_miss).
 */
static bool preempt_switches_none(struct lru_session *s, bool watch,
				  char *why, size_t len)
{
	struct utsname u;
	bool watched = watch &&
		       !attach(s, s->skel->progs.watch_preempt, HOOK_FENTRY,
			       "sched_dynamic_update", ROLE_OTHER);

	return lru_kernel_preempt_solo_of(read_preempt_mode(s), watched,
					  uname(&u) ? NULL : u.version, why, len) &&
	       !(s->skel->bss->solo_off & LRU_SOLO_SWITCHED);
}

void lru_session_recheck_preempt(struct lru_session *s)
{
	struct utsname u;
	char why[200], at[16];
	bool watched;
	int err;

	bool deferred = s->deferred_at >= 0;

	if (!deferred && (s->solo_entry < 0 || s->att[s->solo_entry].link))
		return;
	watched = !(s->skel->bss->solo_off & LRU_SOLO_SWITCHED);
	if (watched && lru_kernel_preempt_solo_of(read_preempt_mode(s), true,
						  uname(&u) ? NULL : u.version, why,
						  sizeof(why)))
		return;
	if (deferred) {
		deferred_fall_back(s, watched);
		return;
	}
	/*
	 * Switched, or a model that switches tasks inside the lookup without
	 * the watch seeing it (then so are the exits, from now): the exits
	 * trust only the entry's word from now on, and lookups in flight
	 * have none, so they are unsynced.
	 */
	__atomic_fetch_or(&s->skel->bss->solo_off,
			  LRU_SOLO_SWITCHED | LRU_SOLO_ENTRY, __ATOMIC_SEQ_CST);
	err = attach_slot(s, s->solo_entry);
	ticker_timestamp(at, sizeof(at));
	if (err) {
		probe_status_reason(why, sizeof(why), "fentry", "__find_get_block",
				    err);
		errmsg("%s the preemption model was switched and the lookup's entry probe cannot attach: %s; every lookup is unsynced from now on",
		       at, why);
		s->solo_entry = -1;
		return;
	}
	errmsg("%s the preemption model was switched%s: the lookup's entry probe is attached now, and the lookups in between are counted unsynced",
	       at, watched ? " unseen" : "");
	probe_status_from(&s->hooks.fig[LRU_FIG_LOOKUPS],
			  "fentry+fexit %s, the entry since %s (the preemption model was switched: lookups before it unsynced)",
			  s->hooks.hook + strlen("fentry:"), at);
}

/*
 * What try_lookups() loads beside the lookup's programs; each failed load
 * drops the next thing, in this order.
 */
struct load_plan {
	bool watch_fentry;	/* counters and watchers as fentry, else
				 * kprobes (in kprobe mode, fentry where the
				 * kernel takes it: kprobes are skipped) */
	bool watch_preempt;	/* fentry on sched_dynamic_update */
	bool optional;		/* the counters and watchers at all */
	bool deferred;		/* the deferred hook and its watches */
};

static void load_plan_autoload(struct lru_bpf *skel, const struct load_plan *p,
			       const struct lru_symbols *sym)
{
	bool f = p->watch_fentry, o = p->optional;
	const struct {
		struct bpf_program *fentry, *kprobe;
		bool present;
	} progs[] = {
		{ skel->progs.fentry_invalidate_all, skel->progs.kprobe_invalidate_all,
		  sym->invalidate_all },
		{ skel->progs.fentry_invalidate_cpu, skel->progs.kprobe_invalidate_cpu,
		  sym->invalidate_cpu },
		{ skel->progs.fentry_install, skel->progs.kprobe_install,
		  sym->install },
		{ skel->progs.fentry_emptying_ipi, skel->progs.kprobe_emptying_ipi,
		  sym->invalidate_ipi },
		{ skel->progs.fentry_emptying_dead, skel->progs.kprobe_emptying_dead,
		  sym->cpu_dead },
		{ skel->progs.fentry_livepatch, skel->progs.kprobe_livepatch,
		  sym->klp_transition },
	};

	for (size_t i = 0; i < sizeof(progs) / sizeof(*progs); i++) {
		bpf_program__set_autoload(progs[i].fentry, o && f && progs[i].present);
		bpf_program__set_autoload(progs[i].kprobe, o && !f && progs[i].present);
	}
	bpf_program__set_autoload(skel->progs.watch_preempt,
				  p->watch_preempt && f);
}

/* The next plan after a failed load; false when there is none. */
static bool load_plan_degrade(struct load_plan *p, bool fentry)
{
	if (p->deferred) {
		p->deferred = false;
	} else if (p->watch_fentry && !fentry && p->optional) {
		p->watch_fentry = false;	/* this kernel refuses fentry */
		p->watch_preempt = false;
	} else if (p->watch_preempt) {
		p->watch_preempt = false;
	} else if (p->optional) {
		p->optional = false;
	} else {
		return false;
	}
	return true;
}

static int try_lookups(struct lru_session *s, const struct lru_load_opts *o,
		       bool fentry, const struct lookup_target *t,
		       const struct lru_symbols *sym, char *why, size_t len)
{
	const char *kind = fentry ? "fentry/fexit" : "kprobe/kretprobe";
	struct lookup_progs p;
	char optional_why[320] = "", solo_why[200] = "";
	struct load_plan plan = {
		.watch_fentry = true,
		.watch_preempt = sym->sched_dynamic_update,
		.optional = sym->invalidate_all || sym->invalidate_cpu ||
			    sym->install || sym->invalidate_ipi ||
			    sym->cpu_dead || sym->klp_transition,
			.deferred = deferred_wanted(o, fentry, t, sym),
	};
	/* __find_get_block never sleeps: its exit may prove it alone */
	bool solo_ok = fentry && !t->common, solo, none_switched, deferred;
	bool timed, entry_timed;
	int timing_err = 0;
	struct lru_bpf *skel;
	int err;

	if (!fentry && !lru_kernel_has_kprobes()) {
		snprintf(why, len,
			 "this kernel has no kprobes (no kprobe_events in tracefs: CONFIG_KPROBES or CONFIG_KPROBE_EVENTS is off)");
		return -EOPNOTSUPP;
	}
retry:
	skel = open_skel(o, s->hooks.lru_size, !fentry);
	if (!skel) {
		snprintf(why, len, "cannot open the LRU BPF object: %s",
			 strerror(errno));
		return -errno;
	}
	/* the deferred hook times nothing, nor do its fallback's programs */
	timed = o->time_every && !plan.deferred;
	entry_timed = timed && !solo_ok;
	lookup_progs(skel, fentry, t, timed, entry_timed, &p);
	lookup_progs_autoload(&p, t);
	bpf_program__set_autoload(skel->progs.prime_shadow, true);
	bpf_program__set_autoload(skel->progs.read_preempt_mode, true);
	skel->rodata->preempt_mode_addr = sym->preempt_dynamic_mode;
	load_plan_autoload(skel, &plan, sym);
	if (plan.deferred)
		deferred_autoload(skel, t, sym);
	if (timed && solo_ok)
		timing_autoload(skel, t);
	err = load_skel(s, skel, kind, t->func, why, len);
	if (err == -ENOENT && !sym->bh_lrus) {
		/* The verifier resolves the bh_lrus ksym through kallsyms. */
		snprintf(why, len,
			 "bh_lrus is not in /proc/kallsyms (CONFIG_KALLSYMS_ALL is off), so BPF cannot read the LRU");
		return err;
	}
	if (err && plan.optional && !optional_why[0])
		probe_status_reason(optional_why, sizeof(optional_why), kind,
				    "invalidate_bh_lrus/bh_lru_install", err);
	/* Perhaps only a counter or a watch failed: retry with less. */
	if (err && load_plan_degrade(&plan, fentry))
		goto retry;
	if (err)
		return err;
	lookup_progs(s->skel, fentry, t, timed, entry_timed, &p);
	none_switched = preempt_switches_none(s, plan.watch_preempt && plan.watch_fentry,
					      solo_why, sizeof(solo_why));
	s->skel->bss->switch_means_miss = none_switched;
	solo = solo_ok && none_switched;
	/* before the lookups: a transition from then on is counted */
	if (plan.optional)
		attach_livepatch_watch(s, plan.watch_fentry ? HOOK_FENTRY : HOOK_KPROBE);
	/* the deferred hook stops at any solo_off: none until it falls back */
	deferred = plan.deferred && none_switched &&
		   !deferred_attach(s, &p, t, sym);
	/* set before the entry attaches: an exit without an entry is unsynced */
	if (!solo && !deferred)
		__atomic_fetch_or(&s->skel->bss->solo_off, LRU_SOLO_ENTRY,
				  __ATOMIC_SEQ_CST);
	err = deferred ? 0 : lookup_progs_attach(s, fentry, &p, t, solo);
	/* the timings are extra: without them the tracer runs on */
	if (!err && !deferred && o->time_every)
		timing_err = timed ? timing_attach(s, t, solo_ok, o->time_every) :
				     -EOPNOTSUPP;
	if (err) {
		probe_status_reason(why, len, kind, t->func2 && s->nr_att >= 2 ?
				    t->func2 : t->func, err);
		drop_skel(s);
		return err;
	}
	/*
	 * Shows each CPU's LRU to the probe before its first lookup there.
	 * Best effort: where it fails, that CPU's first lookup is unsynced.
	 */
	lru_session_run_on_each_cpu(s, s->skel->progs.prime_shadow);
	snprintf(s->hooks.hook, sizeof(s->hooks.hook), "%s:%s%s%s",
		 fentry ? "fentry" : "kprobe", t->func, t->func2 ? "+" : "",
		 t->func2 ? t->func2 : "");
	lru_hooks_lookups(&s->hooks, o, fentry, s->hooks.hook +
			  strlen(fentry ? "fentry:" : "kprobe:"));
	if (s->timing_cycle)
		lru_hooks_time_windows(&s->hooks, s->skel->data->time_every,
				       LRU_TIMING_WINDOW_MS, LRU_TIMING_PERIOD_MS);
	if (timing_err && !timed) {
		probe_status_missing(&s->hooks.fig[LRU_FIG_TIMES],
				     "not with BHSCOPE_LRU_DEFERRED=1: the deferred hook was asked for, and its fallback's programs time nothing");
	} else if (timing_err) {
		char twhy[256];

		probe_status_reason(twhy, sizeof(twhy), "fentry", t->func,
				    timing_err);
		probe_status_missing(&s->hooks.fig[LRU_FIG_TIMES], "%s", twhy);
	}
	if (deferred)
		lru_hooks_lookup_deferred(&s->hooks, t->func, solo_why);
	else if (solo_ok)
		lru_hooks_lookup_proof(&s->hooks, t->func, t->func2, solo,
				       solo_why);
	attach_optional(s, plan.watch_fentry ? HOOK_FENTRY : HOOK_KPROBE, sym,
			plan.optional, optional_why);
	return 0;
}

/*
 * Loads and attaches the degraded mode's program: the BTF tracepoint if
 * btf, else the classic one.
 */
static int attach_touch_buffer(struct lru_session *s,
			       const struct lru_load_opts *o, bool btf,
			       char *why, size_t len)
{
	struct lru_bpf *skel = open_skel(o, s->hooks.lru_size, false);
	struct bpf_program *prog;
	int err;

	if (!skel) {
		snprintf(why, len, "cannot open the LRU BPF object: %s",
			 strerror(errno));
		return -errno;
	}
	prog = btf ? skel->progs.tp_btf_touch_buffer : skel->progs.tp_touch_buffer;
	bpf_program__set_autoload(prog, true);
	err = load_skel(s, skel, "tracepoint", "block:block_touch_buffer", why,
			len);
	if (err)
		return err;
	err = attach(s, prog, btf ? HOOK_TP_BTF : HOOK_TP,
		     "block:block_touch_buffer", ROLE_OTHER);
	if (err) {
		probe_status_reason(why, len, "tracepoint", "block:block_touch_buffer",
				    err);
		drop_skel(s);
	}
	return err;
}

static int try_tracepoint(struct lru_session *s, const struct lru_load_opts *o,
			  char *why, size_t len)
{
	int err;

	if (!env_tracepoint_exists("block", "block_touch_buffer")) {
		snprintf(why, len, "this kernel has no block:block_touch_buffer tracepoint");
		return -ENOENT;
	}
	/* a kernel without BTF tracepoints, or that refuses them: classic */
	err = attach_touch_buffer(s, o, true, why, len);
	if (err)
		err = attach_touch_buffer(s, o, false, why, len);
	if (err)
		return err;
	snprintf(s->hooks.hook, sizeof(s->hooks.hook), "tracepoint:block:block_touch_buffer");
	lru_hooks_tracepoint(&s->hooks, o);
	return 0;
}

static void print_failure(const struct lru_session *s)
{
	char line[LRU_NR_MODES * (sizeof(s->hooks.tried[0]) + 16)];

	lru_hooks_why_none(&s->hooks, line, sizeof(line));
	errmsg("cannot trace the buffer-head LRU: %s; run 'bhscope lru --probes' for details",
	       line);
}

static bool wanted(const struct lru_load_opts *o, enum lru_mode m)
{
	if (m == LRU_MODE_TRACEPOINT && o->lookups_only)
		return false;
	return o->mode == LRU_MODE_AUTO || o->mode == m;
}

int lru_session_open(struct lru_session *s, const struct lru_load_opts *o)
{
	struct lru_symbols sym = {};
	struct lookup_target t = {};
	char slots_why[256] = "", preempt_why[128] = "";
	bool kprobe_first;
	int err = -ENOENT;

	memset(s, 0, sizeof(*s));
	s->busy_at_open = cpu_busy_ns();
	s->solo_entry = -1;
	s->deferred_at = -1;
	s->quiet = o->quiet;
	s->nr_cpus = libbpf_num_possible_cpus();
	if (s->nr_cpus <= 0) {
		errmsg("cannot count the possible CPUs: %s",
		       strerror(-s->nr_cpus));
		return s->nr_cpus ?: -EINVAL;
	}
	lru_owner_read(&lru_owner_sysfs, &s->owner);
	if (s->owner.kind != LRU_OWNER_KERNEL &&
	    s->owner.kind != LRU_OWNER_BHTUNE) {
		/*
		 * The kernel's bh_lrus is not the LRU in use (a probe on the
		 * lookup wraps the patched one), nor its touch_buffer() calls
		 * the LRU's hits: every mode would count a silent 0 % hit ratio.
		 */
		char who[200];

		snprintf(s->hooks.tried[LRU_MODE_BHTUNE],
			 sizeof(s->hooks.tried[0]), "the lookup is %s%s",
			 lru_owner_describe(&s->owner, who, sizeof(who)),
			 s->owner.kind == LRU_OWNER_BHTUNE_SILENT ?
			 ": unload it, then load bhtune_events.ko before it (modprobe bhtune does)" :
			 s->owner.kind == LRU_OWNER_CHANGING ?
			 ": try again once it is over" : "");
		err = s->owner.kind == LRU_OWNER_CHANGING ? -EAGAIN : -EBUSY;
		goto fail;
	}
	if (wanted(o, LRU_MODE_BHTUNE)) {
		err = try_bhtune(s, o, s->hooks.tried[LRU_MODE_BHTUNE],
				 sizeof(s->hooks.tried[0]));
		if (!err) {
			s->hooks.mode = LRU_MODE_BHTUNE;
			return 0;
		}
		/* The module owns the LRU: the kernel's stays empty. */
		if (o->mode == LRU_MODE_BHTUNE || s->owner.kind == LRU_OWNER_BHTUNE)
			goto fail;
	}

	err = lru_kernel_symbols(&sym);
	if (!err) {
		lookup_target_pick(&sym, &t);
		if (!t.func)
			err = -ENOENT;
	}
	s->hooks.lru_size = lru_kernel_slots(slots_why, sizeof(slots_why));
	/*
	 * Under full preemption fentry/fexit programs run preemptible, and
	 * while one is preempted the kernel skips that CPU's lookups (its
	 * recursion guard): 39 % of them were lost in the 6.1 guest with
	 * preempt=full. Kprobes run with preemption off and lost none: so
	 * then auto tries them first.
	 */
	kprobe_first = o->mode == LRU_MODE_AUTO &&
		       lru_kernel_preempt_full(preempt_why, sizeof(preempt_why));
	for (int i = 0; i < 2; i++) {
		int m = (i == 0) != kprobe_first ? LRU_MODE_FENTRY : LRU_MODE_KPROBE;
		char *why = s->hooks.tried[m];

		if (!wanted(o, m))
			continue;
		why[0] = 0;
		if (err)
			snprintf(why, sizeof(s->hooks.tried[m]),
				 "neither find_get_block_common nor __find_get_block is in /proc/kallsyms");
		else if (s->hooks.lru_size <= 0)
			snprintf(why, sizeof(s->hooks.tried[m]), "%s", slots_why);

		else if (!try_lookups(s, o, m == LRU_MODE_FENTRY, &t, &sym, why,
				      sizeof(s->hooks.tried[m]))) {
			s->hooks.mode = m;
			if (kprobe_first && m == LRU_MODE_KPROBE)
				snprintf(s->hooks.tried[LRU_MODE_FENTRY],
					 sizeof(s->hooks.tried[0]),
					 "not used: %s; fentry/fexit programs run preemptible there, and the kernel skips a CPU's lookups while one is preempted inside (--hook fentry to use it anyway: lost lookups are reported)",
					 preempt_why);
			return 0;
		}
	}
	if (wanted(o, LRU_MODE_TRACEPOINT)) {
		char *why = s->hooks.tried[LRU_MODE_TRACEPOINT];

		if (o->trace)
			snprintf(why, sizeof(s->hooks.tried[0]),
				 "counts hits only, and --trace needs every lookup");
		else if (!try_tracepoint(s, o, why, sizeof(s->hooks.tried[0]))) {
			s->hooks.mode = LRU_MODE_TRACEPOINT;
			return 0;
		}
	}
	err = -ENOENT;
fail:
	if (!o->quiet)
		print_failure(s);
	return err;
}

static bool owner_holds(struct lru_session *s)
{
	struct lru_owner now;
	char was[200], is[200], at[16];
	bool moved;

	if (s->hooks.unavailable[0])
		return false;
	lru_owner_read(&lru_owner_sysfs, &now);
	moved = s->livepatch_watched &&
		__atomic_load_n(&s->skel->bss->livepatch_gen, __ATOMIC_SEQ_CST) !=
		s->livepatch_gen;
	if (lru_owner_same(&now, &s->owner) && !moved)
		return true;
	ticker_timestamp(at, sizeof(at));
	if (lru_owner_same(&now, &s->owner))
		/* patched and back, or another patch: its lookups unseen */
		snprintf(s->hooks.unavailable, sizeof(s->hooks.unavailable),
			 "since %s a livepatch transition ran (the lookup is %s again, but may not have been in between): the %s hooks may have missed the LRU in use",
			 at, lru_owner_describe(&now, is, sizeof(is)),
			 lru_mode_names[s->hooks.mode]);
	else
		snprintf(s->hooks.unavailable, sizeof(s->hooks.unavailable),
			 "since %s the lookup is %s, not %s: the %s hooks do not see the LRU in use",
			 at, lru_owner_describe(&now, is, sizeof(is)),
			 lru_owner_describe(&s->owner, was, sizeof(was)),
			 lru_mode_names[s->hooks.mode]);
	if (!s->quiet)
		errmsg("%s; no LRU figure holds from this interval on",
		       s->hooks.unavailable);
	return false;
}

bool lru_session_recheck_owner(struct lru_session *s,
			       struct lru_snapshot *snap)
{
	bool holds = owner_holds(s);

	if (snap)
		memcpy(snap->hooks.unavailable, s->hooks.unavailable,
		       sizeof(snap->hooks.unavailable));
	return holds;
}

void lru_session_close(struct lru_session *s)
{
	lru_timing_cycle_stop(s->timing_cycle);
	s->timing_cycle = NULL;
	if (s->skel)
		drop_skel(s);
}
