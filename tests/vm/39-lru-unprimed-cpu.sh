#!/bin/bash
# A CPU that comes online after bhscope lru attached was never shown to the
# probe: its first lookups must still be classified from what its LRU
# really holds, and a lookup that returns nothing is absent, never a hit.
# Here CPU 1 is offline while the tracer starts; once back, it lists a
# directory whose blocks left the page cache with a remount (the first
# lookups return NULL), then lists it again (hits). The kernel's own hit count on
# that CPU (block:block_touch_buffer) and a separate count of the lookups
# (tests/vm/bpf-count/oracle.*) must match bhscope's exactly. For fentry
# and kprobe hooks.
set -euo pipefail
# shellcheck source=tests/lib/guest.sh
. "$REPO/tests/lib/guest.sh"
# shellcheck source=tests/lib/guest_lru.sh
. "$REPO/tests/lib/guest_lru.sh"

K=8
bin=$VM_OUT/bpf-count
lru_need_tools
[[ -x $bin/bhvm-oracle ]] || fail "$bin/bhvm-oracle missing: bpf-count.prep did not run"
online=/sys/devices/system/cpu/cpu$LRU_CPU/online
[[ -w $online ]] || skip "CPU $LRU_CPU cannot be taken offline here"
lru_ext4 "$PWD/mnt"
trap 'echo 1 >"$online" 2>/dev/null; lru_cleanup' EXIT
lru_dir "$PWD/mnt/d" $K
kdev=$(((0x$(stat -c %t /dev/$LRU_DEV) << 20) | 0x$(stat -c %T /dev/$LRU_DEV)))
func=$(bh_lookup_func)

for hook in fentry kprobe; do
	sync
	[[ $(cat "$online") == 0 ]] || echo 0 >"$online"
	lru_start "$hook.json" -C -d $LRU_DEV --hook $hook 3600 1
	"$bin/bhvm-oracle" "$bin/oracle.bpf.o" fentry $kdev "$func" \
		>"$hook.oracle" 2>"$hook.oracle.err" &
	oracle=$!
	LRU_PIDS="$LRU_PIDS $oracle"
	for _ in $(seq 300); do
		grep -q ready "$hook.oracle.err" && break
		sleep 0.1
	done
	echo 1 >"$online"
	# the directory's blocks leave the page cache: the last close of the
	# device drops it (a flush would not: the journal holds them)
	umount "$PWD/mnt"
	taskset -c 0 mount -t ext4 -o noatime /dev/$LRU_DEV "$PWD/mnt"
	lru_list "$PWD/mnt/d" 3
	# the mount's journal commit now, inside both counts' windows, not
	# when the commit timer fires between the oracle's end and bhscope's
	sync
	# and both windows end together for the CPU: it goes offline again
	# (its counts stay in the per-CPU maps) before either count stops
	echo 0 >"$online"
	kill -INT $oracle
	wait $oracle || fail "oracle: $(cat "$hook.oracle.err")"
	lru_stop "$hook.json"
	cpu=$(lru_cpu "$hook.json")
	both=$(jq -c -n --argjson l "$cpu" --argjson o "$(cat "$hook.oracle")" \
		'{lookups: $l.lookups, hits: $l.hits, absent: $l.absent,
		  unsynced: $l.unsynced, calls: $o.calls['$LRU_CPU'],
		  touches: $o.touches['$LRU_CPU'], misses: $o.misses}')
	echo "$hook, CPU $LRU_CPU: $both"
	lru_check "$hook: a lookup that returned nothing on the new CPU is absent" \
		'.absent >= 1' "$both"
	lru_check "$hook: hits on the new CPU are exactly the kernel's" \
		'.misses == 0 and .hits == .touches and .unsynced == 0' "$both"
	lru_check "$hook: every lookup on it is counted" \
		'.lookups == .calls' "$both"
done
