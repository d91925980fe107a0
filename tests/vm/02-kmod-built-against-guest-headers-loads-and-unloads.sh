#!/bin/bash
# An out-of-tree module built on the host against this kernel's Debian
# headers (kmod-hello.prep) loads, shows its parameter, and unloads cleanly.
# vm-also: cloud
set -euo pipefail
# shellcheck source=tests/lib/guest.sh
. "$REPO/tests/lib/guest.sh"

ko=$VM_OUT/kmod-hello/bhvm_hello.ko
[[ -f $ko ]] || fail "$ko missing: kmod-hello.prep did not run"

insmod "$ko" magic=77
trap 'rmmod bhvm_hello 2>/dev/null || true' EXIT
[[ -d /sys/module/bhvm_hello ]] || fail "/sys/module/bhvm_hello missing after insmod"
got=$(cat /sys/module/bhvm_hello/parameters/magic)
[[ $got == 77 ]] || fail "parameter magic reads $got, expected 77"
dmesg | grep -q "bhvm_hello: loaded on $KVER, magic 77" ||
	fail "no load message in dmesg"

rmmod bhvm_hello
[[ ! -e /sys/module/bhvm_hello ]] || fail "/sys/module/bhvm_hello still there after rmmod"
dmesg | grep -q 'bhvm_hello: unloaded' || fail "no unload message in dmesg"
echo "loaded with magic=$got and unloaded"
