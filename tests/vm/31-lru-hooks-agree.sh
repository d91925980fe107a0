#!/bin/bash
# Three bhscope lru at once on the same workload: fentry, kprobe and the
# block:block_touch_buffer tracepoint. The two lookup hooks must report the
# same figures, and their hits must be the tracepoint's (which counts the
# kernel's own hit branch, independently of our scan of bh_lrus).
#
# Each pass lists A (8 blocks), A again, then B (12 blocks): A's second
# listing hits in slot 7; A's first and B's listings come 19 distinct
# blocks after their last use and miss. Per pass: 8 hits, 20 installed
# misses (all evicting), and the curve is 0 below 8, 8/28 from 8 to 19,
# 1 from 20 on.
# vm-also: cloud
set -euo pipefail
# shellcheck source=tests/lib/guest.sh
. "$REPO/tests/lib/guest.sh"
# shellcheck source=tests/lib/guest_lru.sh
. "$REPO/tests/lib/guest_lru.sh"

PASSES=40
lru_need_tools
lru_ext4 "$PWD/mnt"
lru_dir "$PWD/mnt/a" 8
lru_dir "$PWD/mnt/b" 12
workload() {
	taskset -c "$LRU_CPU" bash -c 'for ((i = 0; i < $1; i++)); do
		: "$2"/*; : "$2"/*; : "$3"/*; done' _ "$1" "$PWD/mnt/a" "$PWD/mnt/b"
}
workload 2

pids=()
for hook in fentry kprobe tracepoint; do
	lru_start "$hook.json" -C -d $LRU_DEV --whatif 32 --hook $hook 3600 1
	pids+=("$LRU_PID")
done
workload $PASSES
for i in 0 1 2; do
	LRU_PID=${pids[$i]}
	lru_stop "$(echo fentry kprobe tracepoint | cut -d' ' -f$((i + 1))).json"
done
fe=$(lru_cpu fentry.json)
kp=$(lru_cpu kprobe.json)
tp=$(lru_cpu tracepoint.json)
want=$((28 * PASSES))
echo "fentry's counters: $(tail -n 1 fentry.json | jq -c '.counters + {lost: .lost_lookups}')"

lru_check "a pass is 28 lookups" ".lookups == $want" "$fe"
# The first pass may find A's blocks gone (the LRU emptied meanwhile).
lru_check "8 hits in slot 7 per pass" \
	".hits >= 8 * ($PASSES - 1) and .hits <= 8 * $PASSES and .slots[7] == .hits" "$fe"
lru_check "the other lookups are installed misses that evict" \
	".installed == .lookups - .hits and .evictions >= .installed - 16 and .unsynced == 0" "$fe"
lru_check "what-if: 0 below 8, the hit ratio from 8 to 19, 1 (but the first pass) from 20" \
	"([.whatif.hit_ratio[0:7][] == 0] | all) and
	 ([.whatif.hit_ratio[7:19][] == .hit_ratio] | all) and
	 ([.whatif.hit_ratio[19:][] >= ($PASSES - 1) / $PASSES - 1e-6] | all)" "$fe"
both=$(jq -c -n --argjson a "$fe" --argjson b "$kp" '{a: $a, b: $b}')
lru_check "kprobe and fentry report the same figures" \
	'[.a, .b] | map(del(.lookups_per_s, .hits_per_s)) | .[0] == .[1]' "$both"
both=$(jq -c -n --argjson a "$fe" --argjson b "$tp" '{a: $a, b: $b}')
lru_check "their hits are block_touch_buffer's" '.a.hits == .b.hits' "$both"
lru_check "the tracepoint mode reports lookups as unknown, not zero" \
	'.lookups == null and .hit_ratio == null and .whatif == null' "$tp"
