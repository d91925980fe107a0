#!/usr/bin/env bash
# make seeds: the seed threads' two experiments in a VM bench guest whose
# clock counts instructions (6.1+icount: one vCPU, -icount shift=0,
# sleep=off, so the batching sleeps cost no wall time and the figures
# repeat), then their tables beside bhscope's predictions and the seeds'
# own figures (bench/seeds/seeds_table.py). Results: build/seeds/.
#
# SEEDS_KERNEL   the guest's series (default 6.1)
# SEEDS_SMOKE=1  a few cells of each, small (a couple of minutes)
# SEEDS_REPEATS  seed 000's measured runs a cell and size (default 2)
set -euo pipefail
cd "$(dirname "$0")/../.."

command -v qemu-system-x86_64 >/dev/null ||
	{ echo "bhscope: make seeds needs qemu-system-x86_64 (make deps)" >&2; exit 1; }
series=${SEEDS_KERNEL:-6.1}
out=build/seeds
export_dir=${VM_BUILD:-build/vm}/$series+icount/export
mkdir -p "$out"
rm -f "$out"/seed00[02].json
rc=0
VM_SUITE=bench/seeds/vm VM_GUESTS="$series+icount" VM_TESTS='' VM_JOBS=1 \
	VM_TEST_TIMEOUT=3600 VM_IDLE_TIMEOUT=900 VM_TIMEOUT=7500 \
	tests/vm/harness/vmcheck.sh || rc=1
for f in 000-lru-mdtest/seed000.json 002-jbd2-sync-writers/seed002.json; do
	if [[ -f $export_dir/$f ]]; then
		cp "$export_dir/$f" "$out/"
	else
		echo "bhscope: the guest sent no ${f#*/} back (see above)" >&2
		rc=1
	fi
done
echo
python3 bench/seeds/seeds_table.py "$out" | tee "$out/tables.txt" || rc=1
echo "results: $out/seed000.json, $out/seed002.json, $out/tables.txt"
exit $rc
