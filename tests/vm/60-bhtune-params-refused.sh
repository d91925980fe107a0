#!/bin/bash
# bhtune's parameters refuse out-of-range values with EINVAL and change
# nothing: a batch_min_us above the max of a journal it would apply to
# (that journal's own max when batch_max_us is -1), and a batch_dev with no
# journal, included; accepted changes are logged once with the old and new
# value, a reset that changes nothing logs nothing; every parameter has
# the agreed permissions and refuses a write from a non-root user; the
# tracepoints have the agreed fields; the filesystem is untouched.
# vm-also: cloud
set -euo pipefail
. "$REPO/tests/lib/guest_bhtune.sh"
bht_need
bht_traps

bht_fs 48
bht_load

refused() { # NAME VALUE: the write fails and NAME keeps its value
	local before after
	before=$(bht_p "$1")
	if echo "$2" >"$BHT_P/$1" 2>/dev/null; then
		fail "$1=$2 was accepted"
	fi
	after=$(bht_p "$1")
	[[ $after == "$before" ]] || fail "$1 changed from '$before' to '$after' on a refused write"
}

# Every parameter, its mode, and nothing else: writable by root only,
# state read-only, reset write-only.
want="batch_dev 644 batch_max_us 644 batch_min_us 644 kernel_lru_entries 444 lru_entries 444 lru_size 644 reset 200 "
got=$(cd "$BHT_P" && stat -c '%n %a' -- * | sort | tr '\n' ' ')
[[ $got == "$want" ]] || fail "parameters and modes: '$got', want '$want'"
for p in batch_dev batch_max_us batch_min_us lru_size reset; do
	if setpriv --reuid=65534 --regid=65534 --clear-groups sh -c "echo 1 >$BHT_P/$p" 2>/dev/null; then
		fail "a non-root user could write $p"
	fi
done

bht_log_mark
bht_set reset 1 # nothing overridden: nothing to put back, nothing to log
for v in 65 100 -1 abc "" 1.5 4294967296; do refused lru_size "$v"; done
for v in -2 1000001 2147483648 4294967297 -2147483649 x; do
	refused batch_min_us "$v"
	refused batch_max_us "$v"
done
for v in x 1: :1 1:2:3 0:0 4096:0 "8 0"; do refused batch_dev "$v"; done
refused batch_dev 1:5  # brd made ram0 only: no journal there
refused batch_dev 7:99 # nor on a loop device that does not exist
# With batch_max_us -1 the max is each journal's own: 15000 us here.
refused batch_min_us 50000
bht_log_since | grep -q 'bhtune: refused: journal ram0-8 (1:0) would get min_batch_time 50000 us above max_batch_time 15000 us (its own)' ||
	fail "the refusal of batch_min_us=50000 does not name the journal: $(bht_log_since | grep bhtune)"
bht_log_since | grep -q 'bhtune: refused: batch_dev 1:5 has no ext4 journal' ||
	fail "the refusal of batch_dev=1:5 is not logged"
if bht_log_since | grep -q 'bhtune: reset'; then
	fail "a reset that changed nothing was logged"
fi
bht_set batch_max_us 1000
refused batch_min_us 2000 # min > max: jbd2 would silently let max win
echo 0 >"$BHT_P/reset" 2>/dev/null && fail "reset=0 was accepted"

bht_log_mark
bht_set lru_size 0
bht_set lru_size 64
bht_set lru_size 64 # no change: no log line
bht_set batch_dev 1:0
bht_set reset 1
log=$(bht_log_since | grep 'bhtune: ' || true)
echo "$log"
[[ $(grep -c 'lru_size 16 -> 0' <<<"$log") == 1 ]] || fail "lru_size 16 -> 0 not logged once"
[[ $(grep -c 'lru_size 0 -> 64' <<<"$log") == 1 ]] || fail "lru_size 0 -> 64 not logged once"
[[ $(grep -c 'lru_size' <<<"$log") == 2 ]] || fail "an unchanged lru_size was logged"
grep -q 'batch_dev 0:0 -> 1:0' <<<"$log" || fail "batch_dev change not logged"
grep -q 'reset: batch_min_us -1 -> -1, batch_max_us 1000 -> -1' <<<"$log" || fail "reset not logged"
[[ $(bht_p batch_max_us) == -1 && $(bht_p batch_dev) == 1:0 ]] || fail "reset left batch_max_us=$(bht_p batch_max_us)"

# The agreed tracepoint layout (kmod/README.md), in this order.
want="dev_t dev;sector_t block;u32 size;s32 slot;u8 found;u8 installed;u32 lru_size;dev_t evict_dev;sector_t evict_block;u32 evict_size;"
got=$(awk -F'\t' '/field:/ && !/common_/ {sub(/^field:/, "", $2); printf "%s", $2}' "$BHT_EV/bhtune_lookup/format")
[[ $got == "$want" ]] || fail "bhtune_lookup fields: $got"
got=$(awk -F'\t' '/field:/ && !/common_/ {sub(/^field:/, "", $2); printf "%s", $2}' "$BHT_EV/bhtune_invalidate/format")
[[ $got == "u32 cpu;u32 dropped;u32 reason;" ]] || fail "bhtune_invalidate fields: $got"
got=$(awk -F'\t' '/field:/ && !/common_/ {sub(/^field:/, "", $2); printf "%s", $2}' "$BHT_EV/bhtune_batch/format")
[[ $got == "dev_t dev;s32 old_min;s32 old_max;s32 new_min;s32 new_max;" ]] || fail "bhtune_batch fields: $got"

bht_unload
bht_verify
bht_no_leak
bht_log_clean
echo "out-of-range values refused, changes logged once, permissions and tracepoint formats as agreed"
