#!/bin/bash
# The guest runs the kernel vmcheck fetched, with the CPUs it was asked
# for, the stall detectors the bench sets, and one address-space layout
# for every process (norandmaps: translations shared between processes).
# vm-also: cloud
set -euo pipefail
# shellcheck source=tests/lib/guest.sh
. "$REPO/tests/lib/guest.sh"

echo "uname -r: $(uname -r), CPUs online: $(nproc), asked for: $VM_CPUS"
[[ $(uname -r) == "$KVER" ]] || fail "running $(uname -r), expected $KVER"
[[ $(nproc) == "$VM_CPUS" ]] || fail "$(nproc) CPUs online, expected $VM_CPUS"
# the stall detectors scaled for TCG (tests/vm/harness/lib.sh)
[[ $(cat /proc/sys/kernel/watchdog_thresh) == 60 ]] ||
	fail "watchdog_thresh is $(cat /proc/sys/kernel/watchdog_thresh), not the 60 the bench boots with"
[[ $(cat /sys/module/rcupdate/parameters/rcu_cpu_stall_timeout) == 300 ]] ||
	fail "rcu_cpu_stall_timeout is $(cat /sys/module/rcupdate/parameters/rcu_cpu_stall_timeout), not 300"
[[ $(cat /proc/sys/kernel/randomize_va_space) == 0 ]] ||
	fail "randomize_va_space is $(cat /proc/sys/kernel/randomize_va_space), not the 0 of norandmaps"
