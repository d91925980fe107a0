#!/usr/bin/env bash
# make bench, smoke version: one short repeat of the host benchmark must
# print the ratio table and write its JSON results with every mode measured.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/common.sh
require_root
command -v bpftrace > /dev/null || skip_all "bpftrace is not installed"

out=$(mktemp)
json=$(mktemp)
on_exit "rm -f '$out' '$json'"
python3 bench/bench_jbd2.py --smoke --out "$json" > "$out" 2>&1 || { cat "$out"; fail run "bench_jbd2.py failed"; }
cat "$out"
check prints_ratio_table grep -qE '^ +bhscope jbd2 +[0-9.]+ +[0-9.]+\.\.[0-9.]+ +[0-9.]+ ' "$out"
check prints_ns_ratio grep -qE '^bhscope jbd2 / bpftrace ns per event: [0-9.]+$' "$out"
check json_has_every_mode python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
ok = set(s) == {"untraced", "bhscope jbd2", "bpftrace"}
ok = ok and all(s[m]["ns_per_event"] and s[m]["events_per_run"] > 0 for m in ("bhscope jbd2", "bpftrace"))
ok = ok and s["untraced"]["ops_per_s_median"] > 0
sys.exit(0 if ok else 1)' "$json"
check bpf_stats_restored test "$(cat /proc/sys/kernel/bpf_stats_enabled)" = 0
check nothing_left_mounted bash -c '! grep -q bhscope-bench /proc/mounts'
finish
