#!/bin/bash
# With bhtune loaded, every buffer-head lookup path goes through it: on
# every CPU a workload touches sb_getblk (ext4 inode tables and directory
# blocks, read again after drop_caches), sb_find_get_block and jbd2's
# revoke (ext4 freeing directory blocks) and sb_bread (a FAT filesystem,
# which reads everything with it; vfat is a module in every Debian flavour); bpftrace counts each path, and the
# kernel's own bh_lrus must stay empty on every CPU all along (a lookup
# bypassing the patch, through a caller with a replaced function inlined,
# would fill it). Around that workload the ext4 filesystem is unmounted
# and mounted 6 times: every umount empties the module's LRU. Then, with
# bhtune unloaded, the files written meanwhile read back, the filesystem
# is intact and, with the block device kept open, umount + flushbufs frees
# every buffer.
# vm-timeout: 600
set -euo pipefail
. "$REPO/tests/lib/guest_bhtune.sh"
# shellcheck source=tests/lib/bpftrace.sh
. "$REPO/tests/lib/bpftrace.sh"
bht_need
command -v bpftrace >/dev/null || skip "bpftrace is not installed"
[[ -x /bin/busybox ]] || skip "no /bin/busybox for mkdosfs (make deps)"
FAT=/mnt/bhf
# shellcheck disable=SC2016 # expanded when the trap runs
bht_traps '[[ -z ${bt:-} ]] || kill -INT "$bt" 2>/dev/null || true'

BHT_RD_NR=2 bht_fs 48
/bin/busybox mkdosfs /dev/ram1 >/dev/null || fail "mkdosfs /dev/ram1"
mkdir -p "$FAT"
mount -t vfat /dev/ram1 "$FAT" || fail "mount vfat"
bht_load

# Each lookup path's entry point, as this kernel names it.
getblk=bdev_getblk
in_kallsyms "$getblk" || getblk=__getblk_gfp
# (bpftrace strings are at most 64 bytes)
probes="kprobe:__bread_gfp { @calls[\"sb_bread (__bread_gfp)\"] = count(); }
kprobe:$getblk { @calls[\"sb_getblk ($getblk)\"] = count(); }
kprobe:__ext4_forget { @calls[\"sb_find_get_block (__ext4_forget)\"] = count(); }
kprobe:jbd2_journal_revoke { @calls[\"jbd2 revoke (jbd2_journal_revoke)\"] = count(); }"
if in_kallsyms __find_get_block_nonatomic; then
	probes+="
kprobe:__find_get_block_nonatomic { @calls[\"*_nonatomic (__find_get_block_nonatomic)\"] = count(); }"
fi
bpftrace -e "$probes
tracepoint:bhtune:bhtune_lookup { @lookups[args->dev >> 20, args->dev & 0xfffff] = count(); }" >bt.out 2>bt.err &
bt=$!
for ((i = 0; i < 1200; i++)); do
	grep -q '^Attaching' bt.out && break
	kill -0 "$bt" 2>/dev/null || { cat bt.err; fail "bpftrace died"; }
	sleep 0.1
done
grep -q '^Attaching' bt.out || fail "bpftrace did not attach in 120 s"

# on_cpus CMD...: CMD on every CPU at once, with {} replaced by the CPU
on_cpus() {
	local c pids=() rc=0
	for ((c = 0; c < ncpu; c++)); do
		taskset -c "$c" "${@//\{\}/$c}" &
		pids+=($!)
	done
	for c in "${pids[@]}"; do wait "$c" || rc=1; done
	return $rc
}
ncpu=$(nproc)
for ((i = 1; i <= 6; i++)); do
	mkdir -p "$BHT_MNT/c$i"
	# fs_mark leaves its log in the current directory
	(cd "$BHT_MNT" && on_cpus fs_mark -d "$BHT_MNT/c$i/cpu{}" -t 1 -n 200 -s 0 -S 0 -L 1 -k >/dev/null) ||
		fail "cycle $i: fs_mark failed"
	on_cpus sh -c "for f in \$(seq 40); do echo $i > $FAT/f{}.\$f; done" || fail "cycle $i: writing to vfat failed"
	bht_keep "cycle$i" 4
	sync
	echo 2 >/proc/sys/vm/drop_caches # inodes and dentries: read them again
	on_cpus ls -lR "$BHT_MNT/c$i/cpu{}" "$FAT" >/dev/null || fail "cycle $i: ls -lR failed"
	on_cpus sh -c "rm -rf $BHT_MNT/c$i/cpu{} $FAT/f{}.*" || fail "cycle $i: rm failed"
	rm -rf "$BHT_MNT/c$i" "$BHT_MNT"/fs_log.txt.*
	sync
	k=$(bht_p kernel_lru_entries)
	((k == 0)) || fail "cycle $i: the kernel's own LRU holds $k entries: lookups bypass the patch"
	# entries for the umount to drop: anything may drain the LRUs meanwhile
	# (kcompactd, lru_add_drain_all), so an inode write refills it first
	for ((try = 0; try < 5; try++)); do
		touch "$BHT_MNT/poke"
		n=$(bht_p lru_entries)
		((n > 0)) && break
	done
	((n > 0)) || fail "cycle $i: the module's LRU stays empty after inode writes"
	umount "$BHT_MNT"
	left=$(bht_p lru_entries)
	((left == 0)) || fail "cycle $i: $left LRU entries survived umount"
	mount -t ext4 "$BHT_DEV" "$BHT_MNT" || fail "cycle $i: mount"
	progress "cycle $i of 6"
done
bpftrace_stop "$bt" || true
bt=
cat bt.out
count() { awk -v k="$1" 'index($0, k) == 1 {print $NF}' bt.out; }
for p in "sb_bread (" "sb_getblk (" "sb_find_get_block (" "jbd2 revoke ("; do
	n=$(count "@calls[$p")
	((${n:-0} > 0)) || fail "the workload never went through $p...)"
done
echo "6 umount/mount cycles: every lookup path taken, the kernel's own LRU empty after each round, the module's LRU held entries before each umount and none after"
umount "$FAT"
bht_unload
bht_verify
bht_no_leak
bht_log_clean
