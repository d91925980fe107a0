#!/usr/bin/env python3
"""make bench's last step: one table of ratios from the JSON results in a
directory (jbd2.json, lru-<series>.json, serve-soak.json), printed and
written to summary.json there.

ratio: median traced ops/s over median untraced ops/s; spread: (max - min)
/ median of the mode's ops/s; ns/event: BPF run time per event (per lookup
for the LRU tracers); vs bpftrace: bhscope's ns/event over bpftrace's.
"""
import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import abbench  # noqa: E402


def rows_of(part, where, workload, summary):
    bt = summary.get("bpftrace", {}).get("ns_per_event")
    for mode, r in summary.items():
        if mode == "untraced":
            continue
        ns = r["ns_per_event"]
        med = r["ops_per_s_median"]
        yield {"part": part, "where": where, "workload": workload, "mode": mode,
               "ratio": r["ratio_to_untraced"],
               "spread": (r["ops_per_s_max"] - r["ops_per_s_min"]) / med if med else None,
               "ns_per_event": ns,
               "vs_bpftrace": ns / bt if ns and bt and mode != "bpftrace" else None,
               "tracer_cpu_pct": r["tracer_cpu_pct"], "repeats": r["repeats"]}


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "build/bench"
    rows, targets, soak = [], [], None
    path = os.path.join(d, "jbd2.json")
    if os.path.exists(path):
        with open(path) as f:
            j = json.load(f)
        rows += rows_of("jbd2", f"{j['kernel']} host", "dirsync sync writers", j["summary"])
        vs = next((r["vs_bpftrace"] for r in rows if r["part"] == "jbd2"
                   and r["mode"] == "bhscope jbd2"), None)
        targets.append({"target": "bhscope jbd2 ns/event <= 1/3 x bpftrace's",
                        "value": vs, "met": vs is not None and vs <= 1 / 3,
                        "kernel": f"{j['kernel']} host"})
    for path in sorted(glob.glob(os.path.join(d, "lru-*.json"))):
        with open(path) as f:
            j = json.load(f)
        for key, w in j["workloads"].items():
            rows += rows_of("lru", f"{j['kernel']} VM", w["title"], w["summary"])
        targets += [dict(t, kernel=j["kernel"]) for t in j["targets"]]
    path = os.path.join(d, "serve-soak.json")
    if os.path.exists(path):
        with open(path) as f:
            soak = json.load(f)
    traces, sim = [], None
    for path in sorted(glob.glob(os.path.join(d, "trace-*.json"))):
        with open(path) as f:
            traces.append(json.load(f))
    path = os.path.join(d, "simulate.json")
    if os.path.exists(path):
        with open(path) as f:
            sim = json.load(f)

    print("make bench: traced / untraced ops/s (medians of interleaved repeats), "
          "BPF ns per event, bhscope / bpftrace")
    print(f"{'part':<5} {'kernel':<22} {'workload':<24} {'mode':<24} {'ratio':>6}"
          f" {'spread':>7} {'ns/event':>9} {'vs bpftrace':>11} {'CPU %':>6} {'reps':>4}")
    for r in rows:
        print(f"{r['part']:<5} {r['where']:<22} {r['workload']:<24} {r['mode']:<24}"
              f" {fmt(r['ratio'], '.3f'):>6} {fmt(r['spread'], '.1%'):>7}"
              f" {fmt(r['ns_per_event'], '.0f'):>9} {fmt(r['vs_bpftrace'], '.2f'):>11}"
              f" {fmt(r['tracer_cpu_pct'], '.2f'):>6} {r['repeats']:>4}")
    if not rows:
        print("(no results)")
    if targets:
        print("issue 16 targets (jbd2 on this host; lru create-heavy, VM):")
        for t in targets:
            v = t["value"]
            v = "n/a" if v is None else f"{v:.2f}" if "x bpftrace" in t["target"] else f"{v:.2%}"
            print(f"  {abbench.target_status(t['met'])} {t['kernel']}: {t['target']}: {v}")
    if soak:
        print(f"serve soak: {soak['duration_s']} s, {soak['scrapes']} scrapes, "
              f"{soak['failed']} failed, RSS {soak['rss_kib']['after_1min']} -> "
              f"{soak['rss_kib']['end']} KiB, scrape p99 {soak['scrape_ms']['p99']} ms")
    for t in traces:
        for w in t["workloads"].values():
            print(f"trace {t.get('kernel')} VM: {w['title']}: {w['bytes_per_lookup']:.2f} "
                  f"bytes a lookup, {w['events_lost']} events lost")
        p = t.get("pump")
        if p:
            print(f"trace writer {t.get('kernel')} VM: {p['achieved_per_s']:.0f} lookups/s, "
                  f"{p['lost']} lost, {p['writer_ns_per_record']:.0f} ns a record")
        targets += [dict(x, kernel=t.get("kernel")) for x in t["targets"]]
    if sim:
        c = sim.get("crafted")
        if c:
            print(f"simulate host: crafted, sizes split: {c['notinst']['lookups_per_cpu_s'] / 1e6:.1f} M "
                  f"lookups/s, {c['ratio']:.2f} x the same keys in one order "
                  f"({c['installed']['lookups_per_cpu_s'] / 1e6:.1f} M/s)")
        for w in sim["workloads"].values():
            m = w["format2"]
            print(f"simulate host: {w['title']}: {m['lookups_per_cpu_s'] / 1e6:.1f} M "
                  f"lookups/s, {m['ratio_to_target']:.2f} x the target "
                  f"({sim['target_lookups_per_s'] / 1e6:.0f} M/s), format 1 "
                  f"{w['format1']['lookups_per_cpu_s'] / 1e6:.1f} M/s")
        targets += [dict(x, kernel="host") for x in sim["targets"]]
    if traces or sim:
        for t in targets[len(targets) - sum(len(x["targets"]) for x in traces)
                         - (len(sim["targets"]) if sim else 0):]:
            print(f"  {abbench.target_status(t['met'])} {t['kernel']}: {t['target']}")
    out = os.path.join(d, "summary.json")
    with open(out, "w") as f:
        json.dump({"schema": "bhscope.bench-summary/1", "rows": rows,
                   "targets": targets, "serve_soak": soak, "traces": traces,
                   "simulate": sim}, f, indent=1)
    print(f"results: {out}")


if __name__ == "__main__":
    main()
