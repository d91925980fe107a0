#!/bin/bash
# bhtune loads and unloads over and over while lookups are in flight on
# every CPU: each time it takes the LRU over (the kernel's own LRU then
# stays empty, so no lookup bypasses the patch) and hands it back. Some
# cycles reverse a transition half-way: the patching one (disabled while it
# runs: bhtune never owns the LRU) and the unpatching one (enabled again
# while it runs: bhtune takes the LRU back); where that cannot be caught
# (bht_reversal_catchable: 6.12 under TCG), those are plain cycles. It runs on the full-preemption
# guests too, where a task can be preempted anywhere in bhtune's code.
# Afterwards the files written during the cycles read back after a
# remount, e2fsck -fn is clean, and no buffer_head reference is left.
#
# Time: a cycle is two livepatch transitions: about 5 s on 6.1, 25 s on
# 6.12 under single-threaded TCG (6.12's livepatch core rewrites every
# cond_resched() call site at the start and end of each transition). The
# test cycles for BHT_BUDGET seconds (25) and at least BHT_MIN_CYCLES
# times (3: each kind of cycle once, or three plain cycles where no
# reversal can be caught), sends a note to the host after each
# cycle, and fails if the minimum does not fit in VM_TEST_TIMEOUT. Whether
# a reversal catches its transition still running is a race (the first try
# at completing it often succeeds under load), so where it can be caught,
# a kind of reversal that has caught none by then is tried again until one
# does or VM_TEST_TIMEOUT runs short (6.1-cloud once caught no unpatching
# one in 3 tries). Seven guests run it in `make check`, so 25 s make about
# 25 cycles there in all, each kind of reversal caught on every guest
# where it can be.
# vm-timeout: 900
# vm-also: full rt cloud
set -euo pipefail
. "$REPO/tests/lib/guest_bhtune.sh"
bht_need
bht_traps

budget=${BHT_BUDGET:-25}
catchable=0
bht_reversal_catchable && catchable=1
min=${BHT_MIN_CYCLES:-3}
stop_at=$((${VM_TEST_TIMEOUT:-300} - 90)) # the checks after need up to a minute
bht_fs 48
bht_load_start "$BHT_MNT/load"
start=$SECONDS

# owned N: bhtune owns the LRU and the kernel's own holds nothing.
owned() {
	local k
	sleep 0.2
	k=$(bht_p kernel_lru_entries)
	((k == 0)) || fail "cycle $1: the kernel's own LRU holds $k entries while bhtune owns it"
	held=$((held + $(bht_p lru_entries)))
}

wait_settled() { # the transition completed (or the patch is gone)
	local i
	for ((i = 0; i < 600; i++)); do
		[[ -e $BHT_LP && $(cat "$BHT_LP/transition" 2>/dev/null) == 1 ]] || return 0
		sleep 0.1
	done
	fail "livepatch transition still running after 60 s"
}

# uncaught_kind: the kind of reversal (2 patching, 0 unpatching) that can be
# caught here and has caught none yet.
uncaught_kind() {
	((catchable)) || return 1
	((rev_patch > 0)) || { echo 2; return 0; }
	((rev_unpatch > 0)) || { echo 0; return 0; }
	return 1
}

held=0 rev_patch=0 rev_unpatch=0 i=0
while :; do
	elapsed=$((SECONDS - start))
	kind=$(((i + 1) % 3))
	if ((i >= min && elapsed >= budget)); then
		kind=$(uncaught_kind) || break
	fi
	((i > 0)) && per=$((elapsed / i)) || per=30
	if ((SECONDS + per > stop_at)); then
		echo "stopping after $i cycles: $per s per cycle, VM_TEST_TIMEOUT=${VM_TEST_TIMEOUT:-300}"
		break
	fi
	i=$((i + 1))
	bht_log_mark
	case $kind in
	1) # plain load and unload
		bht_load
		owned "$i"
		bht_unload
		;;
	2) # patching reversed half-way: disable while the transition runs
		grep -q '^bhtune_events ' /proc/modules || insmod "$BHT_KO/bhtune_events.ko"
		bht_reverse_insmod "$BHT_KO/bhtune.ko" "$BHT_LP"
		bht_wait_gone
		rmmod bhtune || fail "cycle $i: rmmod bhtune"
		bht_log_since | grep -q 'bhtune: owns the buffer-head LRU' || rev_patch=$((rev_patch + 1))
		;;
	0) # unpatching reversed half-way: enable again while it runs
		bht_load
		owned "$i"
		bht_log_mark
		echo 0 >"$BHT_LP/enabled" || fail "cycle $i: cannot disable"
		if { echo 1 >"$BHT_LP/enabled"; } 2>/dev/null; then
			wait_settled
			[[ $(cat "$BHT_LP/enabled") == 1 ]] || fail "cycle $i: unpatching reversed, yet the patch is not enabled"
			bht_log_since | grep -q 'bhtune: owns the buffer-head LRU now' ||
				fail "cycle $i: unpatching reversed, but bhtune did not take the LRU back"
			rev_unpatch=$((rev_unpatch + 1))
			owned "$i"
			bht_unload
		else
			bht_wait_gone
			rmmod bhtune || fail "cycle $i: rmmod bhtune"
		fi
		;;
	esac
	progress "cycle $i"
done
bht_load_stop
model=$(sed -n 's/.*(\([a-z]*\)).*/\1/p' /sys/kernel/debug/sched/preempt 2>/dev/null || true)
echo "$i load/unload cycles under load in $((SECONDS - start)) s, ${model:-unknown} preemption; reversed half-way: $rev_patch patching, $rev_unpatch unpatching; the module's LRUs held $held entries in all at the checks"
((i >= min)) || fail "only $i of at least $min cycles fit in VM_TEST_TIMEOUT=${VM_TEST_TIMEOUT:-300}"
((held > 0)) || fail "the module's LRU never held anything under load"
if ((catchable)); then
	((rev_patch > 0 && rev_unpatch > 0)) ||
		fail "no cycle caught a transition half-way to reverse it (patching $rev_patch, unpatching $rev_unpatch)"
fi
bht_verify
bht_no_leak
bht_log_clean
