#!/usr/bin/env python3
"""make seeds: the two seed threads' tables, from the guest's rows.

seed000.json (bench/seeds/vm/000-lru-mdtest.sh): per cell the median
ops/s of each phase at 8 and 16 LRU slots (bhtune.ko), and bhscope's
prediction from one run on the kernel's own LRU: the hit ratio at 8 and 16
and the lookup time a lookup takes at each. Printed: the measured % change
8 -> 16 of each phase and of the run's time, beside the predicted change
of the run's time (the lookup time saved over the run's seconds at 8).

seed002.json (bench/seeds/vm/002-jbd2-sync-writers.sh): per device and
thread count, files/s with adaptive batching and with the fixed one-jiffy
sleep, and the jbd2 figures that explain them.

The seeds' own figures are the few their threads give (issue 32 quotes
them); a cell they do not give shows "-".
"""
import json
import os
import sys

# Seed 002's speedups of the fixed sleep against adaptive batching, on its
# RAM disk, by threads (1: "equal"; 2: 463.8 vs 3462.3 files/s).
SEED002_RAM = {1: 1.00, 2: 463.8 / 3462.3, 16: 0.35}
# Seed 000's ext4 mdtest cells, 8 -> 16: the range of its % changes.
SEED000_RANGE = (-13.6, 9.0)


def pct(new, old):
    if new is None or old in (None, 0):
        return None
    return 100.0 * (new - old) / old


def fmt(v, spec="{:+.1f}%"):
    return "-" if v is None else spec.format(v)


def predicted_run_pct(row):
    """The run's time change 8 -> 16 the prediction gives, in %."""
    p = row["predicted"]
    secs = row["at8"]["seconds"]
    if None in (p.get("ns8"), p.get("ns16"), p.get("lookups")) or not secs:
        return None
    return 100.0 * (p["ns16"] - p["ns8"]) * p["lookups"] / (secs * 1e9)


def seed000(rows):
    print("seed 000: BH_LRU_SIZE 8 -> 16 slots (bhtune.ko), bhbench meta --shared "
          "--drop-caches on ext4 on a RAM disk; % change of ops/s (run time: of "
          "seconds) from 8 to 16")
    print("  predicted: from one run on the kernel's own LRU "
          f"({rows[0]['kernel_lru_size']} slots), bhscope lru --whatif 16 --timing 8")
    head = ("xattr", "tasks", "dir_size", "create", "stat", "remove", "run time",
            "hit 8", "hit 16", "ns 8", "ns 16", "pred run")
    print("%6s %6s %9s %8s %8s %8s %9s | %7s %7s %6s %6s %9s" % head)
    measured = []
    for r in rows:
        a, b, p = r["at8"], r["at16"], r["predicted"]
        ch = [pct(b[k], a[k]) for k in ("create", "stat", "remove")]
        measured += [c for c in ch if c is not None]
        run = pct(b["seconds"], a["seconds"])
        print("%6s %6d %9d %8s %8s %8s %9s | %7s %7s %6s %6s %9s" % (
            r["xattr"] or "-", r["tasks"], r["dir_size"], *map(fmt, ch), fmt(run),
            fmt(100 * p["hit8"] if p["hit8"] is not None else None, "{:.1f}%"),
            fmt(100 * p["hit16"] if p["hit16"] is not None else None, "{:.1f}%"),
            fmt(p["ns8"], "{:.0f}"), fmt(p["ns16"], "{:.0f}"),
            fmt(predicted_run_pct(r))))
    if measured:
        print("  here: the phases moved from %+.1f%% to %+.1f%%; the seed's ext4 "
              "mdtest cells from %+.1f%% to %+.1f%% (its Lustre lookups up to "
              "+33.9%%: no Lustre here)" % (min(measured), max(measured), *SEED000_RANGE))
    print()


def sleep_ms(j):
    """The batching sleep a sync handle's stop took on average, ms."""
    s = j.get("batch_sleep")
    if not isinstance(s, dict) or not s.get("sync_stops"):
        return None
    return s["ns"] / s["sync_stops"] / 1e6


def seed002(rows):
    tick = rows[0]["tick_us"]
    print("seed 002: sync writers (bhbench sync: 4 KiB files, fsync each, "
          f"dirsync ext4), files/s; adaptive batching (min 0, max 15000 us) against "
          f"the fixed sleep of one jiffy (min = max = {tick} us)")
    print("  h/txn: handles a transaction; commit: its mean commit time; sleep: the "
          "batching sleep a sync handle's stop took on average")
    head = ("device", "threads", "adaptive", "h/txn", "commit", "sleep", "fixed",
            "h/txn", "commit", "sleep", "fixed/adapt", "seed")
    print("%6s %7s | %9s %6s %8s %8s | %9s %6s %8s %8s | %11s %6s" % head)
    by = {(r["device"], r["batching"], r["threads"]): r for r in rows}
    for dev in ("ram", "nullb"):
        for t in sorted({r["threads"] for r in rows if r["device"] == dev}):
            a, f = by.get((dev, "adaptive", t)), by.get((dev, "fixed", t))
            if not a or not f:
                continue
            ratio = f["files_per_s"] / a["files_per_s"] if a["files_per_s"] else None
            seed = SEED002_RAM.get(t) if dev == "ram" else None
            print("%6s %7d | %9.1f %6.2f %6.0fus %8s | %9.1f %6.2f %6.0fus %8s | %11s %6s" % (
                dev, t, a["files_per_s"], a["handles_per_transaction"] or 0,
                a["commit_avg_us"] or 0, fmt(sleep_ms(a), "{:.2f}ms"), f["files_per_s"],
                f["handles_per_transaction"] or 0, f["commit_avg_us"] or 0,
                fmt(sleep_ms(f), "{:.2f}ms"), fmt(ratio, "{:.2f}x"),
                fmt(seed, "{:.2f}x")))
    delay = next((r["nullb_delay_us"] for r in rows if r["nullb_delay_us"]), None)
    if delay:
        print(f"  nullb: null_blk, memory-backed, each request completing after {delay} us")
    print()


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "build/seeds"
    rc = 0
    for name, show in (("seed000.json", seed000), ("seed002.json", seed002)):
        path = os.path.join(out, name)
        try:
            with open(path) as f:
                rows = json.load(f)
        except (OSError, ValueError) as e:
            print(f"seeds: no {name}: {e}", file=sys.stderr)
            rc = 1
            continue
        if not rows:
            print(f"seeds: {path} has no rows", file=sys.stderr)
            rc = 1
            continue
        show(rows)
    return rc


if __name__ == "__main__":
    sys.exit(main())
