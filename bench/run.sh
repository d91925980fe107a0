#!/usr/bin/env bash
# make bench: every overhead benchmark, one after the other (never two at
# once: they would measure each other), one table each, results as JSON
# under build/bench/, then one table of ratios (build/bench/summary.json).
#
#   1. bhscope jbd2 vs bpftrace vs untraced, on this machine (bench_jbd2.py)
#   2. bhscope lru (+ --whatif 64) vs bpftrace vs untraced, in a VM bench
#      guest (bench/vm/, bench_lru.py), when QEMU is installed
#   3. the bhscope serve soak (serve-soak.sh, 10 min)
#   4. trace: bhscope lru --trace's bytes a lookup on the LRU workloads and
#      its writer at 1,000,000 lookups/s, in a VM bench guest (1 vCPU;
#      bench/vm-trace/, bench_trace.py); keeps the traces in
#      $BHSCOPE_CACHE/traces/ for part 5
#   5. simulate: bhscope simulate's lookups/s on this machine, from those
#      traces (bench_simulate.py; boots no guest once they are cached)
#
# BENCH_SMOKE=1       one short repeat of each, a 60 s soak (a few minutes)
# BENCH_VM_KERNELS    guests for part 2 (default 6.1; "6.1 6.12" for both)
# BENCH_REPS          interleaved repeats in the guest (default 7)
# BENCH_LRU_MODES     the LRU part's modes, by name, separated by ';'
#                     (default: every one; untraced always runs)
# BENCH_LRU_SERIES    the LRU part's series, of "create;stat;duty" (default:
#                     all; duty is serve --lru-duty's, about 12 min)
# BENCH_PARTS         which parts, of "jbd2 lru soak trace simulate" (default:
#                     all)
# BENCH_ICOUNT        the LRU guest's -icount shift (default 0: its clock
#                     counts instructions); empty: the host's wall clock
set -euo pipefail
cd "$(dirname "$0")/.."

parts=" ${BENCH_PARTS:-jbd2 lru soak trace simulate} "
for p in $parts; do
	[[ $p == @(jbd2|lru|soak|trace|simulate) ]] || { echo "bench: unknown part '$p' in BENCH_PARTS (jbd2, lru, soak, trace, simulate)" >&2; exit 2; }
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
want trace && rm -f "$out"/trace-*.json
want simulate && rm -f "$out"/simulate.json
smoke=()
[[ ${BENCH_SMOKE:-0} == 1 ]] && smoke=(--smoke)
rc=0

echo "== bench 1/5: jbd2, on this machine"
if want jbd2; then
	python3 bench/bench_jbd2.py "${smoke[@]}" || rc=1
else
	echo "skipped (BENCH_PARTS)"
fi

echo
echo "== bench 2/5: buffer-head LRU, in the VM bench"
if ! want lru; then
	echo "skipped (BENCH_PARTS)"
elif command -v qemu-system-x86_64 >/dev/null; then
	kernels=${BENCH_VM_KERNELS:-6.1}
	timeout=5400
	[[ ${BENCH_SMOKE:-0} == 1 ]] && timeout=900
	# One vCPU: with single-threaded TCG (tests/vm/harness/README.md) two vCPUs
	# take turns on one host thread, and a BPF program run that spans a
	# turn counts the other vCPU's time too (run_time_ns doubled, noisy).
	# The guest clock counts instructions (VM_ICOUNT=0: 1 ns each), so the
	# host's load does not enter the figures; BENCH_ICOUNT= for wall time.
	# The guest's notes show progress, so silence means a hung guest.
	VM_SUITE=bench/vm VM_KERNELS=$kernels VM_TESTS='' \
		VM_VARIANTS=default VM_JOBS=1 \
		VM_ICOUNT=${BENCH_ICOUNT-0} \
		VM_CPUS=1 VM_SMP_LIST="" VM_TEST_TIMEOUT=$timeout \
		VM_IDLE_TIMEOUT=600 VM_TIMEOUT=$((timeout + 300)) \
		tests/vm/harness/vmcheck.sh || rc=1
	for s in $kernels; do
		f=${VM_BUILD:-build/vm}/$s/export/lru/lru-$s.json
		if [[ -f $f ]]; then
			cp "$f" "$out/lru-$s.json"
			python3 bench/bench_lru.py --report "$out/lru-$s.json"
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
echo "== bench 3/5: bhscope serve soak"
soak=0
if want soak; then
	bench/serve-soak.sh || soak=$?
else
	echo "skipped (BENCH_PARTS)"
fi
((soak == 0 || soak == 77)) || rc=1

echo
echo "== bench 4/5: trace writer, in the VM bench"
trace_series=${BENCH_VM_KERNELS:-6.1}
trace_series=${trace_series%% *}
cached=${BHSCOPE_CACHE:-/var/cache/bhscope}/traces/$trace_series/create.trace
# The simulate part needs recorded traces: a first run records them.
if want trace || { want simulate && [[ ! -f $cached ]]; }; then
	if command -v qemu-system-x86_64 >/dev/null; then
		timeout=3600
		[[ ${BENCH_SMOKE:-0} == 1 ]] && timeout=900
		# One vCPU whose clock counts instructions, as in part 2 (with
		# two, such a guest did not boot within 10 minutes): the writer
		# thread shares it with the lookups, the harder case.
		VM_SUITE=bench/vm-trace VM_KERNELS=$trace_series VM_TESTS='' \
			VM_VARIANTS=default \
			VM_ICOUNT=${BENCH_ICOUNT-0} VM_CPUS=1 VM_SMP_LIST="" \
			VM_TEST_TIMEOUT=$timeout VM_IDLE_TIMEOUT=600 \
			VM_TIMEOUT=$((timeout + 300)) tests/vm/harness/vmcheck.sh || rc=1
		python3 bench/bench_trace.py --series "$trace_series" \
			--collect "${VM_BUILD:-build/vm}/$trace_series/export/record" || rc=1
	else
		echo "bench: qemu-system-x86_64 is not installed (make deps): no traces recorded"
	fi
else
	echo "skipped (BENCH_PARTS)"
fi

echo
echo "== bench 5/5: simulate, on this machine"
if want simulate; then
	sim=0
	python3 bench/bench_simulate.py --series "$trace_series" "${smoke[@]}" || sim=$?
	((sim == 0 || sim == 77)) || rc=1
else
	echo "skipped (BENCH_PARTS)"
fi

echo
python3 bench/summary.py "$out"
echo "bench: $((SECONDS - t0)) s wall"
exit $rc
