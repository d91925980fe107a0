#!/bin/bash
# make bench, in the guest: bhscope lru, bhscope lru --whatif 64 and the
# bpftrace equivalent against an untraced run, on ext4 on a brd ramdisk
# (bench/bench_lru.py). Progress goes to the host as notes; the JSON
# results go back through $VM_EXPORT.
set -euo pipefail
# shellcheck source=tests/lib/guest.sh
. "$REPO/tests/lib/guest.sh"

for tool in bpftrace bpftool python3; do
	command -v "$tool" >/dev/null || skip "$tool is not installed on the host (make deps)"
done
for bin in bhscope bhbench bench-floor; do
	[[ -x $REPO/build/$bin ]] || skip "$REPO/build/$bin is not built on the host (make)"
done
BENCH_SMOKE=0 BENCH_REPS='' BENCH_LRU_MODES='' BENCH_LRU_SERIES=''
# shellcheck source=/dev/null
[[ -f $VM_OUT/bench.env ]] && . "$VM_OUT/bench.env"
args=()
[[ $BENCH_SMOKE == 1 ]] && args+=(--smoke)
[[ -n $BENCH_REPS ]] && args+=(--reps "$BENCH_REPS")
[[ -n $BENCH_LRU_MODES ]] && args+=(--modes "$BENCH_LRU_MODES")
[[ -n $BENCH_LRU_SERIES ]] && args+=(--workloads "$BENCH_LRU_SERIES")

# 512 MiB, 100000 inodes (the stat workload makes 20000 files), inode
# tables and journal written now so no ext4lazyinit runs during the bench.
mnt=/mnt/bench
ramdisk_ext4 "$mnt" 512 -N 100000 -E lazy_itable_init=0,lazy_journal_init=0
trap 'exit 143' TERM INT

python3 "$REPO/bench/bench_lru.py" --mnt "$mnt" "${args[@]}" \
	--out "$VM_EXPORT/lru-$SERIES.json"
