#!/bin/bash
# A probe on the buffer-head lookup attaches and counts the calls made by
# ext4 metadata work: __find_get_block on 6.1, find_get_block_common on
# kernels with the 6.15 lookup API (where __find_get_block must still
# attach). Once as an fentry program (BTF target from the guest's vmlinux
# BTF), once as a kprobe.
# vm-modes: fentry kprobe
# vm-also: cloud
set -euo pipefail
# shellcheck source=tests/lib/guest.sh
. "$REPO/tests/lib/guest.sh"

mode=${VM_MODE:-}
[[ $mode == fentry || $mode == kprobe ]] || fail "VM_MODE is '$mode', want fentry or kprobe"
bin=$VM_OUT/bpf-count
[[ -x $bin/bhvm-count ]] || fail "$bin/bhvm-count missing: bpf-count.prep did not run"
in_kallsyms __find_get_block || fail "__find_get_block not in kallsyms"
lookup=$(bh_lookup_func)

mnt=/mnt/ram0 # short: fs_mark wants directory names under 40 bytes
ramdisk_ext4 "$mnt" 32
if [[ $lookup != __find_get_block ]]; then
	BHVM_COUNT_MIN=0 "$bin/bhvm-count" "$bin/count.bpf.o" "$mode" __find_get_block true
fi
"$bin/bhvm-count" "$bin/count.bpf.o" "$mode" "$lookup" \
	fs_mark -d "$mnt/w" -t 1 -n 100 -s 0 -S 1 -L 1
