#!/usr/bin/env python3
"""make bench, part "trace": what `bhscope lru --trace` costs in bytes and
whether its writer keeps up, from a VM bench guest (bench/vm-trace/
record.sh: the LRU bench's create-heavy and stat-heavy workloads traced,
then the writer alone at 1,000,000 lookups/s, lrutrace-pump).

--collect DIR reads what the guest exported, writes the results JSON,
keeps the traces in the cache for the simulate part
($BHSCOPE_CACHE/traces/SERIES/, reused by later runs that boot no guest)
and prints the table. --report FILE prints a finished run's table.
"""
import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
WORKLOADS = {"create": "create-heavy", "stat": "stat-heavy, cold caches"}
# Issue 16's targets.
MAX_BYTES_PER_LOOKUP = 8.0
PUMP_RATE = 1000000


def cache_dir(series):
    return os.path.join(os.environ.get("BHSCOPE_CACHE", "/var/cache/bhscope"),
                        "traces", series)


def load(path):
    with open(path) as f:
        return json.load(f)


def commit():
    try:
        return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def collect(src, series):
    res = {"schema": "bhscope.bench/1", "part": "trace", "series": series,
           "commit": commit(), "workloads": {}, "pump": None}
    for key, title in WORKLOADS.items():
        stat = os.path.join(src, f"{key}.stat.json")
        if not os.path.exists(stat):
            continue
        st = load(stat)
        live = load(os.path.join(src, f"{key}.json"))
        counters = live.get("counters", {})
        res["kernel"] = res.get("kernel") or st.get("kernel")
        res["workloads"][key] = {
            "title": title, "lookups": st["lookups"], "records": st["records"],
            "bytes": st["bytes"], "bytes_per_lookup": st["bytes_per_lookup"],
            "frames": st["frames"],
            "events": counters.get("trace_events"),
            "events_lost": counters.get("trace_lost"),
        }
    pump = os.path.join(src, "pump.json")
    if os.path.exists(pump):
        res["pump"] = load(pump)
    res["targets"] = targets(res)
    return res


def targets(res):
    out = []
    for key, w in res["workloads"].items():
        out.append({"target": f"{w['title']}: at most {MAX_BYTES_PER_LOOKUP:g} bytes a lookup",
                    "value": w["bytes_per_lookup"],
                    "met": w["bytes_per_lookup"] <= MAX_BYTES_PER_LOOKUP})
        out.append({"target": f"{w['title']}: no event lost",
                    "value": w["events_lost"], "met": w["events_lost"] == 0})
    p = res["pump"]
    if p:
        ok = (p["lost"] == 0 and not p["error"] and
              p["achieved_per_s"] >= 0.99 * PUMP_RATE)
        out.append({"target": f"the writer drains {PUMP_RATE} lookups/s with none lost",
                    "value": p["achieved_per_s"], "met": ok})
    return out


def keep_traces(src, series, res):
    """The traces go to the cache: the simulate part replays them."""
    dst = cache_dir(series)
    try:
        os.makedirs(dst, exist_ok=True)
        for key in res["workloads"]:
            shutil.copyfile(os.path.join(src, f"{key}.trace"),
                            os.path.join(dst, f"{key}.trace.tmp"))
            os.replace(os.path.join(dst, f"{key}.trace.tmp"),
                       os.path.join(dst, f"{key}.trace"))
        with open(os.path.join(dst, "meta.json"), "w") as f:
            json.dump({"kernel": res.get("kernel"), "commit": res["commit"],
                       "recorded": datetime.datetime.now(datetime.timezone.utc)
                       .strftime("%Y-%m-%dT%H:%M:%SZ"),
                       "workloads": res["workloads"]}, f, indent=1)
        return dst
    except OSError as e:
        print(f"bench: cannot keep the traces in {dst}: {e}", file=sys.stderr)
        return None


def print_report(res):
    print(f"trace on {res.get('kernel')} (VM, 1 vCPU): bytes a lookup, as "
          f"`bhscope lru --trace` wrote them (format 2; format 1 took 40)")
    print(f"{'workload':<26} {'lookups':>9} {'bytes':>10} {'B/lookup':>9} {'lost':>6}")
    for w in res["workloads"].values():
        print(f"{w['title']:<26} {w['lookups']:>9} {w['bytes']:>10}"
              f" {w['bytes_per_lookup']:>9.2f} {w['events_lost']!s:>6}")
    p = res["pump"]
    if p:
        print(f"writer alone (lrutrace-pump, {p['buffer_mb']} MiB ring buffer): "
              f"{p['achieved_per_s']:.0f} lookups/s asked {p['rate']:.0f} for "
              f"{p['seconds']:.1f} s: {p['produced']} written, {p['lost']} lost, "
              f"writer thread {p['writer_ns_per_record']:.0f} ns a record")
    print("targets:")
    for t in res["targets"]:
        print(f"  {'met   ' if t['met'] else 'MISSED'} {t['target']}: {t['value']}")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--collect", metavar="DIR", help="the guest's exported files")
    ap.add_argument("--series", default="6.1")
    ap.add_argument("--out", help="results JSON")
    ap.add_argument("--report", metavar="FILE", help="print FILE's table and exit")
    args = ap.parse_args()
    if args.report:
        print_report(load(args.report))
        return 0
    if not args.collect:
        ap.error("--collect or --report")
    res = collect(args.collect, args.series)
    if not res["workloads"]:
        print(f"bench: no traces in {args.collect}", file=sys.stderr)
        return 1
    kept = keep_traces(args.collect, args.series, res)
    res["cache"] = kept
    print_report(res)
    out = args.out or os.path.join(ROOT, "build/bench", f"trace-{args.series}.json")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        json.dump(res, f, indent=1)
    print(f"results: {out}" + (f"; traces kept in {kept}" if kept else ""))
    return 0 if all(t["met"] for t in res["targets"]) else 1


if __name__ == "__main__":
    sys.exit(main())
