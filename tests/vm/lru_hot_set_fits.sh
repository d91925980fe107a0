#!/bin/bash
# A hot set of 8 directory blocks read over and over on one CPU fits the
# 16-slot LRU: every lookup but those of the first pass (the LRU may have
# been emptied meanwhile) is a hit in slot 7, its stack distance; the
# what-if curve is 0 up to size 7 and the hit ratio from size 8 on; the
# offline simulation of the --trace stream gives the same curve.
set -euo pipefail
# shellcheck source=tests/vm/lib/guest.sh
. "$REPO/tests/vm/lib/guest.sh"
# shellcheck source=tests/vm/lib/lru.sh
. "$REPO/tests/vm/lib/lru.sh"

K=8
PASSES=200
lru_need_tools
lru_ext4 "$PWD/mnt"
lru_dir "$PWD/mnt/d" $K
lru_list "$PWD/mnt/d" 2

lru_start live.json -C -d $LRU_DEV --whatif 64 --trace lru.trace 3600 1
lru_list "$PWD/mnt/d" $PASSES
lru_stop live.json
cat live.json.err
tail -n 1 live.json | jq -c '.counters, .total'
cpu=$(lru_cpu live.json)
want=$((K * PASSES))

min_hits=$((K * (PASSES - 1)))	# the first pass may find the LRU emptied

lru_check "every pass is $K lookups" ".lookups == $want" "$cpu"
lru_check "every lookup after the first pass hits" \
	".hits >= $min_hits and .installed == .lookups - .hits and .unsynced == 0" "$cpu"
lru_check "every hit is in slot $((K - 1))" ".slots[$((K - 1))] == .hits" "$cpu"
lru_check "what-if is 0 below size $K" \
	"[.whatif.hit_ratio[0:$((K - 1))][] == 0] | all" "$cpu"
lru_check "what-if is the measured ratio or better from size $K to 64" \
	"[.whatif.hit_ratio[$((K - 1)):][] >= $min_hits / $want - 1e-6] | all" "$cpu"

"$LRU_BHSCOPE" simulate lru.trace --sizes 1-64 -C -d $LRU_DEV -j >sim.json
"$LRU_BHSCOPE" simulate lru.trace --sizes 1-64 -d $LRU_DEV
lru_replay_check sim.json "$cpu"
