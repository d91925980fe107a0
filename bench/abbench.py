"""Interleaved A/B benchmarking of tracers against an untraced baseline.

One untimed run of the workload first, then each repeat runs every mode
once, in an order rotated per repeat (A B C, B C A, ...), so drift on the
machine hits every mode alike. For a traced mode the tracer is started,
its BPF programs are found as the program ids that appeared since it
started, the workload runs, and the kernel's BPF statistics (run_time_ns /
run_cnt, with kernel.bpf_stats_enabled in every other repeat) and the
tracer's own CPU time are read before it is stopped.
"""
import json
import os
import select
import signal
import statistics
import subprocess
import tempfile
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")


def target_status(met):
    """A target's column: met, MISSED, or info (a figure shown beside)."""
    return "info  " if met is None else "met   " if met else "MISSED"


def prog_stats():
    """{id: (name, run_time_ns, run_cnt)} of every loaded BPF program."""
    out = subprocess.run(["bpftool", "-j", "prog", "show"], check=True,
                         capture_output=True, text=True).stdout
    return {p["id"]: (p.get("name", ""), p.get("run_time_ns", 0),
                      p.get("run_cnt", 0)) for p in json.loads(out or "[]")}


def proc_cpu_seconds(pid):
    """CPU seconds of a process's threads: their scheduler run time (ns,
    exact), else user + system time (sampled at the tick, which misses a
    tracer that wakes once a second for less than a tick)."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
        total = 0
        for t in tasks:
            with open(f"/proc/{pid}/task/{t}/schedstat") as f:
                total += int(f.read().split()[0])
        return total / 1e9
    except (OSError, ValueError, IndexError):
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK


class Tracer:
    """A tracer command that loads at least min_progs BPF programs.

    event_prog: the name (a prefix) of the program that runs once per
    event, e.g. the lookup's entry probe; the cost per event is then the
    run time of all the tracer's programs over its run count. Without it,
    every program run is one event.
    """

    def __init__(self, name, argv, min_progs, event_prog=None, start_timeout=30,
                 ready=None, settle=0.0, figures=None):
        self.name, self.argv, self.min_progs = name, argv, min_progs
        # figures: what to keep of the tracer's own reports, the JSON
        # lines it wrote on stdout (one an interval), a function of their
        # list giving a dict of counts, summed over the repeats
        self.figures, self.out = figures, None
        self.event_prog, self.start_timeout = event_prog, start_timeout
        # a line the tracer writes to stderr once everything is attached:
        # loading goes on after the first programs appear, and a load beside
        # the workload (the verifier, under TCG) would be charged to it
        self.ready = ready
        # seconds to wait once ready, before the workload: for the steady
        # state of a tracer that does something at its start only
        self.settle = settle

    def _wait_ready(self, deadline):
        while self.ready and time.time() < deadline:
            if self.proc.poll() is not None:
                return
            if select.select([self.proc.stderr], [], [], 0.1)[0]:
                if self.ready in self.proc.stderr.readline():
                    return
        if self.ready:
            self.stop()
            raise RuntimeError(f"{self.name}: no '{self.ready}' on stderr")

    def start(self, timeout=None):
        timeout = timeout or self.start_timeout
        before = set(prog_stats())
        self.out = tempfile.TemporaryFile("w+") if self.figures else None
        self.proc = subprocess.Popen(self.argv, stdout=self.out or subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited: {self.proc.stderr.read()}")
            self.progs = set(prog_stats()) - before
            if len(self.progs) >= self.min_progs:
                self._wait_ready(deadline)
                time.sleep(0.5 + self.settle)  # attach follows load
                self.progs = set(prog_stats()) - before
                names = {prog_stats()[i][0] for i in self.progs}
                if self.event_prog and not any(n.startswith(self.event_prog) for n in names):
                    self.stop()
                    # a tracer that fell back to another hook measures something else
                    raise RuntimeError(f"{self.name}: no {self.event_prog} program "
                                       f"among its own ({', '.join(sorted(names))})")
                self.cpu0, self.t0 = proc_cpu_seconds(self.proc.pid), time.time()
                self.stats0 = {i: s for i, s in prog_stats().items() if i in self.progs}
                return
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"{self.name}: its BPF programs did not appear in {timeout} s")

    def sample(self):
        """(run_time_ns, events, cpu_fraction, {program: [ns, runs]}) since start."""
        now = {i: s for i, s in prog_stats().items() if i in self.progs}
        progs = {}
        for i, (name, ns, cnt) in now.items():
            _, ns0, cnt0 = self.stats0.get(i, (name, ns, cnt))
            p = progs.setdefault(name, [0, 0])
            p[0] += ns - ns0
            p[1] += cnt - cnt0
        ns = sum(p[0] for p in progs.values())
        if self.event_prog:
            cnt = sum(p[1] for n, p in progs.items() if n.startswith(self.event_prog))
        else:
            cnt = sum(p[1] for p in progs.values())
        cpu = (proc_cpu_seconds(self.proc.pid) - self.cpu0) / max(time.time() - self.t0, 1e-9)
        return ns, cnt, cpu, progs

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def final_figures(self):
        """figures() of the lines the stopped tracer wrote, or None."""
        if not self.out:
            return None
        self.out.seek(0)
        reports = [json.loads(line) for line in self.out.read().splitlines()
                   if line.strip()]
        self.out.close()
        self.out = None
        return self.figures(reports) if reports else None


def bpf_stats(enable):
    with open("/proc/sys/kernel/bpf_stats_enabled", "w") as f:
        f.write("1" if enable else "0")


def run_interleaved(modes, workload, reps, log=print):
    """modes: [(name, Tracer or None)]; workload(): ops/s. Returns samples.

    Kernel BPF statistics cost every program run two clock reads, which a
    tracer in production does not pay: they are on in repeats 2, 4, ...
    only (and in a single one), which give ns/event; repeats 1, 3, ... give
    ops/s.
    """
    samples = {name: [] for name, _ in modes}
    # Untimed: the first run on a fresh filesystem is the slowest (0.8 %
    # for bhbench's create phase under TCG), and rotation puts the
    # baseline first, so every ratio of repeat 1 would be too low.
    workload()
    log("  warm-up run done")
    try:
        for rep in range(reps):
            stats = rep % 2 == 1 or reps == 1
            bpf_stats(stats)
            order = modes[rep % len(modes):] + modes[:rep % len(modes)]
            for name, tracer in order:
                if tracer:
                    tracer.start()
                try:
                    ops = workload()
                    ns, cnt, cpu, progs = tracer.sample() if tracer else (0, 0, 0.0, {})
                finally:
                    if tracer:
                        tracer.stop()
                figures = tracer.final_figures() if tracer else None
                samples[name].append({"ops_per_s": ops, "bpf_stats": stats,
                                      "run_time_ns": ns, "run_cnt": cnt,
                                      "cpu": cpu, "programs": progs,
                                      **({"figures": figures} if figures else {})})
                cost = (f", {cnt} events, {ns / cnt:.0f} ns/event" if cnt else
                        "")
                log(f"  rep {rep + 1}/{reps} {name:>16}: {ops:10.1f} ops/s"
                    + (f"{cost}, tracer CPU {cpu * 100:.2f}%" if tracer else ""))
    finally:
        bpf_stats(False)
    return samples


def summarize(samples, baseline):
    """Median, spread and ratios per mode.

    ratio_to_untraced is the median of each repeat's own ratio (a mode's
    ops/s over the baseline's in the same repeat, which ran minutes apart at
    most): slow drift of the machine cancels out, unlike in a ratio of the
    overall medians.
    """
    # ops/s from the repeats without BPF statistics, if there are any
    base = samples[baseline]
    reps = [i for i, s in enumerate(base) if not s.get("bpf_stats")] or \
        list(range(len(base)))
    base_runs = [base[i]["ops_per_s"] for i in reps]
    rows = {}
    for name, runs in samples.items():
        ops = [runs[i]["ops_per_s"] for i in reps]
        timed = [s for s in runs if s.get("bpf_stats", True)]
        ns = sum(s["run_time_ns"] for s in timed)
        cnt = sum(s["run_cnt"] for s in timed)
        progs = {}
        for s in timed:
            for prog, (pns, pcnt) in s.get("programs", {}).items():
                p = progs.setdefault(prog, [0, 0])
                p[0] += pns
                p[1] += pcnt
        cpus = [s["cpu"] * 100 for s in runs]
        figures = {}
        for s in runs:
            for k, v in s.get("figures", {}).items():
                figures[k] = figures.get(k, 0) + v
        rows[name] = {
            "ops_per_s_median": statistics.median(ops),
            "ops_per_s_min": min(ops), "ops_per_s_max": max(ops),
            "ratio_to_untraced": statistics.median(
                o / b for o, b in zip(ops, base_runs) if b) if any(base_runs) else None,
            "ns_per_event": ns / cnt if cnt else None,
            "events_per_run": cnt / len(timed) if timed else 0,
            "tracer_cpu_pct": statistics.median(cpus),
            "tracer_cpu_pct_max": max(cpus),
            "programs": {prog: {"ns_per_run": pns / pcnt if pcnt else None,
                                "runs_per_run": pcnt / len(timed)}
                         for prog, (pns, pcnt) in sorted(progs.items())},
            "repeats": len(runs), "repeats_ops": len(ops),
            "repeats_bpf_stats": len(timed),
            **({"figures": figures} if figures else {}),
        }
    return rows


def print_table(title, rows, baseline, compare=None):
    """compare: (ours, theirs) to print the ns/event ratio between them."""
    print(f"\n{title}")
    print(f"{'mode':>24} {'ops/s med':>11} {'min..max':>21} {'vs untraced':>11}"
          f" {'ns/event':>9} {'events/run':>11} {'CPU %':>6}")
    for name, r in rows.items():
        ratio = "" if name == baseline else f"{r['ratio_to_untraced']:.3f}"
        ns = f"{r['ns_per_event']:.0f}" if r["ns_per_event"] else "-"
        cpu = "" if name == baseline else f"{r['tracer_cpu_pct']:.2f}"
        print(f"{name:>24} {r['ops_per_s_median']:11.1f}"
              f" {r['ops_per_s_min']:10.1f}..{r['ops_per_s_max']:<10.1f}"
              f" {ratio:>11} {ns:>9} {r['events_per_run']:11.0f} {cpu:>6}")
    if compare and all(c in rows for c in compare):
        ours, theirs = (rows[c]["ns_per_event"] for c in compare)
        if ours and theirs:
            print(f"{compare[0]} / {compare[1]} ns per event: {ours / theirs:.2f}")
