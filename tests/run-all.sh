#!/usr/bin/env bash
# Runs every test this machine can run and ends with "N passed, N failed".
#
# Protocol, for every kind of test: a test prints "PASS: name", "FAIL: name"
# or "SKIP: name: reason" lines; this runner only counts those lines, so
# unit (cmocka), live and VM-bench results all add up the same way.
#   tests/unit   cmocka binaries, built as build/tests/test_*
#   tests/live   executable scripts run on this machine as root, exit 0/1/77
#   tests/vm     run inside QEMU guests by `make vmcheck` (when qemu exists),
#                NN-behaviour.sh
#   tests/lib    the helpers of all three, not tests: common.sh (result
#                lines, cleanups), loopfs.sh (ext4 on a loop device, also
#                for scripts/demo.sh), bhbench/record/serve.sh, guest*.sh
# TESTS=glob limits the live tests; BHSCOPE_SKIP_VM=1 skips the VM bench
# and the guests the live-after-vm tests would boot.
# Order: unit tests, then the VM bench in the background with the live
# tests beside it, then the live tests that boot a guest themselves, as
# soon as the bench runs its last guest.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

log_dir=build/test-logs
mkdir -p "$log_dir"
results=$log_dir/results.txt
: > "$results"

times=$log_dir/times.txt
: > "$times"

record() { tee -a "$results"; }

now() { date +%s.%N; }
# took START NAME: one line "SECONDS NAME" in $times.
took() { awk -v a="$1" -v b="$(now)" -v n="$2" 'BEGIN {printf "%.1f %s\n", b - a, n}' >> "$times"; }

run_unit() {
	local bin name
	for bin in build/tests/test_*; do
		[[ -x $bin ]] || continue
		name=${bin##*/}
		# cmocka prints "[  PASSED  ]"/"[  FAILED  ]" per test; restate them.
		if "$bin" > "$log_dir/$name.log" 2>&1; then
			echo "PASS: unit/$name"
		else
			echo "FAIL: unit/$name"
			sed 's/^/    /' "$log_dir/$name.log"
		fi
	done
}

# run_one TEST: runs a live test into its log; its result lines, in
# $log_dir/live-NAME.result, and its time in $times.
run_one() {
	local t=$1 name out rc t0
	name=${t##*/}
	name=${name%.sh}
	out=$log_dir/live-$name.log
	t0=$(now)
	timeout --kill-after=10 "${LIVE_TIMEOUT:-600}" "$t" > "$out" 2>&1
	rc=$?
	took "$t0" "live/$name"
	case $rc in
	0) grep -qE '^PASS: ' "$out" && grep -E '^(PASS|SKIP): ' "$out" ||
		echo "PASS: live/$name" ;;
	77) grep -E '^SKIP: ' "$out" || echo "SKIP: live/$name: skipped" ;;
	*) grep -E '^(PASS|SKIP): ' "$out"
	   echo "FAIL: live/$name (exit $rc, log $out)"
	   tail -n 40 "$out" | sed 's/^/    /' ;;
	esac > "$log_dir/live-$name.result"
}

# run_live beside|after: the live tests that run beside the VM bench, one
# after the other, or those tagged "# live-after-vm", all at once: they
# boot a guest through the bench themselves (each in a tree of its own,
# build/vm-live/NAME), each guest a host core's work, so they wait for the
# cores the bench no longer needs, and run side by side so that none idles
# at the end.
run_live() {
	local group=$1 t tests=()
	for t in tests/live/${TESTS:-*}.sh; do
		[[ -x $t ]] || continue
		if grep -q '^# live-after-vm' "$t"; then
			[[ $group == after ]] || continue
		else
			[[ $group == beside ]] || continue
		fi
		tests+=("$t")
		if [[ $group == beside ]]; then
			run_one "$t"
			cat "$log_dir/live-$(basename "$t" .sh).result"
		fi
	done
	[[ $group == after ]] || return 0
	for t in "${tests[@]}"; do
		VM_BUILD=build/vm-live/$(basename "$t" .sh) run_one "$t" &
	done
	wait
	for t in "${tests[@]}"; do
		cat "$log_dir/live-$(basename "$t" .sh).result"
	done
}

run_vm() {
	if [[ ${BHSCOPE_SKIP_VM:-0} == 1 ]]; then
		echo "SKIP: vm: BHSCOPE_SKIP_VM=1"
	elif ! command -v qemu-system-x86_64 > /dev/null; then
		echo "SKIP: vm: qemu-system-x86_64 is not installed (make deps)"
	elif ! make -s --no-print-directory vmcheck; then
		grep -q '^FAIL: ' "$vm_log" || echo "FAIL: vm: make vmcheck failed"
	fi
}

t_start=$(now)
vm_build=${VM_BUILD:-build/vm} # the bench's tree (tests/vm/harness/lib.sh)
rm -f "$vm_build/times"
t0=$(now); run_unit 2>&1 | record; took "$t0" "(all unit tests)"
# The guests run while the live tests do: alone, the live tests keep a
# 2-CPU host less than a third busy (about 160 CPU-seconds in 280 s), so
# beside the guests they cost them about that much CPU instead of their
# wall time. What the guests print is shown once the live tests are done.
vm_log=$log_dir/vm.log
rm -f "$vm_build/slot-free"
(t0=$(now); run_vm; took "$t0" "(the VM bench, all guests)") > "$vm_log" 2>&1 &
vm_pid=$!
echo "vm: the VM bench runs in the background ($vm_log, tail -f to watch); its results follow the live tests" >&2
t0=$(now); run_live beside 2>&1 | record; took "$t0" "(live tests beside the VM bench)"
# The bench says when it has no guest left to start ($vm_build/slot-free):
# its last guests then run beside the guests of the live tests (in trees
# of their own, build/vm-live/NAME), and no core idles at the end.
while kill -0 "$vm_pid" 2> /dev/null && [[ ! -e $vm_build/slot-free ]]; do
	sleep 1
done
t0=$(now)
run_live after 2>&1 | record
took "$t0" "(live tests that boot a guest)"
tail -n +1 -f --pid="$vm_pid" "$vm_log" | record
wait "$vm_pid"
[[ -f $vm_build/times ]] && cat "$vm_build/times" >> "$times"

echo "slowest tests (seconds):"
grep -v '^[0-9.]* (' "$times" | sort -rn | head -n 10 | sed 's/^/  /'
grep '^[0-9.]* (' "$times" | sed 's/^/  /'
awk -v a="$t_start" -v b="$(now)" 'BEGIN {printf "  %.1f (everything)\n", b - a}'

passed=$(grep -c '^PASS: ' "$results")
failed=$(grep -c '^FAIL: ' "$results")
skipped=$(grep -c '^SKIP: ' "$results")
echo "$passed passed, $failed failed, $skipped skipped"
[[ $failed -eq 0 ]]
