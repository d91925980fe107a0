#!/bin/bash
# A hot set of 24 directory blocks read cyclically on one CPU does not fit
# the 16-slot LRU: every lookup misses, is installed and evicts (the LRU's
# worst case: each block was pushed out 8 installs before its turn). Every
# lookup has stack distance 23, so the what-if curve is 0 up to size 23
# and jumps to (almost) 1 at size 24: the ghost list must see that, and the
# offline simulation must agree.
set -euo pipefail
# shellcheck source=tests/vm/lib/guest.sh
. "$REPO/tests/vm/lib/guest.sh"
# shellcheck source=tests/vm/lib/lru.sh
. "$REPO/tests/vm/lib/lru.sh"

K=24
PASSES=40
lru_need_tools
lru_ext4 "$PWD/mnt"
lru_dir "$PWD/mnt/d" $K
lru_list "$PWD/mnt/d" 2

lru_start live.json -C -d $LRU_DEV --whatif 64 --trace lru.trace 3600 1
lru_list "$PWD/mnt/d" $PASSES
lru_stop live.json
cat live.json.err
cpu=$(lru_cpu live.json)
want=$((K * PASSES))

lru_check "every pass is $K lookups" ".lookups == $want" "$cpu"
lru_check "no lookup hits" ".hits == 0 and .unsynced == 0" "$cpu"
lru_check "every miss is found in the page cache and installed" \
	".installed == $want and .absent == 0 and .not_installed == 0" "$cpu"
lru_check "every install evicts once the LRU is full" \
	".evictions >= $want - 16" "$cpu"
lru_check "what-if is 0 below size $K" \
	"[.whatif.hit_ratio[0:$((K - 1))][] == 0] | all" "$cpu"
lru_check "what-if from size $K on: all but the first pass would hit" \
	"[.whatif.hit_ratio[$((K - 1)):][] >= $((PASSES - 1)) / $PASSES - 1e-6] | all" "$cpu"
lru_check "what-if above 16 is exact: no model re-read, no not-installed hit" \
	'.whatif_above == "exact"' "$(tail -n 1 live.json)"

"$LRU_BHSCOPE" simulate lru.trace --sizes 1-64 -C -d $LRU_DEV -j >sim.json
"$LRU_BHSCOPE" simulate lru.trace --sizes 14-26 -d $LRU_DEV
lru_replay_check sim.json "$cpu"
lru_check "the replay's installs and evictions are the live ones" \
	".installed == $want and .evictions == $(jq .evictions <<<"$cpu")" \
	"$(jq -c ".cpus[] | select(.cpu == $LRU_CPU)" sim.json)"
