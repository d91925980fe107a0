#!/bin/bash
# With -o dirsync writers, bhtune's batch_min_us changes what jbd2 does:
# handles per transaction in /proc/fs/jbd2/<dev>/info and the writers'
# throughput move, the bhtune:bhtune_batch tracepoint reports the change,
# and after reset the journal has its own values back and the figures
# leave the batched ones again (throughput, transactions). A journal is
# known by more than its name and address: after an umount and mount
# within one rescan period, whose own min_batch_time equals the override,
# reset leaves the new mount's values alone. The filesystem stays intact.
# vm-also: cloud
set -euo pipefail
. "$REPO/tests/lib/guest_bhtune.sh"
bht_need
bht_traps "echo 0 >$BHT_EV/bhtune_batch/enable 2>/dev/null"

bht_fs 48 dirsync
bht_load
info=/proc/fs/jbd2/${BHT_DEV#/dev/}-8/info
[[ -r $info ]] || fail "no $info"

# phase LABEL: a fresh journal (umount + mount: the info figures are
# cumulative since the journal was loaded), then 4 dirsync writers
# creating 60 empty files each. Sets FILES (files/s), HPT (handles per
# transaction) and TX (transactions). One directory per writer: creates
# in one directory serialise on its lock, which a batching writer holds
# while it sleeps, so nobody could join its transaction.
phase() {
	local d=$BHT_MNT/w
	umount "$BHT_MNT"
	mount -t ext4 -o dirsync "$BHT_DEV" "$BHT_MNT"
	if [[ -n ${2:-} ]]; then bht_set batch_max_us "$2"; bht_set batch_min_us "$3"; fi
	mkdir -p "$d"
	FILES=$(fs_mark -d "$d/a" -d "$d/b" -d "$d/c" -d "$d/d" -t 1 -n 60 -s 0 -S 0 -L 1 |
		awk '/^ *[0-9]/ {print int($4)}')
	TX=$(awk 'NR == 1 {print $1}' "$info")
	HPT=$(awk '/handles per transaction/ {print $1}' "$info")
	rm -rf "$d"
	printf '%-22s %8s files/s %6s transactions %5s handles/transaction\n' "$1" "$FILES" "$TX" "$HPT"
}

echo >"$BHT_TR/trace"
echo 1 >"$BHT_EV/bhtune_batch/enable"
phase "own (0/15000 us)"
f0=$FILES h0=$HPT t0=$TX
phase "batch_min_us=200000" 400000 200000
f1=$FILES h1=$HPT t1=$TX
bht_log_mark
bht_set reset 1
bht_log_since | grep -q 'min_batch_time 200000 -> 0 us, max_batch_time 400000 -> 15000 us' ||
	fail "reset did not put back the journal's own 0/15000 us: $(bht_log_since | grep bhtune)"
phase "after reset" # the module is still loaded: the fresh journal keeps its own
f2=$FILES h2=$HPT t2=$TX
echo 0 >"$BHT_EV/bhtune_batch/enable"
ev=$(grep bhtune_batch "$BHT_TR/trace")
grep -q 'min_batch_us 0 -> 200000 max_batch_us 400000 -> 400000' <<<"$ev" ||
	fail "no bhtune_batch event for the change: $ev"
grep -q 'min_batch_us 200000 -> 0 max_batch_us 400000 -> 15000' <<<"$ev" ||
	fail "no bhtune_batch event for the reset: $ev"

# Batching holds each sync writer back 200 ms so that others join its
# transaction: fewer transactions for the same 240 files than in either
# unbatched phase, and fewer files per second. (Under TCG commits are
# slow, so the filesystem's own 0/15000 us already batches some.) The
# info file prints handles per transaction truncated to an integer, so
# 2.9 reads 2: the transaction count is the exact measure, and the
# handles figure must merely not fall.
((f1 * 3 < f0 * 2)) || fail "files/s did not fall with batch_min_us=200000 ($f0 -> $f1)"
((t1 < t0 && t1 < t2 && h1 >= h0)) ||
	fail "no fuller transactions with batch_min_us=200000: $t0 -> $t1 -> $t2 transactions, $h0 -> $h1 -> $h2 handles each"
# After reset (the log and the event above show 0/15000 us written back):
# files/s well above the batched figure again (the unbatched figure itself
# swings 2x between runs under TCG), more transactions than batched (above)
# and none fuller than at the start, give or take the truncation. Not
# "as full as at the start": the journal's own batching waits for its
# average commit time, which TCG's pace sets (one run: 3 handles a
# transaction at the start, 1 after reset, the guest faster by then).
((f2 > 2 * f1)) || fail "files/s after reset $f2, batched $f1, started at $f0"
((h2 <= h0 + 1)) ||
	fail "after reset $t2 transactions of $h2 handles; started at $t0 of $h0, batched $t1 of $h1"

# The override on the journal (0 -> 1000 us), then at once another mount
# whose own min_batch_time is 1000: its journal_t often reuses the freed
# one's address. Taken for the old journal, its 1000 would look like
# bhtune's write and reset would put the old mount's 0 back.
bht_set batch_min_us 1000
umount "$BHT_MNT"
mount -t ext4 -o dirsync,min_batch_time=1000 "$BHT_DEV" "$BHT_MNT"
sleep 2 # a rescan
bht_log_mark
bht_set reset 1
if bht_log_since | grep -E 'journal ram0-8 .*min_batch_time 1000 -> 0 us'; then
	fail "reset gave the new mount the previous mount's min_batch_time"
fi
echo "quick umount and mount: reset left the new mount's own min_batch_time (1000 us) alone"
bht_unload
bht_verify
bht_no_leak
bht_log_clean
