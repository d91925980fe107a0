#!/usr/bin/env python3
"""Compares bhscope jbd2 JSON lines with /proc/fs/jbd2/<dev>/info.

Usage: jbd2_proc_agreement.py BHSCOPE_JSONL INFO_FILE LABEL
Prints PASS/FAIL lines; the kernel's own file is the oracle.
"""
import json
import re
import sys

jsonl, info_path, label = sys.argv[1:4]
reports = [json.loads(line) for line in open(jsonl) if line.strip()]
info = open(info_path).read()
failed = 0


def check(name, ok, detail):
    global failed
    print(f"{'PASS' if ok else 'FAIL'}: jbd2_proc_agreement/{label}/{name}"
          + ("" if ok else f": {detail}"))
    failed += not ok


def kernel(pattern):
    m = re.search(pattern, info)
    if not m:
        sys.exit(f"FAIL: jbd2_proc_agreement/{label}: no /{pattern}/ in {info_path}")
    return int(m.group(1))


devs = [d for r in reports for d in r["devices"]]
hz = reports[-1]["hz"]
total = {k: sum(d[k] for d in devs)
         for k in ("transactions", "handles", "blocks", "blocks_logged",
                   "sync_handles", "commits")}
phases = {p: sum(d["phase_jiffies"][p] for d in devs)
          for p in ("wait", "running", "locked", "flushing", "logging")}
txn = total["transactions"]
print(f"# {label}: bhscope {total}, hz {hz}")
print("# kernel: " + " | ".join(info.strip().splitlines()))

k_txn = kernel(r"(\d+) transactions \(")
check("transactions_equal", txn == k_txn and txn > 0,
      f"bhscope {txn}, kernel {k_txn}")
check("commits_equal_transactions", total["commits"] == txn,
      f"commits {total['commits']}, transactions {txn}")
for field, pattern in (("handles", r"(\d+) handles per transaction"),
                       ("blocks", r"(\d+) blocks per transaction"),
                       ("blocks_logged", r"(\d+) logged blocks per transaction")):
    ours, theirs = total[field] // max(txn, 1), kernel(pattern)
    check(f"{field}_per_transaction", ours == theirs,
          f"bhscope {total[field]}/{txn} = {ours}, kernel {theirs}")

# The kernel divides the jiffies sums first, then converts to ms.
for phase, words in (("wait", "waiting for transaction"),
                     ("running", "running transaction"),
                     ("locked", "transaction was being locked"),
                     ("flushing", "flushing data"),
                     ("logging", "logging transaction")):
    ours = (phases[phase] // max(txn, 1)) * 1000 // hz
    theirs = kernel(r"(\d+)ms " + words)
    check(f"phase_{phase}_ms", ours == theirs,
          f"bhscope {ours} ms, kernel {theirs} ms")

k_avg = kernel(r"(\d+)us average transaction commit time")
ours = [d["commit_ewma_us"] for d in reports[-1]["devices"]]
ours = ours[0] if ours else 0.0
check("average_commit_time_within_5pct",
      k_avg > 0 and abs(ours - k_avg) <= 0.05 * k_avg + 1,
      f"bhscope {ours:.1f} us, kernel {k_avg} us")
sys.exit(1 if failed else 0)
