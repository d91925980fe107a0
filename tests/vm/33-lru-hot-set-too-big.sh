#!/bin/bash
# A hot set of 24 directory blocks read cyclically on one CPU does not fit
# the 16-slot LRU: every lookup misses, is installed and evicts (the LRU's
# worst case: each block was pushed out 8 installs before its turn). Every
# lookup has stack distance 23, so the what-if curve is 0 up to size 23
# and jumps to (almost) 1 at size 24: the ghost list must see that, and the
# offline simulation must agree.
#
# Then again as an ordinary task beside a CPU hog on its CPU. Where a task
# can be switched inside a lookup (6.12's find_get_block_common calls
# might_sleep()), a few are: each such lookup is unsynced, and the model
# re-reads the LRU and forgets its ghost list (the work it did not see
# evicted keys it cannot place), so no size below 24 shows a hit (the
# ghost list kept, 9 of 4800 unsynced put 63 at size 23) and the sizes
# above 16 are marked a lower bound. Where none can be (6.1's
# __find_get_block never sleeps; none or voluntary preemption), none is
# unsynced.
set -euo pipefail
# shellcheck source=tests/lib/guest.sh
. "$REPO/tests/lib/guest.sh"
# shellcheck source=tests/lib/guest_lru.sh
. "$REPO/tests/lib/guest_lru.sh"

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

hog_passes=200
taskset -c "$LRU_CPU" bash -c 'while :; do :; done' &
hog=$!
LRU_PIDS="$LRU_PIDS $hog"
lru_start hog.json -C -d $LRU_DEV --whatif 64 3600 1
lru_list_cfs "$PWD/mnt/d" $hog_passes
lru_stop hog.json
kill $hog
hog=$(jq -c -n --argjson c "$(lru_cpu hog.json)" --argjson l "$(tail -n 1 hog.json)" \
	'$c | {lookups, hits, installed, unsynced, absent,
	       below: .whatif.hit_ratio[0:'$((K - 1))'], at: .whatif.hit_ratio['$((K - 1))'],
	       above: $l.whatif_above, resyncs: $l.counters.resyncs}')
echo "beside a CPU hog: $(jq -c 'del(.below)' <<<"$hog")"
echo "its counters: $(tail -n 1 hog.json | jq -c '.counters + {lost: .lost_lookups}')"
lru_check "beside a hog: every lookup counted, none a hit, each installed or unsynced" \
	".lookups == $((K * hog_passes)) and .hits == 0 and .absent == 0 and
	 .installed + .unsynced == .lookups" "$hog"
lru_check "beside a hog: no size below $K shows a hit" '.below | all(. == 0)' "$hog"
lru_check "beside a hog: an unsynced lookup (each one here changed the LRU) marks the sizes above 16" \
	'.unsynced == 0 or (.above == "lower bound" and .resyncs > 0)' "$hog"
# (under full preemption the hog can preempt any lookup)
if [[ $(bh_lookup_func) == __find_get_block ]] &&
	grep -qE '\((none|voluntary)\)' /sys/kernel/debug/sched/preempt 2>/dev/null; then
	lru_check "beside a hog: __find_get_block never sleeps, so none is unsynced" \
		'.unsynced == 0 and .above == "exact"' "$hog"
fi
