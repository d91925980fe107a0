#!/usr/bin/env bash
# bhscope simulate on crafted traces (issue 33 item 4; lrutrace craft):
# memory follows the CPUs a trace has records of, never the count its
# header claims, and stays within the bound bhscope-simulate(8) states
# (16 KB a CPU at sizes up to 256: 8192 CPUs, 134 MB) even when every one
# of 8192 CPUs has records and -C -j prints them all (a 32 KB trace once
# took 1.1 GB); the per-CPU output is whole. The speed of the case where
# the sizes split (misses not installed at LRU size 1) is make bench's.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/common.sh
LRUTRACE=$PWD/build/lrutrace
for b in "$LRUTRACE" "$BHSCOPE"; do
	[[ -x $b ]] || skip_all "$b is not built (make)"
done
[[ -x /usr/bin/time ]] || skip_all "GNU time is not installed (/usr/bin/time)"
dir=$(mktemp -d /tmp/bhscope-crafted.XXXXXX)
on_exit "rm -rf '$dir'"

# peak_kib OUT ARGS...: bhscope simulate ARGS > OUT; its peak RSS, KiB.
peak_kib() {
	local out=$1
	shift
	/usr/bin/time -f 'maxrss %M' -o "$dir/time" "$BHSCOPE" simulate "$@" > "$out"
	sed -n 's/^maxrss //p' "$dir/time"
}

"$LRUTRACE" craft cpus "$dir/claims.trace" 20000
kib=$(peak_kib "$dir/claims.json" "$dir/claims.trace" --sizes 1-256 -C -j)
echo "header claiming 8192 CPUs, records of 2: peak RSS $kib KiB"
check claimed_cpus_take_no_memory test "$kib" -lt 16384
check claimed_cpus_report_the_two python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
sys.exit(0 if j["nr_cpus"] == 8192 and [c["cpu"] for c in j["cpus"]] == [0, 8191] else 1)' "$dir/claims.json"

"$LRUTRACE" craft allcpus "$dir/all.trace" 16384
echo "every one of 8192 CPUs: $(stat -c %s "$dir/all.trace") bytes"
kib=$(peak_kib "$dir/all.json" "$dir/all.trace" --sizes 1-256 -C -j)
echo "-C -j: peak RSS $kib KiB"
check all_cpus_json_within_the_bound test "$kib" -lt 163840
check all_cpus_json_whole python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
c = j["cpus"]
sys.exit(0 if len(c) == 8192 and c[-1]["cpu"] == 8191 and c[-1]["lookups"] == 2 and
         len(c[-1]["whatif"]["hit_ratio"]) == 256 else 1)' "$dir/all.json"
kib=$(peak_kib "$dir/all.txt" "$dir/all.trace" --sizes 1-256 -C)
echo "-C: peak RSS $kib KiB"
check all_cpus_text_within_the_bound test "$kib" -lt 163840
columns=$(grep -m1 '^  SIZE' "$dir/all.txt" | wc -w)
check all_cpus_text_has_every_column test "$columns" -eq $((3 + 8192))

# The split case replays, every lookup classified as the trace says.
"$LRUTRACE" craft notinst "$dir/split.trace" 200000
"$BHSCOPE" simulate "$dir/split.trace" --sizes 1-256 -j > "$dir/split.json"
check split_case_replays python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
t = j["total"]
sys.exit(0 if j["splits"] > 10000 and t["lookups"] == 200000 and j["disagreements"] == 0 else 1)' "$dir/split.json"
finish
