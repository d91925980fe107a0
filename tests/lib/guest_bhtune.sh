# shellcheck shell=bash
# Helpers for the bhtune guest tests (tests/vm/*-bhtune-*.sh). Source it
# after setting -euo pipefail:
#   . "$REPO/tests/lib/guest_bhtune.sh"
# tests/vm/bhtune.prep builds the
# modules into $VM_OUT/bhtune on the host before the guest boots.

# shellcheck source=tests/lib/guest.sh
. "$REPO/tests/lib/guest.sh"

BHT_KO=$VM_OUT/bhtune
BHT_P=/sys/module/bhtune/parameters
BHT_LP=/sys/kernel/livepatch/bhtune
# shellcheck disable=SC2034 # used by the tests
BHT_EV=/sys/kernel/tracing/events/bhtune
# shellcheck disable=SC2034
BHT_TR=/sys/kernel/tracing
BHT_MNT=/mnt/bht # short: fs_mark wants short directory names
BHT_DEV=/dev/ram0

bht_need() {
	[[ -f $BHT_KO/bhtune.ko && -f $BHT_KO/bhtune_events.ko ]] ||
		skip "bhtune.ko is not built for $KVER (tests/vm/bhtune.prep)"
	[[ -d /sys/kernel/livepatch ]] || skip "$KVER has no livepatch"
	command -v fs_mark >/dev/null || skip "fs_mark is not installed (make deps)"
	# A test killed by the runner's timeout may have had no time to clean up
	# (unloading the livepatch alone can take longer than the 5 s grace).
	bht_cleanup
	BHT_DMESG_FROM=$(dmesg | wc -l)
}

# bht_log_mark; ...; bht_log_since: kernel messages since the mark, without
# clearing the ring buffer (the runner reads it at the end).
bht_log_mark() { BHT_DMESG_MARK=$(dmesg | wc -l); }
bht_log_since() { dmesg | tail -n +"$((BHT_DMESG_MARK + 1))"; }

# bht_log_clean: no warning, BUG or oops in the kernel log since bht_need
# (the runner's own kernel-log-clean check is skipped under VM_TESTS).
bht_log_clean() {
	local bad
	bad=$(dmesg | tail -n +"$((BHT_DMESG_FROM + 1))" |
		grep -E 'BUG:|Oops|WARNING:|Call Trace:|general protection|bhtune: .*(left|failed|cannot)' || true)
	[[ -z $bad ]] || fail "kernel log: $bad"
}

bht_loaded() { [[ -d /sys/module/bhtune ]]; }

# bht_wait_gone: until the patch is freed (its sysfs directory goes once
# the unpatch transition completed), so that rmmod can work.
bht_wait_gone() {
	local i
	for ((i = 0; i < 600; i++)); do
		[[ -e $BHT_LP ]] || return 0
		sleep 0.1
	done
	fail "livepatch bhtune still there 60 s after disabling it"
}

# bht_load [PARAM=VALUE...]: both modules, then wait for the patching
# transition, after which bhtune owns the LRU.
# shellcheck disable=SC2120 # parameters are optional
bht_load() {
	local i
	if ! grep -q '^bhtune_events ' /proc/modules; then
		insmod "$BHT_KO/bhtune_events.ko" || fail "insmod bhtune_events.ko"
	fi
	insmod "$BHT_KO/bhtune.ko" "$@" || fail "insmod bhtune.ko $*"
	for ((i = 0; i < 600; i++)); do
		[[ $(cat "$BHT_LP/transition") == 0 ]] && return 0
		sleep 0.1
	done
	fail "patching transition still running after 60 s"
}

# bht_unload: disable the patch, wait, rmmod bhtune (not bhtune_events).
bht_unload() {
	if [[ -e $BHT_LP/enabled && $(cat "$BHT_LP/enabled") == 1 ]]; then
		echo 0 >"$BHT_LP/enabled" || fail "cannot disable the livepatch"
	fi
	bht_wait_gone
	rmmod bhtune || fail "rmmod bhtune"
}

bht_p() { cat "$BHT_P/$1"; }

# bht_set NAME VALUE: a parameter write that must succeed.
bht_set() {
	echo "$2" >"$BHT_P/$1" || fail "writing $2 to $1 was refused"
}

# bht_fs MB [MOUNT OPTIONS]: ext4 on a fresh brd ramdisk at BHT_MNT with
# a data set whose checksums bht_verify checks later.
bht_fs() {
	local mb=$1 opts=${2:-defaults} i
	if grep -q '^brd ' /proc/modules; then
		rmmod brd || fail "brd is loaded and busy (a previous test leaked it)"
	fi
	modprobe brd rd_nr=1 rd_size=$((mb * 1024)) max_part=0 || fail "modprobe brd"
	mkfs.ext4 -q -F -b 4096 "$BHT_DEV" || fail "mkfs.ext4"
	mkdir -p "$BHT_MNT"
	mount -t ext4 -o "$opts" "$BHT_DEV" "$BHT_MNT" || fail "mount ext4 -o $opts"
	mkdir "$BHT_MNT/data"
	for ((i = 0; i < 16; i++)); do
		head -c $((4096 * (i + 1))) /dev/urandom >"$BHT_MNT/data/f$i"
	done
	(cd "$BHT_MNT/data" && sha256sum f*) >"$PWD/data.sha256"
}

