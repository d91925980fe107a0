#!/bin/bash
# bhtune loads and unloads while a BPF program is attached to the lookup
# it patches and detached again, over and over (bhvm-churn), as a tracer's
# windows are (bhscope serve --lru-duty: CI's 6.1 guest once failed 52's
# insmod that way). The livepatch core answers EAGAIN when it meets the
# BPF trampoline being changed (bpf_tramp_ftrace_ops_func() only trylocks
# it); bhtune tries again (kmod/bhtune_patch.c). Every load must succeed
# and take the LRU over, the kernel log must show nothing but the tries
# bhtune made again, and the churn loops must live to the end.
#
# The loads must meet the busy trampoline at least once, or the test shows
# nothing. One loop on the 6.1 guest made 44 cycles in 20 s and one load
# in three met it; a loop on each CPU, pinned, keeps the trampoline's
# mutex held nearly all the time, one loop waiting for it while the other
# holds it, so that bhtune's tries can go on failing for its 10 s (once on
# a busy host). So the loops churn through the first CHURN_S seconds of
# each load (2), then stop (SIGSTOP: never inside the system call that
# holds the mutex) until the load is over, as a tracer's windows open and
# close, then go on through the unload. BHT_CYCLES loads, 3 by default;
# on 6.12 a load and unload take about 25 s under TCG.
# vm-timeout: 600
set -euo pipefail
. "$REPO/tests/lib/guest_bhtune.sh"
bht_need
bin=$VM_OUT/bpf-count
[[ -x $bin/bhvm-churn ]] || fail "$bin/bhvm-churn missing: bpf-count.prep did not run"

churns=
churn_stop() { # runs in the EXIT trap: never fails
	local pid
	for pid in $churns; do
		kill -CONT "$pid" 2>/dev/null || true
		kill -TERM "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	churns=
}
churning() { # every loop still runs
	local pid
	for pid in $churns; do
		kill -0 "$pid" 2>/dev/null || return 1
	done
}
churn_signal() { # SIGNAL: to every loop
	local pid
	for pid in $churns; do
		kill "-$1" "$pid" || fail "bhvm-churn $pid is gone"
	done
}
bht_traps churn_stop

cycles=${BHT_CYCLES:-3}
func=$(bh_lookup_func)
bht_fs 16
for ((cpu = 0; cpu < $(nproc); cpu++)); do
	taskset -c "$cpu" "$bin/bhvm-churn" "$bin/count.bpf.o" "$func" >"churn$cpu.log" 2>&1 &
	churns+=" $!"
done
sleep 1
churning || fail "bhvm-churn stopped: $(cat churn*.log)"

for ((c = 1; c <= cycles; c++)); do
	before=$(bht_retried_tries)
	(bht_load) &
	loader=$!
	sleep "${CHURN_S:-2}"
	churn_signal STOP
	wait "$loader" || fail "load $c failed"
	churn_signal CONT
	# lookups through the patch: bhtune's LRU fills, the kernel's stays
	# empty. Files created (bitmaps, inode table) and inodes read again
	# from their blocks: cached pages and inodes alone look nothing up.
	bht_keep "load$c" 4
	echo 2 >/proc/sys/vm/drop_caches
	ls -lR "$BHT_MNT" >/dev/null
	owned=$(bht_p lru_entries)
	kernel=$(bht_p kernel_lru_entries)
	((owned > 0 && kernel == 0)) ||
		fail "load $c: bhtune's LRU holds $owned entries, the kernel's $kernel"
	echo "load $c: $(($(bht_retried_tries) - before)) tries answered EAGAIN and tried again; bhtune owns the LRU ($owned entries)"
	churning || fail "bhvm-churn stopped during load $c: $(cat churn*.log)"
	bht_unload
	progress "cycle $c"
done
retried=$(bht_retried_tries)
churn_stop
for log in churn*.log; do
	grep -qE '^[0-9]+ attach/detach cycles$' "$log" || fail "bhvm-churn: $(cat "$log")"
	echo "bhvm-churn on $func, ${log%.log}: $(cat "$log")"
done
((retried > 0)) ||
	fail "no load met the trampoline being changed (no try answered EAGAIN): the test showed nothing"
echo "ok: $cycles loads beside a BPF program attached and detached on $func: all succeeded, $retried tries answered EAGAIN and were tried again"

bht_log_clean
bht_verify
