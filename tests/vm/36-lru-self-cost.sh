#!/bin/bash
# --self-cost reports the probes' own run time per lookup from the
# kernel's BPF statistics, with and without the what-if ghost list; the
# figures go to the log (they are quoted in the LRU tracer's notes). The
# workload lists a hot set of 8 blocks twice (the second time hits) and a
# set of 24 (misses that search the ghost list): 40 lookups a pass.
set -euo pipefail
# shellcheck source=tests/lib/guest.sh
. "$REPO/tests/lib/guest.sh"
# shellcheck source=tests/lib/guest_lru.sh
. "$REPO/tests/lib/guest_lru.sh"

lru_need_tools
lru_ext4 "$PWD/mnt"
lru_dir "$PWD/mnt/hot" 8
lru_dir "$PWD/mnt/big" 24
workload() {
	taskset -c "$LRU_CPU" bash -c 'for ((i = 0; i < 30; i++)); do
		: "$1"/*; : "$1"/*; : "$2"/*; done' _ "$PWD/mnt/hot" "$PWD/mnt/big"
}
workload

for whatif in 0 64; do
	args=(--self-cost -C -d "$LRU_DEV" 3600 1)
	((whatif)) && args+=(--whatif "$whatif")
	lru_start "cost$whatif.json" "${args[@]}"
	workload
	lru_stop "cost$whatif.json"
	cost=$(tail -n 1 "cost$whatif.json" | jq -c .self_cost)
	echo "--whatif $whatif: $(jq -r '.programs[] | "\(.hook): \(.run_cnt) runs, \(.ns_per_run | floor) ns/run"' <<<"$cost" | paste -sd ';')"
	echo "--whatif $whatif: $(jq -r .ns_per_lookup <<<"$cost") ns per lookup"
	# the exit alone where the lookup cannot be switched out (6.1's
	# __find_get_block under voluntary preemption), else entry and exit
	lru_check "--whatif $whatif: the lookup's probes ran once per lookup each, at a cost" \
		'[.programs[] | select(.hook | test("find_get_block")) | .run_cnt] as $runs |
		 ($runs | length) >= 1 and ($runs | min) >= 1200 and
		 ($runs | min) == ($runs | max) and .ns_per_lookup > 0' "$cost"
done

# For scale (TCG makes every instruction dear): a one-counter program on the
# block:block_touch_buffer tracepoint, under the same workload.
lru_start ref.json --self-cost --hook tracepoint -d "$LRU_DEV" 3600 1
workload
lru_stop ref.json
ref=$(tail -n 1 ref.json | jq -c '.self_cost.programs[0]')
echo "reference: $(jq -r '"\(.hook): \(.run_cnt) runs, \(.ns_per_run | floor) ns/run"' <<<"$ref")"
lru_check "the reference program ran once per hit" '.run_cnt >= 30 * 8' "$ref"
# 6.1 and 6.12 take BTF tracepoints: no perf buffer, a third of the cost
lru_check "the hits-only mode attached the BTF tracepoint" \
	'.hook == "tp_btf block:block_touch_buffer"' "$ref"
