#!/bin/bash
# The guest has no kernel config bhscope could read (no /proc/config.gz,
# and its /boot is the host's). `bhscope jbd2` must still report the HZ the
# guest's kernel was built with: CONFIG_HZ from the kernel package's own
# config in the host's kernel cache, which bhscope never reads. bhscope
# takes it from the coarse clock's resolution, one tick.
# vm-also: cloud
set -euo pipefail
# shellcheck source=tests/lib/guest.sh
. "$REPO/tests/lib/guest.sh"

config=$(realpath -m "$MODDIR/../../../boot/config-$KVER")
[[ -r $config ]] || skip "no kernel config beside the guest's modules ($config)"
want=$(sed -n 's/^CONFIG_HZ=//p' "$config")
[[ -n $want ]] || fail "$config has no CONFIG_HZ"
[[ ! -e /proc/config.gz && ! -e /boot/config-$KVER ]] ||
	skip "this guest has a config bhscope would read: the clock is not what is tested"

trap 'ramdisk_cleanup "$PWD/mnt"' EXIT
ramdisk_ext4 "$PWD/mnt" 32
echo data >mnt/f && sync
out=$("$REPO/build/bhscope" jbd2 -j -d ram0 1 1 2>jbd2.err) ||
	fail "bhscope jbd2 failed: $(cat jbd2.err)"
got=$(jq -r .hz <<<"$out" | tail -n 1)
[[ $got == "$want" ]] ||
	fail "bhscope jbd2 reports HZ $got, the kernel package's config says $want"
echo "PASS: HZ $want without a kernel config to read"
