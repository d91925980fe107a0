#!/usr/bin/env bash
# make bench: every overhead benchmark, one after the other (never two at
# once: they would measure each other), one table each, results as JSON
# under build/bench/, then one table of ratios (build/bench/summary.json).
#
#   1. bhscope jbd2 vs bpftrace vs untraced, on this machine (bench_jbd2.py)
#   2. bhscope lru (+ --whatif 64) vs bpftrace vs untraced, in a VM bench
#      guest (tools/bench/vm/, bench_lru.py), when QEMU is installed
#   3. the bhscope serve soak (serve-soak.sh, 10 min)
#
# BENCH_SMOKE=1       one short repeat of each, a 60 s soak (a few minutes)
# BENCH_VM_KERNELS    guests for part 2 (default 6.1; "6.1 6.12" for both)
# BENCH_REPS          interleaved repeats in the guest (default 7)
# BENCH_PARTS         which parts, of "jbd2 lru soak" (default: all three)
# BENCH_ICOUNT        the LRU guest's -icount shift (default 0: its clock
#                     counts instructions); empty: the host's wall clock
set -euo pipefail
cd "$(dirname "$0")/../.."

parts=" ${BENCH_PARTS:-jbd2 lru soak} "
for p in $parts; do
	[[ $p == @(jbd2|lru|soak) ]] || { echo "bench: unknown part '$p' in BENCH_PARTS (jbd2, lru, soak)" >&2; exit 2; }
done
want() { [[ $parts == *" $1 "* ]]; }

t0=$SECONDS
out=build/bench
mkdir -p "$out"
# A part not run keeps its last results: the summary shows them all.
rm -f "$out"/summary.json
want jbd2 && rm -f "$out"/jbd2.json
want lru && rm -f "$out"/lru-*.json
want soak && rm -f "$out"/serve-soak.json
smoke=()
[[ ${BENCH_SMOKE:-0} == 1 ]] && smoke=(--smoke)
rc=0

echo "== bench 1/3: jbd2, on this machine"
if want jbd2; then
	python3 tools/bench/bench_jbd2.py "${smoke[@]}" || rc=1
else
	echo "skipped (BENCH_PARTS)"
fi

echo
echo "== bench 2/3: buffer-head LRU, in the VM bench"
if ! want lru; then
	echo "skipped (BENCH_PARTS)"
elif command -v qemu-system-x86_64 >/dev/null; then
	kernels=${BENCH_VM_KERNELS:-6.1}
	timeout=5400
	[[ ${BENCH_SMOKE:-0} == 1 ]] && timeout=900
	# One vCPU: with single-threaded TCG (tools/vm/README.md) two vCPUs
	# take turns on one host thread, and a BPF program run that spans a
	# turn counts the other vCPU's time too (run_time_ns doubled, noisy).
	# The guest clock counts instructions (VM_ICOUNT=0: 1 ns each), so the
	# host's load does not enter the figures; BENCH_ICOUNT= for wall time.
	# The guest's notes show progress, so silence means a hung guest.
	VM_SUITE=tools/bench/vm VM_KERNELS=$kernels VM_TESTS='' \
		VM_VARIANTS=default VM_JOBS=1 \
		VM_ICOUNT=${BENCH_ICOUNT-0} \
		VM_CPUS=1 VM_SMP_LIST="" VM_TEST_TIMEOUT=$timeout \
		VM_IDLE_TIMEOUT=600 VM_TIMEOUT=$((timeout + 300)) \
		tools/vm/vmcheck.sh || rc=1
	for s in $kernels; do
		f=build/vm/$s/export/lru/lru-$s.json
		if [[ -f $f ]]; then
			cp "$f" "$out/lru-$s.json"
			python3 tools/bench/bench_lru.py --report "$out/lru-$s.json"
			echo "results: $out/lru-$s.json"
		else
			echo "bench: no LRU results from the $s guest (see above)" >&2
			rc=1
		fi
	done
else
	echo "bench: qemu-system-x86_64 is not installed (make deps): no LRU bench"
fi

echo
echo "== bench 3/3: bhscope serve soak"
soak=0
if want soak; then
	tools/bench/serve-soak.sh || soak=$?
else
	echo "skipped (BENCH_PARTS)"
fi
((soak == 0 || soak == 77)) || rc=1

echo
python3 tools/bench/summary.py "$out"
echo "bench: $((SECONDS - t0)) s wall"
exit $rc
