#!/usr/bin/env bash
# make seeds' tables (bench/seeds/seeds_table.py) on rows whose answers are
# known: seed 000's % changes 8 -> 16 per phase and of the run's time, and
# the predicted change of the run's time from the lookup time a lookup
# takes at 8 and 16; seed 002's fixed/adaptive ratio, the batching sleep a
# sync handle's stop took, and the seed's own ratio beside it. A missing
# file is one line and exit 1.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/common.sh
command -v python3 > /dev/null || skip_all "python3 is not installed"
dir=$(mktemp -d /tmp/bhscope-seeds.XXXXXX)
on_exit "rm -rf '$dir'"

# 1000 -> 1100 create/s (+10 %), 10 s -> 9 s (-10 %); 1e6 lookups at
# 500 ns (size 8) and 400 ns (16): 0.1 s less of 10 s, -1.0 %
cat > "$dir/seed000.json" <<'JSON'
[{"xattr": 2000, "tasks": 8, "dir_size": 10000, "kernel_lru_size": 16,
  "at8": {"create": 1000, "stat": 4000, "remove": 2000, "seconds": 10},
  "at16": {"create": 1100, "stat": 3960, "remove": 2000, "seconds": 9},
  "predicted": {"lookups": 1000000, "hit8": 0.9, "hit16": 0.975,
                "ns8": 500, "ns16": 400, "timed": 100, "above": "exact"}}]
JSON
# 2 threads on the RAM disk: 130 fixed against 1000 adaptive files/s
# (0.13x, the seed's 0.13x); 1000 sync stops slept 4 s in all: 4.00 ms
cat > "$dir/seed002.json" <<'JSON'
[{"device": "ram", "batching": "adaptive", "threads": 2, "tick_us": 4000,
  "nullb_delay_us": null, "files_per_s": 1000, "handles_per_transaction": 1.5,
  "commit_avg_us": 70, "batch_sleep": {"sync_stops": 1000, "ns": 100000000}},
 {"device": "ram", "batching": "fixed", "threads": 2, "tick_us": 4000,
  "nullb_delay_us": null, "files_per_s": 130, "handles_per_transaction": 3,
  "commit_avg_us": 160, "batch_sleep": {"sync_stops": 1000, "ns": 4000000000}}]
JSON
out=$(python3 bench/seeds/seeds_table.py "$dir")
echo "$out"
row000=$(grep -E '^ +2000 +8 +10000 ' <<< "$out" || true)
row002=$(grep -E '^ +ram +2 ' <<< "$out" || true)
words() { tr -s ' |' '\n' <<< "$1" | grep .; }
# the row's fields: xattr tasks dir create stat remove run hit8 hit16 ns8 ns16 pred
check seed000_changes_per_phase test "$(words "$row000" | sed -n 4,7p | tr '\n' ' ')" = "+10.0% -1.0% +0.0% -10.0% "
check seed000_predicted_hit_ratios test "$(words "$row000" | sed -n 8,9p | tr '\n' ' ')" = "90.0% 97.5% "
check seed000_predicted_run_time test "$(words "$row000" | sed -n 12p)" = "-1.0%"
check seed000_range_line grep -q 'here: the phases moved from -1.0% to +10.0%' <<< "$out"
# device threads adaptive h/txn commit sleep fixed h/txn commit sleep ratio seed
check seed002_sleeps test "$(words "$row002" | sed -n '6p;10p' | tr '\n' ' ')" = "0.10ms 4.00ms "
check seed002_ratio_beside_the_seeds test "$(words "$row002" | sed -n 11,12p | tr '\n' ' ')" = "0.13x 0.13x "
rm "$dir/seed002.json"
rc=0
err=$(python3 bench/seeds/seeds_table.py "$dir" 2>&1 > /dev/null) || rc=$?
check missing_file_is_one_line_and_exit_1 test "$rc" -eq 1 -a "$(wc -l <<< "$err")" -eq 1
finish