# bht_verify: umount, e2fsck -fn, mount again, the data set's checksums.
bht_verify() {
	local opts
	opts=$(awk -v m="$BHT_MNT" '$2 == m {print $4}' /proc/mounts)
	sync
	umount "$BHT_MNT" || fail "umount $BHT_MNT"
	e2fsck -fn "$BHT_DEV" >e2fsck.log 2>&1 || {
		cat e2fsck.log
		fail "e2fsck -fn found problems"
	}
	mount -t ext4 -o "${opts:-defaults}" "$BHT_DEV" "$BHT_MNT" || fail "mount again"
	(cd "$BHT_MNT/data" && sha256sum --quiet -c "$OLDPWD/data.sha256") ||
		fail "data checksums differ"
	echo "data verified: e2fsck -fn clean, 16 files match their checksums"
}

# bht_no_leak: umount and check that no buffer_head reference survived.
# An open descriptor keeps the block device open, so umount leaves its page
# cache alone; blockdev --flushbufs then runs invalidate_bdev(), which drops
# every LRU (the kernel's or bhtune's) and frees every page whose buffers
# nobody holds. With nothing else using buffer heads in the guest (the root
# is 9p and tmpfs), "Buffers:" must then read 0: a page left is a buffer
# reference leaked by someone.
bht_no_leak() {
	local fd kb
	exec {fd}<"$BHT_DEV"
	sync
	umount "$BHT_MNT" || fail "umount $BHT_MNT"
	blockdev --flushbufs "$BHT_DEV" || fail "blockdev --flushbufs"
	kb=$(awk '/^Buffers:/ {print $2}' /proc/meminfo)
	exec {fd}<&-
	((kb == 0)) || fail "Buffers: $kb kB left after umount and flushbufs: leaked buffer_head references"
	echo "no buffer_head reference left after umount (Buffers: 0 kB)"
}

# bht_load_start DIR: a metadata workload in the background until
# bht_load_stop: fs_mark, 2 threads creating, writing and closing 100 small
# files each, then the lot removed, over and over. Output in ./load.log.
bht_load_start() {
	local dir=$1
	rm -f load.stop
	mkdir -p load.cwd # fs_mark leaves a fs_log.txt.PID in its directory
	(
		cd load.cwd || exit 1
		while [[ ! -e ../load.stop ]]; do
			fs_mark -d "$dir" -t 2 -n 100 -s 512 -S 0 -L 1 >>../load.log 2>&1 ||
				{ echo "fs_mark failed" >>../load.log; exit 1; }
			rm -rf "$dir" fs_log.txt.*
		done
	) &
	BHT_LOAD_PID=$!
}

bht_load_stop() {
	touch load.stop
	wait "$BHT_LOAD_PID" || { tail -n 20 load.log; fail "background workload failed"; }
	BHT_LOAD_PID=
	rm -f load.stop
	echo "background workload: $(grep -c '^ *[0-9]' load.log) fs_mark rounds"
}

# bht_cleanup: EXIT trap; best effort, never fails. The runner's timeout
# sends SIGTERM, which does not run EXIT traps by itself: bht_traps makes
# it do so, so a timed-out test does not leave brd busy for the next one.
bht_cleanup() {
	local i
	local - # errexit off in here only: every step may fail harmlessly
	set +e
	if [[ -n ${BHT_LOAD_PID:-} ]]; then
		touch load.stop
		pkill -P "$BHT_LOAD_PID" 2>/dev/null
		wait "$BHT_LOAD_PID" 2>/dev/null
	fi
	if mountpoint -q "$BHT_MNT"; then umount "$BHT_MNT" 2>/dev/null; fi
	grep -q "^$BHT_DEV " /proc/mounts &&
		awk -v d="$BHT_DEV" '$1 == d {print $2}' /proc/mounts | xargs -r -n1 umount 2>/dev/null
	if bht_loaded; then
		echo 1 >"$BHT_P/reset" 2>/dev/null
		[[ -e $BHT_LP/enabled ]] && echo 0 >"$BHT_LP/enabled" 2>/dev/null
		for ((i = 0; i < 600; i++)); do
			[[ -e $BHT_LP ]] || break
			sleep 0.1
		done
		rmmod bhtune 2>/dev/null
	fi
	rmmod bhtune_events 2>/dev/null
	rmmod brd 2>/dev/null
	return 0
}

# bht_traps [EXTRA COMMANDS]: cleanup on exit, and exit on SIGTERM/SIGINT.
bht_traps() {
	# shellcheck disable=SC2064 # expand now
	trap "${1:-}${1:+; }bht_cleanup" EXIT
	trap 'exit 143' TERM INT
}
