#!/usr/bin/env python3
"""make bench, part "simulate": how fast `bhscope simulate` replays, on one
core of this machine, sizes 1-256, from the traces the "trace" part
recorded in a VM bench guest (the LRU bench's create-heavy and stat-heavy
workloads; kept in $BHSCOPE_CACHE/traces/SERIES/, so this part boots no
guest once they exist).

Each trace is repeated (the copies follow one another in time) to at
least --lookups lookups, as format 2 and as format 1 (40-byte records,
the old path), and replayed --reps times with --time: lookups per second
of the replay's own CPU time (one core; the machine's other load shows in
wall time, printed beside it), medians. The ratio is the rate over the
target (issue 16: 30 million lookups/s), both from this run. Memory: the
replay's peak RSS for the trace once and repeated, which must not grow
with the trace.

Crafted (issue 33 item 4; needs no recorded trace): `lrutrace craft`'s
trace of misses not installed at LRU size 1, where the sizes stop sharing
one order at every other lookup (once 56 k lookups/s, 640 x below the
real traces), against the same keys with the misses installed, the one
order throughout: the slow case must replay at least half as fast.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
WORKLOADS = {"create": "create-heavy", "stat": "stat-heavy, cold caches"}
TARGET = 30e6			# lookups/s, sizes 1-256, one core
RSS_GROWTH_MAX = 1.25		# peak RSS, trace repeated over trace once
SPLIT_RATIO_MIN = 0.5		# crafted: sizes split / one order, lookups/s


def cache_dir(series):
    return os.path.join(os.environ.get("BHSCOPE_CACHE", "/var/cache/bhscope"),
                        "traces", series)


def run(argv, **kw):
    return subprocess.run(argv, check=True, capture_output=True, text=True, **kw)


def trace_stat(path):
    return json.loads(run([os.path.join(ROOT, "build/lrutrace"), "stat", path]).stdout)


def replay(path):
    """One `bhscope simulate --time`: (lookups, wall s, CPU s, peak RSS KiB).
    The peak RSS comes from GNU time: a child's ru_maxrss would include
    the Python process it was forked from."""
    p = subprocess.run(["/usr/bin/time", "-f", "maxrss %M",
                        os.path.join(ROOT, "build/bhscope"), "simulate", path,
                        "--sizes", "1-256", "--time", "-j"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    err = p.stderr
    m = re.search(r"\((\d+) lookups, sizes 1-256\) in ([0-9.]+) s, ([0-9.]+) s of CPU", err)
    rss = re.search(r"^maxrss (\d+)$", err, re.M)
    if p.returncode or not m or not rss:
        raise RuntimeError(f"bhscope simulate {path} failed: {err.strip()}")
    return int(m.group(1)), float(m.group(2)), float(m.group(3)), int(rss.group(1))


def measure(path, reps):
    runs = [replay(path) for _ in range(reps)]
    lookups = runs[0][0]
    cpu = statistics.median(r[2] for r in runs)
    wall = statistics.median(r[1] for r in runs)
    return {"lookups": lookups, "reps": reps,
            "cpu_s": [r[2] for r in runs], "wall_s": [r[1] for r in runs],
            "lookups_per_cpu_s": lookups / cpu, "lookups_per_wall_s": lookups / wall,
            "best_lookups_per_cpu_s": lookups / min(r[2] for r in runs),
            "peak_rss_kib": max(r[3] for r in runs),
            "ratio_to_target": lookups / cpu / TARGET}


def bench(src, work, lookups_min, reps):
    res = {"schema": "bhscope.bench/1", "part": "simulate", "target_lookups_per_s": TARGET,
           "traces": src, "loadavg_start": os.getloadavg(), "workloads": {}}
    os.makedirs(work, exist_ok=True)
    for key, title in WORKLOADS.items():
        one = os.path.join(src, f"{key}.trace")
        if not os.path.exists(one):
            continue
        st = trace_stat(one)
        times = max(1, -(-lookups_min // max(st["lookups"], 1)))
        long2 = os.path.join(work, f"{key}-x{times}.trace")
        long1 = os.path.join(work, f"{key}-x{times}.v1.trace")
        run([os.path.join(ROOT, "build/lrutrace"), "repeat", one, long2, str(times), "2"])
        run([os.path.join(ROOT, "build/lrutrace"), "repeat", one, long1, str(times), "1"])
        w = {"title": title, "trace": st, "times": times,
             "format2": measure(long2, reps), "format1": measure(long1, reps),
             "once": measure(one, 1)}
        w["rss_growth"] = w["format2"]["peak_rss_kib"] / w["once"]["peak_rss_kib"]
        res["workloads"][key] = w
        for f in (long1, long2):
            os.unlink(f)
    res["loadavg_end"] = os.getloadavg()
    res["targets"] = targets(res)
    return res


def crafted(work, lookups, reps):
    """The split case against the one-order case, same keys, same length."""
    os.makedirs(work, exist_ok=True)
    res = {}
    for kind in ("notinst", "installed"):
        path = os.path.join(work, f"crafted-{kind}.trace")
        run([os.path.join(ROOT, "build/lrutrace"), "craft", kind, path, str(lookups)])
        res[kind] = measure(path, reps)
        os.unlink(path)
    res["ratio"] = (res["notinst"]["lookups_per_cpu_s"] /
                    res["installed"]["lookups_per_cpu_s"])
    return res


def targets(res):
    out = []
    c = res.get("crafted")
    if c:
        out.append({"target": "crafted, misses not installed at LRU size 1 (sizes split): "
                    f"at least {SPLIT_RATIO_MIN} x the lookups/s of the same keys installed",
                    "value": c["ratio"], "met": c["ratio"] >= SPLIT_RATIO_MIN})
    for w in res["workloads"].values():
        r = w["format2"]["lookups_per_cpu_s"]
        out.append({"target": f"{w['title']}: at least {TARGET / 1e6:.0f} M lookups/s "
                    "(sizes 1-256, one core, format 2)",
                    "value": r, "met": r >= TARGET})
        out.append({"target": f"{w['title']}: memory does not grow with the trace "
                    f"(peak RSS x{w['times']} trace / x1 <= {RSS_GROWTH_MAX})",
                    "value": w["rss_growth"], "met": w["rss_growth"] <= RSS_GROWTH_MAX})
    return out


def print_report(res):
    print(f"simulate on this machine (one core), sizes 1-256, target "
          f"{res['target_lookups_per_s'] / 1e6:.0f} M lookups/s; load average "
          f"{res['loadavg_start'][0]:.1f} -> {res['loadavg_end'][0]:.1f}")
    print(f"{'workload':<24} {'format':<7} {'lookups':>10} {'M/s CPU':>8}"
          f" {'best':>6} {'M/s wall':>8} {'ratio':>6} {'RSS KiB':>8}")
    c = res.get("crafted")
    if c:
        for kind, title in (("notinst", "crafted, sizes split"),
                            ("installed", "crafted, one order")):
            m = c[kind]
            print(f"{title:<24} {'2':<7} {m['lookups']:>10}"
                  f" {m['lookups_per_cpu_s'] / 1e6:>8.1f}"
                  f" {m['best_lookups_per_cpu_s'] / 1e6:>6.1f}"
                  f" {m['lookups_per_wall_s'] / 1e6:>8.1f}"
                  f" {'':>6} {m['peak_rss_kib']:>8}")
    for w in res["workloads"].values():
        for fmt in ("format2", "format1"):
            m = w[fmt]
            print(f"{w['title']:<24} {fmt[-1]:<7} {m['lookups']:>10}"
                  f" {m['lookups_per_cpu_s'] / 1e6:>8.1f}"
                  f" {m['best_lookups_per_cpu_s'] / 1e6:>6.1f}"
                  f" {m['lookups_per_wall_s'] / 1e6:>8.1f}"
                  f" {m['ratio_to_target']:>6.2f} {m['peak_rss_kib']:>8}")
        print(f"{'':<24} {'once':<7} {w['once']['lookups']:>10}"
              f" {'':>8} {'':>6} {'':>8} {'':>6} {w['once']['peak_rss_kib']:>8}")
    print("targets:")
    for t in res["targets"]:
        v = t["value"]
        v = f"{v / 1e6:.1f} M/s" if v > 1000 else f"{v:.2f}"
        print(f"  {'met   ' if t['met'] else 'MISSED'} {t['target']}: {v}")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--series", default="6.1")
    ap.add_argument("--traces", help="directory of create.trace, stat.trace "
                    "(default: the cache the trace part fills)")
    ap.add_argument("--lookups", type=int, default=20000000,
                    help="repeat each trace to at least this many lookups")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--smoke", action="store_true", help="short: 2 M lookups, 1 rep")
    ap.add_argument("--out", default=os.path.join(ROOT, "build/bench/simulate.json"))
    ap.add_argument("--report", metavar="FILE", help="print FILE's table and exit")
    args = ap.parse_args()
    if args.report:
        with open(args.report) as f:
            print_report(json.load(f))
        return 0
    if args.smoke:
        args.lookups, args.reps = 2000000, 1
    src = args.traces or cache_dir(args.series)
    work = os.path.join(ROOT, "build/bench/simulate")
    if any(os.path.exists(os.path.join(src, f"{k}.trace")) for k in WORKLOADS):
        res = bench(src, work, args.lookups, args.reps)
    else:
        print(f"bench: no recorded traces in {src}: run the trace part once "
              "(BENCH_PARTS=trace, needs QEMU); the crafted traces only", file=sys.stderr)
        res = {"schema": "bhscope.bench/1", "part": "simulate", "target_lookups_per_s": TARGET,
               "traces": None, "loadavg_start": os.getloadavg(), "workloads": {}}
    res["crafted"] = crafted(work, args.lookups // 10, args.reps)
    res["loadavg_end"] = os.getloadavg()
    res["targets"] = targets(res)
    print_report(res)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(res, f, indent=1)
    print(f"results: {args.out}")
    return 0 if all(t["met"] for t in res["targets"]) else 1


if __name__ == "__main__":
    sys.exit(main())
