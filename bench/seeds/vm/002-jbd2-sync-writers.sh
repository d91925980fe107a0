#!/bin/bash
# make seeds, seed 002: synchronous writers (bhbench sync: create, write
# 4 KiB, fsync, as fs_mark) with 1, 2, 4, 8 and 16 threads on a dirsync
# ext4 (plain fsync takes no sync handle in ext4, so only a sync mount
# makes jbd2 sleep to batch), on a RAM disk (brd) and on a slow device
# (null_blk, memory-backed, each request completing after
# SEEDS_NULLB_DELAY_US), with jbd2's adaptive batching (ext4's defaults:
# min_batch_time 0, max_batch_time 15000 us) and with the fixed sleep of
# one jiffy (min = max = one tick). Each cell is one `bhscope record
# --jbd2` run: files/s, and the figures that explain it (transactions,
# handles a transaction, the batching sleep, commit time). The rows go to
# the host as seed002.json.
# vm-only: icount
# vm-timeout: 3600
set -euo pipefail
# shellcheck source=tests/lib/guest.sh
. "$REPO/tests/lib/guest.sh"

SEEDS_SMOKE=0
# shellcheck source=/dev/null
[[ -f $VM_OUT/seeds.env ]] && . "$VM_OUT/seeds.env"
THREADS="1 2 4 8 16" FILES=200 DELAY_US=${SEEDS_NULLB_DELAY_US:-500}
[[ $SEEDS_SMOKE == 1 ]] && THREADS="1 2 16" FILES=50
BHSCOPE=$REPO/build/bhscope
[[ -x $BHSCOPE ]] || skip "$BHSCOPE is not built on the host (make)"
command -v jq >/dev/null || skip "jq is not installed on the host"
mnt=/mnt/seed002

cleanup() {
	mountpoint -q $mnt && umount $mnt
	rmmod brd 2>/dev/null || true
	rmmod null_blk 2>/dev/null || true
}
trap 'cleanup || true' EXIT
mkdir -p $mnt

# device NAME: a fresh ext4 on the device, mounted dirsync on $mnt
device() {
	local dev
	case $1 in
	ram)
		modprobe brd rd_nr=1 rd_size=$((512 * 1024)) max_part=0 || fail "modprobe brd"
		dev=/dev/ram0
		;;
	nullb)
		# irqmode 2: each request completes after completion_nsec
		modprobe null_blk nr_devices=1 queue_mode=2 memory_backed=1 gb=1 \
			irqmode=2 completion_nsec=$((DELAY_US * 1000)) ||
			fail "modprobe null_blk"
		dev=/dev/nullb0
		;;
	esac
	mkfs.ext4 -q -F -b 4096 -E lazy_itable_init=0,lazy_journal_init=0 $dev ||
		fail "mkfs.ext4 $dev"
	mount -t ext4 -o dirsync $dev $mnt || fail "mount $dev"
	mkdir $mnt/w
}

# batch MIN MAX: jbd2's batch times, microseconds, by remount
batch() {
	mount -o "remount,min_batch_time=$1,max_batch_time=$2" $mnt ||
		fail "remount with min_batch_time=$1,max_batch_time=$2"
}

# tick_us: one jiffy in microseconds, from the kernel's HZ as bhscope's
# jbd2 tracer finds it (a record of one file on the mounted ext4)
tick_us() {
	local hz
	"$BHSCOPE" record -q --jbd2 -o hz.json -- bench sync -D $mnt/w -t 1 -n 1 \
		>/dev/null || fail "bhscope record (HZ)"
	hz=$(jq -r '.runs[0].jbd2.hz // empty' hz.json)
	[[ $hz =~ ^[0-9]+$ ]] || fail "bhscope record gives no HZ: $(jq -c .runs[0].jbd2 hz.json)"
	echo $((1000000 / hz))
}

rows=() tick=
for d in ram nullb; do
	device $d
	[[ -n $tick ]] || tick=$(tick_us)
	for b in adaptive fixed; do
		if [[ $b == adaptive ]]; then batch 0 15000; else batch $tick $tick; fi
		for t in $THREADS; do
			out=rec-$d-$b-$t.json
			"$BHSCOPE" record -q --jbd2 -o $out -- \
				bench sync -D $mnt/w -t "$t" -n $FILES >/dev/null ||
				fail "bhscope record, $d, $b, $t threads"
			rows+=("$(jq -c --arg d $d --arg b $b --argjson t "$t" \
				--argjson tick $tick --argjson delay "$DELAY_US" '
				.runs[0] as $r | ($r.jbd2.devices | max_by(.transactions)) as $j |
				{device: $d, batching: $b, threads: $t, tick_us: $tick,
				 nullb_delay_us: (if $d == "nullb" then $delay else null end),
				 files_per_thread: $r.result.params.files_per_task,
				 files_per_s: $r.result.results.files_per_sec,
				 tunables: .tunables | {min_batch_time_us, max_batch_time_us},
				 transactions: $j.transactions,
				 handles_per_transaction: $j.handles_per_transaction,
				 sync_handles: $j.sync_handles,
				 commit_avg_us: $j.commit_avg_us,
				 batch_sleep: $j.batch_sleep}' $out)")
			progress "$d, $b batching, $t threads"
		done
	done
	cleanup
done
printf '%s\n' "${rows[@]}" | jq -s . >"$VM_EXPORT/seed002.json"
jq -c '.[] | {device, batching, threads, files_per_s, handles_per_transaction, commit_avg_us}' \
	"$VM_EXPORT/seed002.json"
