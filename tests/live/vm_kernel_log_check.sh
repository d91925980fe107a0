#!/usr/bin/env bash
# The VM guests' kernel-log check (tests/vm/harness/kernel-log-check.awk) on
# kernel logs written out here: it fails a run on every kind of kernel
# report, shows each whole, names the test it came during, and lets pass
# only the scheduler's own affine_move_task warning from migrate_enable.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/common.sh
scan() { awk -f tests/vm/harness/kernel-log-check.awk; }

sched_warning() { # FUNCTION CALLER: a WARN report as the 6.1 kernel logs it
	cat <<LOG
[  230.1] bhvm: test 6.1/38-lru-production starts
[  233.2] ------------[ cut here ]------------
[  233.2] WARNING: CPU: 0 PID: 1613 at kernel/sched/core.c:2816 $1+0x2d8/0x550
[  233.3] Modules linked in: ext4 jbd2
[  233.3] Call Trace:
[  233.3]  <TASK>
[  233.3]  __set_cpus_allowed_ptr_locked+0xee/0x1a0
[  233.3]  $2+0x96/0xd0
[  233.3]  __find_get_block+0x5/0x30
[  233.3]  </TASK>
[  233.4] ---[ end trace 0000000000000000 ]---
[  234.0] EXT4-fs (ram0): unmounting filesystem.
LOG
}

known_warning_passes() {
	local out
	out=$(sched_warning affine_move_task migrate_enable | scan)
	[[ $(grep -c '^known	' <<<"$out") == 1 && $(grep -c '^known-line	' <<<"$out") == 9 &&
		$(grep -c '^bad' <<<"$out") == 0 ]] &&
		grep -q "^known	6.1/38-lru-production	.*affine_move_task" <<<"$out" &&
		grep -q "^known-line	6.1/38-lru-production	.* migrate_enable+0x96" <<<"$out"
}

# bad N: the scan printed N lines to fail on, and nothing it let pass.
bad() { [[ $(grep -c '^bad	' <<<"$2") == "$1" && $(grep -c '^known' <<<"$2") == 0 ]]; }

other_warning_fails_whole() {
	local out
	out=$(sched_warning bhtune_set_lru_size migrate_enable | scan)
	bad 9 "$out" && grep -q "end trace" <<<"$out" && grep -q "__find_get_block" <<<"$out"
}

# another report's line inside the known one is not hidden by it
known_warning_with_a_double_release_inside_fails() {
	local out
	out=$(sched_warning affine_move_task migrate_enable |
		sed 's/^\[  233.3\]  <TASK>$/[  233.3] VFS: brelse: Trying to free free buffer/' | scan)
	bad 9 "$out" && grep -q "Trying to free free buffer" <<<"$out"
}

same_warning_other_caller_fails() {
	bad 9 "$(sched_warning affine_move_task sched_setaffinity | scan)"
}

double_release_fails() {
	local out
	out=$(printf '%s\n' '[ 1.0] bhvm: test 6.12/62-bhtune-lru-size-churn starts' \
		'[ 2.0] VFS: brelse: Trying to free free buffer' '[ 2.1] normal line' | scan)
	bad 1 "$out" && grep -q "^bad	6.12/62-bhtune-lru-size-churn	" <<<"$out"
}

# A report the log ends in (the guest powered off mid-report) still fails,
# and one before any test says so.
unfinished_oops_fails() {
	local out
	out=$(printf '%s\n' '[ 0.5] BUG: kernel NULL pointer dereference, address: 0' \
		'[ 0.6] RIP: 0010:bhtune_lookup+0x1' | scan)
	bad 2 "$out" && grep -q "^bad	before the tests	" <<<"$out"
}

clean_log_passes() {
	[[ -z $(printf '%s\n' '[ 1.0] bhvm: test 6.1/10-x starts' '[ 2.0] ok' | scan) ]]
}

check known_warning_passes known_warning_passes
check other_warning_fails_whole other_warning_fails_whole
check same_warning_other_caller_fails same_warning_other_caller_fails
check known_warning_with_a_double_release_inside_fails known_warning_with_a_double_release_inside_fails
check double_release_fails double_release_fails
check unfinished_oops_fails unfinished_oops_fails
check clean_log_passes clean_log_passes
finish
