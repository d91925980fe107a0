#!/usr/bin/env bash
# Runs every test this machine can run and ends with "N passed, N failed".
#
# Protocol, for every kind of test: a test prints "PASS: name", "FAIL: name"
# or "SKIP: name: reason" lines; this runner only counts those lines, so
# unit (cmocka), live and VM-bench results all add up the same way.
#   tests/unit   cmocka binaries, built as build/tests/test_*
#   tests/live   executable scripts run on this machine as root, exit 0/1/77
#   tests/vm     run inside QEMU guests by `make vmcheck` (when qemu exists)
# TESTS=glob limits the live tests; BHSCOPE_SKIP_VM=1 skips the VM bench.
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

run_live() {
	local t name out rc
	for t in tests/live/${TESTS:-*}.sh; do
		[[ -x $t ]] || continue
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
		esac
	done
}

run_vm() {
	if [[ ${BHSCOPE_SKIP_VM:-0} == 1 ]]; then
		echo "SKIP: vm: BHSCOPE_SKIP_VM=1"
	elif ! command -v qemu-system-x86_64 > /dev/null; then
		echo "SKIP: vm: qemu-system-x86_64 is not installed (make deps)"
	elif ! make -s --no-print-directory vmcheck; then
		grep -q '^FAIL: ' "$results" || echo "FAIL: vm: make vmcheck failed"
	fi
}

t_start=$(now)
rm -f build/vm/times
t0=$(now); run_unit 2>&1 | record; took "$t0" "(all unit tests)"
t0=$(now); run_live 2>&1 | record; took "$t0" "(all live tests)"
t0=$(now); run_vm 2>&1 | record; took "$t0" "(the VM bench, all guests)"
[[ -f build/vm/times ]] && cat build/vm/times >> "$times"

echo "slowest tests (seconds):"
grep -v '^[0-9.]* (' "$times" | sort -rn | head -n 10 | sed 's/^/  /'
grep '^[0-9.]* (' "$times" | sed 's/^/  /'
awk -v a="$t_start" -v b="$(now)" 'BEGIN {printf "  %.1f (everything)\n", b - a}'

passed=$(grep -c '^PASS: ' "$results")
failed=$(grep -c '^FAIL: ' "$results")
skipped=$(grep -c '^SKIP: ' "$results")
echo "$passed passed, $failed failed, $skipped skipped"
[[ $failed -eq 0 ]]
