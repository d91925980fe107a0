#!/bin/bash
# make seeds, seed 000: the mdtest-like table of BH_LRU_SIZE 8 -> 16 on a
# RAM disk (ext4 on brd), one shared directory, tasks 1 and 8, directories
# of several sizes, without and with an attribute on every file too big for
# its inode (bhbench meta --xattr, as the seed's large ACLs), each cell's
# creation/stat/removal ops/s at 8 and 16 slots through bhtune.ko beside
# bhscope's prediction of the change.
#
# The prediction comes first, from one run of each cell on the kernel's
# own LRU (Debian's BH_LRU_SIZE is 16, the seed's kernels had 8): `bhscope
# lru --whatif 16 --timing 8` gives the hit ratio and the lookup time at
# every size from 1 to 16 (below the running size, the hit ratios are
# exact), so the change of the run's lookup time from 8 to 16. Then
# bhtune.ko runs each cell at 8 and 16 slots, untraced, SEEDS_REPEATS times
# (interleaved), the median kept. The rows go to the host as seed000.json.
# vm-only: icount
# vm-timeout: 3600
set -euo pipefail
# shellcheck source=tests/lib/guest_bhtune.sh
. "$REPO/tests/lib/guest_bhtune.sh"
# shellcheck source=tests/lib/guest_lru.sh
. "$REPO/tests/lib/guest_lru.sh"

SEEDS_SMOKE=0 SEEDS_REPEATS=''
# shellcheck source=/dev/null
[[ -f $VM_OUT/seeds.env ]] && . "$VM_OUT/seeds.env"
TASKS="1 8" DIR_SIZES="0 10000" XATTRS="0 2000" FILES=1000
if [[ $SEEDS_SMOKE == 1 ]]; then
	DIR_SIZES=0 FILES=200
fi
REPEATS=${SEEDS_REPEATS:-2}
bht_need
[[ -x $LRU_BHSCOPE ]] || skip "$LRU_BHSCOPE is not built on the host (make)"
[[ -x $REPO/build/bhbench ]] || skip "bhbench is not built on the host (make)"
command -v jq >/dev/null || skip "jq is not installed on the host"
# shellcheck disable=SC2016 # expanded when the trap runs
bht_traps '[[ -n ${LRU_PID:-} ]] && kill "$LRU_PID" 2>/dev/null'
bht_fs 512

# cells: xattr bytes, tasks, directory size
cells=()
for x in $XATTRS; do
	for t in $TASKS; do
		for d in $DIR_SIZES; do
			cells+=("$x $t $d")
		done
	done
done

# work OUT X T D: one bhbench meta run of the cell into OUT (JSON)
work() {
	local args=(-D "$BHT_MNT/w" -t "$3" -n "$FILES" --shared --dir-size "$4"
		--drop-caches -j)
	(($2)) && args+=(--xattr "$2")
	mkdir -p "$BHT_MNT/w"
	"$REPO/build/bhbench" meta "${args[@]}" >"$1" || fail "bhbench meta ${args[*]}"
	sync
}

# --- the prediction: each cell once on the kernel's own LRU ---
work warmup.json 0 1 0
for c in "${cells[@]}"; do
	read -r x t d <<<"$c"
	lru_start "predict-$x-$t-$d.json" -d "${BHT_DEV##*/}" --whatif 16 --timing 8 3600 1
	work "traced-$x-$t-$d.json" "$x" "$t" "$d"
	lru_stop "predict-$x-$t-$d.json"
	LRU_PID=
	progress "predicted xattr $x, $t tasks, dir size $d"
done

# --- the measurement: bhtune at 8 and 16 slots, interleaved ---
bht_load
K=$(bht_p lru_size)
for ((r = 1; r <= REPEATS; r++)); do
	for c in "${cells[@]}"; do
		read -r x t d <<<"$c"
		for s in 8 16; do
			bht_set lru_size "$s"
			work "bench-$x-$t-$d-$s-$r.json" "$x" "$t" "$d"
		done
	done
	progress "repeat $r of $REPEATS measured"
done
bht_set lru_size "$K"
bht_unload

# --- one row a cell ---
median='(sort | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end)'
rows=()
for c in "${cells[@]}"; do
	read -r x t d <<<"$c"
	runs8=() runs16=()
	for ((r = 1; r <= REPEATS; r++)); do
		runs8+=("bench-$x-$t-$d-8-$r.json")
		runs16+=("bench-$x-$t-$d-16-$r.json")
	done
	rows+=("$(jq -c -n --argjson x "$x" --argjson t "$t" --argjson d "$d" \
		--argjson p "$(tail -n 1 "predict-$x-$t-$d.json")" \
		--argjson a "$(jq -c -s . "${runs8[@]}")" \
		--argjson b "$(jq -c -s . "${runs16[@]}")" "
		def phases: {create: map(.phases.create.ops_per_sec) | $median,
			stat: map(.phases.stat.ops_per_sec) | $median,
			remove: map(.phases.remove.ops_per_sec) | $median,
			seconds: map(.phases | map(.seconds) | add) | $median};
		{xattr: \$x, tasks: \$t, dir_size: \$d, files_per_task: $FILES,
		 repeats: $REPEATS, kernel_lru_size: \$p.lru_size,
		 at8: (\$a | phases), at16: (\$b | phases),
		 predicted: {lookups: \$p.total.lookups,
			hit8: \$p.total.whatif.hit_ratio[7],
			hit16: \$p.total.whatif.hit_ratio[15],
			ns8: \$p.lookup_time.ns_per_lookup[7],
			ns16: \$p.lookup_time.ns_per_lookup[15],
			timed: \$p.lookup_time.costs.timed,
			above: \$p.whatif_above}}")")
done
printf '%s\n' "${rows[@]}" | jq -s . >"$VM_EXPORT/seed000.json"
jq -c '.[] | {xattr, tasks, dir_size, at8, at16, predicted}' "$VM_EXPORT/seed000.json"
bht_verify
bht_log_clean
