#!/bin/bash
# The guest runs the kernel vmcheck fetched, with the CPUs it was asked for.
set -euo pipefail
# shellcheck source=tests/lib/guest.sh
. "$REPO/tests/lib/guest.sh"

echo "uname -r: $(uname -r), CPUs online: $(nproc), asked for: $VM_CPUS"
[[ $(uname -r) == "$KVER" ]] || fail "running $(uname -r), expected $KVER"
[[ $(nproc) == "$VM_CPUS" ]] || fail "$(nproc) CPUs online, expected $VM_CPUS"
