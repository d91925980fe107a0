#!/bin/bash
# Without a kernel config to read (the guest has no /proc/config.gz, and
# its /boot is the host's), bhscope measures HZ from /proc/timer_list's
# jiffies. Beside CPU hogs on every CPU, under full preemption where the
# kernel allows the switch, `bhscope jbd2` must still find the HZ the
# guest's kernel was built with: CONFIG_HZ from the kernel package's own
# config in the host's kernel cache, which bhscope never reads.
set -euo pipefail
# shellcheck source=tests/lib/guest.sh
. "$REPO/tests/lib/guest.sh"

RUNS=${HZ_RUNS:-2}
config=$(realpath -m "$MODDIR/../../../boot/config-$KVER")
[[ -r $config ]] || skip "no kernel config beside the guest's modules ($config)"
want=$(sed -n 's/^CONFIG_HZ=//p' "$config")
[[ -n $want ]] || fail "$config has no CONFIG_HZ"
[[ ! -e /proc/config.gz && ! -e /boot/config-$KVER ]] ||
	skip "this guest has a config bhscope would read: nothing is measured"

preempt=/sys/kernel/debug/sched/preempt
hogs=()
restore() {
	((${#hogs[@]} == 0)) || kill "${hogs[@]}" 2>/dev/null || true
	[[ -n ${initial_model:-} ]] && echo "$initial_model" >$preempt 2>/dev/null
	ramdisk_cleanup "$PWD/mnt"
}
ramdisk_ext4 "$PWD/mnt" 32
trap restore EXIT
if [[ -w $preempt ]]; then
	initial_model=$(grep -o '([a-z]*)' $preempt | tr -d '()')
	echo full >$preempt
fi
for ((i = 0; i < $(nproc); i++)); do
	(while :; do :; done) &
	hogs+=($!)
done

for ((r = 1; r <= RUNS; r++)); do
	echo "run $r" >"mnt/f$r" && sync
	out=$("$REPO/build/bhscope" jbd2 -j -d ram0 1 1 2>jbd2.err) ||
		fail "bhscope jbd2 failed beside the hogs: $(cat jbd2.err)"
	got=$(jq -r .hz <<<"$out" | tail -n 1)
	[[ $got == "$want" ]] ||
		fail "run $r: bhscope measured HZ $got, the kernel's config says $want"
done
echo "PASS: HZ $want measured in each of $RUNS runs beside ${#hogs[@]} CPU hogs (preemption: $(cat $preempt 2>/dev/null || echo unknown))"
