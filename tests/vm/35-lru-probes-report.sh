#!/bin/bash
# bhscope lru --probes names the hook of every figure on this kernel: the
# lookup function kallsyms has (find_get_block_common where it exists, else
# __find_get_block), fentry first (kprobes under full preemption, saying
# why), kprobes when forced, and says why the install counter is missing
# (bh_lru_install is inlined).
set -euo pipefail
# shellcheck source=tests/lib/guest.sh
. "$REPO/tests/lib/guest.sh"
# shellcheck source=tests/lib/guest_lru.sh
. "$REPO/tests/lib/guest_lru.sh"

lru_need_tools
if in_kallsyms find_get_block_common; then
	func=find_get_block_common
else
	func=__find_get_block
fi
"$LRU_BHSCOPE" lru --probes
p=$("$LRU_BHSCOPE" lru --probes -j)
hook=fentry
if grep -q '(full)' /sys/kernel/debug/sched/preempt 2>/dev/null; then
	# fentry programs run preemptible there and would lose lookups
	hook=kprobe
	lru_check "full preemption: kprobes, and why not fentry" \
		'.mode == "kprobe" and (.modes.fentry | test("full preemption"))' "$p"
	lru_check "kprobes are used on $func" \
		".figures.lookups.source == \"kprobe+kretprobe $func\"" "$p"
elif [[ ${BHSCOPE_LRU_DEFERRED:-} == 1 ]]; then
	# asked for (VM_LRU_DEFERRED=1): one fentry program, and it says so
	lru_check "fentry is used on $func, deferred" \
		".mode == \"fentry\" and (.figures.lookups.source |
		 test(\"^fentry $func alone, deferred \\\\((none|voluntary) preemption\"))" "$p"
elif [[ $func == __find_get_block ]]; then
	# it never sleeps: under voluntary preemption (Debian's default) its
	# exit proves it alone (tests/vm/40-lru-preempt-switch.sh)
	lru_check "fentry is used on $func, its exit alone" \
		".mode == \"fentry\" and (.figures.lookups.source |
		 test(\"^fexit $func alone \\\\((none|voluntary) preemption\"))" "$p"
else
	lru_check "fentry is used on $func" \
		".mode == \"fentry\" and .figures.lookups.source == \"fentry+fexit $func\"" "$p"
fi
lru_check "the LRU size comes from BTF" \
	'.lru_size == 16 and (.figures.lru_size.source | test("BTF"))' "$p"
lru_check "hit slots, misses, evictions and the curve are available" \
	'[.figures | .slots, .misses, .evictions, .whatif | .available] == [true, true, true, false]
	 and (.figures.whatif.reason | test("--whatif"))' "$p"
if in_kallsyms invalidate_bh_lrus; then
	lru_check "invalidations are hooked" \
		".figures.invalidations.source | test(\"$hook invalidate_bh_lrus\")" "$p"
fi
if ! in_kallsyms bh_lru_install; then
	lru_check "the missing install counter says why" \
		'.figures.install_calls.available == false and
		 (.figures.install_calls.reason | test("not a symbol"))' "$p"
fi
p=$("$LRU_BHSCOPE" lru --probes -j --hook kprobe)
lru_check "--hook kprobe uses kprobes, and says fentry was not tried" \
	".mode == \"kprobe\" and .modes.fentry == \"not tried\" and
	 .figures.lookups.source == \"kprobe+kretprobe $func\"" "$p"
