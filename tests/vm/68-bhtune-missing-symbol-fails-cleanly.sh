#!/bin/bash
# A kernel without a symbol bhtune needs makes the load fail with a
# message saying which symbol, and nothing else happens: a kernel-private
# data symbol (livepatch relocation) and a function to patch (livepatch
# itself) are tried, each with a copy of bhtune.ko renamed on the host.
# vm-also: cloud
set -euo pipefail
. "$REPO/tests/lib/guest_bhtune.sh"
bht_need
bht_traps
[[ -f $BHT_KO/bhtune-nosym.ko && -f $BHT_KO/bhtune-nofunc.ko ]] ||
	skip "broken copies not built (tests/vm/bhtune.prep)"

bht_fs 32
insmod "$BHT_KO/bhtune_events.ko"
bht_log_mark
if insmod "$BHT_KO/bhtune-nosym.ko" 2>err.txt; then
	fail "a bhtune.ko needing the missing symbol bh_lruz loaded"
fi
bht_log_since | grep -q "symbol 'bh_lruz' not found" ||
	fail "no message naming bh_lruz: $(bht_log_since)"
if insmod "$BHT_KO/bhtune-nofunc.ko" 2>err.txt; then
	fail "a bhtune.ko patching the missing invalidate_bh_lrus_cpz loaded"
fi
bht_log_since | grep -q "invalidate_bh_lrus_cpz" ||
	fail "no message naming invalidate_bh_lrus_cpz: $(bht_log_since)"
bht_log_since | grep -q "bhtune: livepatch failed" || fail "bhtune did not say why it failed"
! bht_loaded || fail "bhtune is loaded"
[[ ! -e $BHT_LP ]] || fail "a livepatch was left behind"
bht_log_since | grep -E 'livepatch|bhtune'
bht_verify
bht_no_leak
# the failures above, and only those
bht_log_clean "livepatch: symbol 'bh_lruz' not found|livepatch: .*invalidate_bh_lrus_cpz|livepatch: failed to (enable|patch)|bhtune: livepatch failed"
