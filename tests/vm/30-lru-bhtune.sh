#!/bin/bash
# With bhtune.ko loaded the module owns the LRU (the kernel's stays empty):
# bhscope lru must follow it through its tracepoints, at the module's
# lru_size. At lru_size 8, each pass lists A (6 blocks) twice and B (12
# blocks) once on one CPU: A's second listing hits in slot 5, the other 18
# lookups come 17 distinct blocks after their last use and miss. So per
# pass 6 hits and 18 evicting installs, a curve that is 0 below 6, 6/24
# from 6 to 17 and 1 (but the first pass) from 18, and the offline replay
# agrees.
set -euo pipefail
# shellcheck source=tests/lib/guest_bhtune.sh
. "$REPO/tests/lib/guest_bhtune.sh"
# shellcheck source=tests/lib/guest_lru.sh
. "$REPO/tests/lib/guest_lru.sh"

PASSES=20
# bht_need cleans up after a timed-out predecessor, and its rmmods fail
# when there is nothing to remove: not a failure here.
bht_need || true
lru_need_tools
lru_ext4 "$PWD/mnt"
# Neither cleanup may fail the test (set -e is off inside an || list).
trap 'lru_cleanup || true; bht_cleanup || true' EXIT
lru_dir "$PWD/mnt/a" 6
lru_dir "$PWD/mnt/b" 12
echo "filesystem ready at ${SECONDS} s"
bht_load lru_size=8
echo "bhtune loaded at ${SECONDS} s"
workload() {
	taskset -c "$LRU_CPU" bash -c 'for ((i = 0; i < $1; i++)); do
		: "$2"/*; : "$2"/*; : "$3"/*; done' _ "$1" "$PWD/mnt/a" "$PWD/mnt/b"
}
workload 2

p=$("$LRU_BHSCOPE" lru --probes -j)
lru_check "--probes: bhtune's tracepoints give the lookups" \
	'.mode == "bhtune" and .figures.lookups.source == "raw tracepoint bhtune:bhtune_lookup"' "$p"

# Both models start from an empty LRU: bhtune's events name the entries an
# install evicts, so bhscope's ghost list would learn the LRU the warm-up
# left while the replay (the key stream alone) cannot, and their curves
# above size 8 would differ by the first pass (a background invalidation
# used to empty it here by chance). BLKFLSBUF, which empties it, also
# drops the clean page-cache pages nothing holds: the directories' blocks
# once jbd2 has let them go, so in some runs the first listing found them
# absent and read them again (2 or 12 lookups more). A process that maps
# the blocks holds them (invalidate_mapping_pages() skips mapped pages).
command -v debugfs >/dev/null || skip "debugfs (e2fsprogs) is not installed on the host"
read -ra blocks <<<"$({ debugfs -R "blocks /a" /dev/$LRU_DEV
	debugfs -R "blocks /b" /dev/$LRU_DEV; } 2>/dev/null | tr '\n' ' ')"
((${#blocks[@]} == 18)) || fail "debugfs names ${#blocks[@]} blocks of a and b, not 18: ${blocks[*]}"
python3 - /dev/$LRU_DEV held "${blocks[@]}" <<'PY' &
import mmap, os, signal, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
maps = [mmap.mmap(fd, 4096, mmap.MAP_SHARED, mmap.PROT_READ, offset=int(b) * 4096)
        for b in sys.argv[3:]]
for m in maps:
    m[0]                    # faulted in: the page is mapped
open(sys.argv[2], "w").close()
signal.pause()
PY
holder=$!
LRU_PIDS="${LRU_PIDS:-} $holder"
wait_until 10 $holder test -e held ||
	fail "the directories' blocks were not mapped within 10 s"
# The known answer holds while nothing else empties the LRU. A block device
# closed anywhere empties every CPU's (invalidate_bh_lrus(), which bhtune
# follows): bhscope counts it (counters.resets), and the run is made once
# more, so a shortfall with no emptying counted still fails.
for attempt in 1 2; do
	blockdev --flushbufs /dev/$LRU_DEV
	lru_start live.json -C -d $LRU_DEV --whatif 32 --trace lru.trace 3600 1
	workload $PASSES
	lru_stop live.json
	resets=$(tail -n 1 live.json | jq '.counters.resets')
	((resets == 0)) && break
	echo "bhtune's LRU was emptied during run $attempt (resets $resets)"
done
kill $holder
echo "traced run done at ${SECONDS} s"
cat live.json.err
last=$(tail -n 1 live.json)
cpu=$(lru_cpu live.json)
want=$((24 * PASSES))

lru_check "the running LRU size is bhtune's" '.mode == "bhtune" and .lru_size == 8' "$last"
lru_check "a pass is 24 lookups, 6 of them hits in slot 5" \
	".lookups == $want and .hits == 6 * $PASSES and .slots[5] == .hits and .unsynced == 0" "$cpu"
lru_check "the other lookups are installs that evict once the LRU is full" \
	".installed == 18 * $PASSES and .evictions >= .installed - 8" "$cpu"
lru_check "what-if: 0 below 6, 6/24 from 6 to 17, 1 (but the first pass) from 18" \
	"([.whatif.hit_ratio[0:5][] == 0] | all) and
	 ([.whatif.hit_ratio[5:17][] == .hit_ratio] | all) and
	 ([.whatif.hit_ratio[17:][] >= ($PASSES - 1) / $PASSES - 1e-6] | all)" "$cpu"

"$LRU_BHSCOPE" simulate lru.trace --sizes 1-32 -C -d $LRU_DEV -j >sim.json
lru_check "the replay modelled bhtune's LRU size" '.lru_size == 8' "$(cat sim.json)"
# bhtune's tracepoints give no snapshot of the module's LRU: the replay
# learns it from the first 8 keys it sees at the front.
lru_replay_check sim.json "$cpu" 8
