#!/bin/bash
# vmshell.sh [SERIES] — boot the vmcheck guest for SERIES (default: KERNEL,
# else 6.1) with an interactive root shell on this terminal. The .prep hooks
# run first, so VM_OUT has what the tests use. Exit the shell to power off;
# Ctrl-A x kills QEMU. See tests/vm/harness/README.md.
set -euo pipefail

# shellcheck source=tests/vm/harness/lib.sh
. "$(dirname "$0")/lib.sh"

SERIES=${1:-${KERNEL:-6.1}} # SERIES+full: with preempt=full
VM_TESTS=${VM_TESTS:-}
VM_TEST_TIMEOUT=${VM_TEST_TIMEOUT:-300}

vm_need_tools
vm_lock
GUEST_APPEND=
export VM_GUEST_VARIANT=default
if [[ $SERIES == *+full ]]; then
	GUEST_APPEND=preempt=full
	VM_GUEST_VARIANT=full
fi
label=$SERIES
SERIES=${SERIES%+full}
vm_kernel "$SERIES" || vm_die "no kernel for $SERIES"
VM_CPUS=$(cpus_for "$SERIES")
VM_OUT=$VM_BUILD/$SERIES
mkdir -p "$VM_OUT" "$VM_BUILD/$label"
vm_preps || echo "vm: a .prep hook failed; booting anyway" >&2
SERIES=$label
RUN_OUT=$VM_BUILD/$label
vm_initramfs "$RUN_OUT"
echo "vm: $SERIES: $KVER, $VM_CPUS CPUs, $VM_MEM${GUEST_APPEND:+, $GUEST_APPEND}; Ctrl-A x quits QEMU" >&2
# mon:stdio: the console and the QEMU monitor (Ctrl-A c) share the terminal.
vm_qemu_cmd "$VM_CPUS" "bhvm_mode=shell" mon:stdio null
vm_virtiofsd	# exits itself when QEMU disconnects
exec "${QEMU[@]}"
