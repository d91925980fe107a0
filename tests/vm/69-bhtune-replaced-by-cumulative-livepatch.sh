#!/bin/bash
# Another livepatch that replaces all others (replace=true) disables
# bhtune without running its callbacks, which alone empty bhtune's LRU.
# bhtune declares a livepatch system state for that: a cumulative patch
# that does not declare it is refused while bhtune is loaded, and bhtune
# goes on owning the LRU; one that declares it takes the LRU over in its
# pre_patch callback (bhtune stops using its LRU and empties it), and once
# it has replaced bhtune the kernel's own LRU is in use again and bhtune
# unloads with nothing left. Reverted half-way (a task sleeping in pause(2),
# which the cumulative patch also replaces, holds its transition open), it
# gives bhtune the LRU back; where a transition cannot be caught half-way
# (bht_reversal_catchable: 6.12 under TCG) that part is not tried.
# The files written meanwhile read back after a remount, e2fsck -fn is
# clean, and no buffer_head reference is left.
# vm-also: full cloud
set -euo pipefail
. "$REPO/tests/lib/guest_bhtune.sh"
bht_need
CUM=$BHT_KO/cumulative/bhtune_cumulative.ko
CUM_LP=/sys/kernel/livepatch/bhtune_cumulative
[[ -f $CUM ]] || skip "bhtune_cumulative.ko is not built (tests/vm/bhtune.prep)"
cum_gone() { # the cumulative patch disabled and its module removed
	local i
	[[ -e $CUM_LP/enabled && $(cat "$CUM_LP/enabled") == 1 ]] && echo 0 >"$CUM_LP/enabled"
	for ((i = 0; i < 600; i++)); do
		[[ -e $CUM_LP ]] || break
		sleep 0.1
	done
	! grep -q '^bhtune_cumulative ' /proc/modules || rmmod bhtune_cumulative
}
bht_traps 'cum_gone 2>/dev/null'

settle() { # PATCH-DIR: until its transition completed or it is gone
	local i
	for ((i = 0; i < 600; i++)); do
		[[ -e $1 && $(cat "$1/transition" 2>/dev/null) == 1 ]] || return 0
		sleep 0.1
	done
	fail "${1##*/}: transition still running after 60 s"
}
owned() { # WHEN: bhtune owns the LRU: it holds entries, the kernel's none
	local n k
	sleep 1
	n=$(bht_p lru_entries) k=$(bht_p kernel_lru_entries)
	echo "$1: bhtune's LRU $n entries, the kernel's $k"
	((n > 0 && k == 0)) || fail "$1: bhtune does not own the LRU ($n entries, the kernel's $k)"
}

bht_fs 48
bht_load
bht_load_start "$BHT_MNT/load"
cmdline=$(cat /proc/cmdline)
owned "loaded"

# 1. A cumulative patch that knows nothing of bhtune's state: refused.
bht_log_mark
if insmod "$CUM" 2>err.txt; then
	fail "a cumulative livepatch without bhtune's state replaced bhtune"
fi
bht_log_since | grep -q 'livepatch: Livepatch patch (bhtune_cumulative) is not compatible' ||
	fail "no 'not compatible' refusal in the kernel log: $(bht_log_since)"
[[ $(cat "$BHT_LP/enabled") == 1 && $(cat /proc/cmdline) == "$cmdline" ]] ||
	fail "the refused patch changed something"
owned "after the refused replacement"

# 2. One that declares it replaces bhtune: bhtune's patch goes, its LRU is
# empty, the kernel's LRU is used again, rmmod bhtune is clean.
bht_log_mark
insmod "$CUM" take_over=1 || fail "insmod bhtune_cumulative.ko take_over=1"
settle "$CUM_LP"
bht_wait_gone
[[ $(cat /proc/cmdline) == bhtune_cumulative ]] || fail "the cumulative patch is not in force"
bht_log_since | grep -q "bhtune: a cumulative livepatch takes over" ||
	fail "bhtune was not told of its replacement: $(bht_log_since | grep -E 'bhtune|livepatch')"
sleep 1
n=$(bht_p lru_entries) k=$(bht_p kernel_lru_entries)
echo "replaced: bhtune's LRU $n entries, the kernel's $k"
((n == 0)) || fail "bhtune's LRU holds $n entries after it was replaced"
((k > 0)) || fail "the kernel's own LRU is not in use after bhtune was replaced"
rmmod bhtune || fail "rmmod bhtune after its replacement"
cum_gone
[[ $(cat /proc/cmdline) == "$cmdline" ]] || fail "/proc/cmdline is still patched"

# 3. The replacement reverted while its patching transition runs: bhtune
# gets the LRU back from the replacement's post_unpatch. A task asleep in
# pause(2) keeps that transition from completing meanwhile.
bht_load
owned "loaded again"
if bht_reversal_catchable; then
	python3 -c 'import signal; signal.pause()' &
	pauser=$!
	nr=
	# asleep in pause(2) (x86-64 syscall 34) before the patch starts:
	# python takes seconds to start under TCG
	for ((i = 0; i < 600; i++)); do
		read -r nr _ <"/proc/$pauser/syscall" && [[ $nr == 34 ]] && break
		sleep 0.1
	done
	[[ $nr == 34 ]] || fail "the pausing task is not in pause(2) after 60 s (syscall $nr)"
	bht_log_mark
	bht_reverse_insmod "$CUM" "$CUM_LP" take_over=1
	settle "$CUM_LP"
	kill "$pauser"
	wait "$pauser" || true
	bht_log_since | grep -q 'reverted: bhtune.s LRU taken back' ||
		fail "the replacement's patching was not reversed, or bhtune did not get the LRU back: $(bht_log_since | grep -E 'bhtune|livepatch')"
	[[ -e $BHT_LP && $(cat "$BHT_LP/enabled") == 1 ]] || fail "bhtune's patch is gone after the replacement was reverted"
	owned "after the reverted replacement"
	echo "the replacement, reverted half-way, gave the LRU back"
else
	echo "the reverted replacement is not tried: this kernel's transition is over before the write that starts it returns (bht_reversal_catchable)"
fi
cum_gone
bht_unload
bht_load_stop
bht_verify
bht_no_leak
bht_log_clean 'livepatch: Livepatch patch \(bhtune_cumulative\) is not compatible'
