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
	BHT_LOG_START=$(bht_kmsg_mark start)
}

# Marks in the kernel log, written to /dev/kmsg: unlike a line count, a
# mark stays right when the ring buffer wraps (a missing mark means
# everything left is newer). bht_kmsg_mark NAME prints the mark's text.
bht_kmsg_mark() {
	local m
	m="bhtune-test: ${0##*/} $1 $$.$RANDOM$RANDOM"
	echo "$m" >/dev/kmsg
	echo "$m"
}

# bht_log_after MARK: the kernel messages after MARK.
bht_log_after() {
	dmesg | awk -v m="$1" 'found {print} index($0, m) {found = 1; n = NR} END {if (!n) exit 1}' ||
		dmesg
}

# bht_log_mark; ...; bht_log_since: kernel messages since the mark, without
# clearing the ring buffer (the runner reads it at the end).
bht_log_mark() { BHT_LOG_MARK=$(bht_kmsg_mark mark); }
bht_log_since() { bht_log_after "$BHT_LOG_MARK"; }

# What no bhtune test may leave in the kernel log: a warning, BUG or oops,
# a lockup or stall, a double release of a buffer_head, bhtune's own
# complaints (entries left at exit, lookups bypassing the patch, a failure
# to set up or restore) or a livepatch failure.
BHT_LOG_BAD='BUG:|Oops|WARNING:|Call Trace:|general protection|soft lockup|hard LOCKUP|detected stalls|blocked for more than|Trying to free free buffer|bhtune: .*(entries left|bypass|cannot|could not|not applied|not restored|failed|__find_get_block_slow)|livepatch: .*(failed|not found|not compatible|error)'

# bht_log_clean [EXPECTED]: the kernel log since bht_need has none of
# BHT_LOG_BAD, except lines matching the extended regex EXPECTED (what the
# test provoked on purpose). Says how many lines it read.
# shellcheck disable=SC2120 # EXPECTED is optional
bht_log_clean() {
	local log bad
	log=$(bht_log_after "$BHT_LOG_START" | bht_log_drop_retried)
	bad=$(grep -E "$BHT_LOG_BAD" <<<"$log" | { if [[ -n ${1:-} ]]; then grep -vE "$1"; else cat; fi; } || true)
	if [[ -n $bad ]]; then
		# the report with its stack, to say where it was
		echo "kernel log from the first bad line on:"
		grep -F -m1 -A 40 -- "$(head -n 1 <<<"$bad")" <<<"$log" || true
		fail "kernel log: $bad"
	fi
	echo "kernel log: $(grep -c '' <<<"$log") lines since the test started, none of them a warning, lockup, stall or failure"
}

# bht_log_drop_retried: the kernel log on stdin without the livepatch
# core's "failed to" lines of each try that bhtune tried again (the core
# answers EAGAIN while a BPF program on a patched function is attached or
# detached: kmod/bhtune_patch.c). A try runs from the core's "enabling
# patch" line to bhtune's "try N: ... trying again"; the lines of a try
# that was not tried again are kept.
bht_log_drop_retried() {
	awk '
		function flush(i) {
			for (i = 0; i < n; i++)
				print held[i]
			n = 0
			trying = 0
		}
		/livepatch: enabling patch .bhtune.$/ { flush(); trying = 1 }
		!trying { print; next }
		{ held[n++] = $0 }
		/bhtune: try [0-9]+: .*trying again$/ {
			for (i = 0; i < n; i++)
				if (held[i] !~ /livepatch: failed to /)
					print held[i]
			n = 0
			trying = 0
		}
		END { flush() }'
}

# bht_retried_tries: how many tries bhtune tried again since BHT_LOG_START.
bht_retried_tries() {
	bht_log_after "$BHT_LOG_START" | grep -c 'bhtune: try [0-9]*: .*trying again$' || true
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

# bht_reverse_insmod KO LPDIR [PARAM=VALUE...]: insmod a livepatch module
# and disable its patch (LPDIR, /sys/kernel/livepatch/NAME) while the
# patching transition runs. The write waits for klp_mutex, which
# klp_enable_patch() holds from creating LPDIR until after its first try at
# completing the transition; that try rarely succeeds (a task running on
# another CPU is not switched from here), and then the write reverses the
# transition. Whether it did is for the caller to tell.
bht_reverse_insmod() {
	local ko=$1 lp=$2 pid i
	shift 2
	insmod "$ko" "$@" &
	pid=$!
	for ((i = 0; i < 3000; i++)); do
		[[ -e $lp/enabled ]] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.01
	done
	{ echo 0 >"$lp/enabled"; } 2>/dev/null || true
	wait "$pid" || fail "insmod $ko $*"
}

# bht_reversal_catchable: whether a transition can be caught half-way from
# here. Not on 6.12 under TCG: its livepatch core starts every transition by
# rewriting each cond_resched() call site (seconds under TCG) and tasks
# switch in cond_resched() (__klp_sched_try_switch), so the transition is
# over before the write that started it returns. 6.1 has neither.
bht_reversal_catchable() { ! in_kallsyms __klp_sched_try_switch; }

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
	# BHT_RD_NR=2: a second ramdisk, /dev/ram1, for the test's own use
	modprobe brd rd_nr="${BHT_RD_NR:-1}" rd_size=$((mb * 1024)) max_part=0 || fail "modprobe brd"
	mkfs.ext4 -q -F -b 4096 "$BHT_DEV" || fail "mkfs.ext4"
	mkdir -p "$BHT_MNT"
	mount -t ext4 -o "$opts" "$BHT_DEV" "$BHT_MNT" || fail "mount ext4 -o $opts"
	mkdir "$BHT_MNT/data"
	for ((i = 0; i < 16; i++)); do
		head -c $((4096 * (i + 1))) /dev/urandom >"$BHT_MNT/data/f$i"
	done
	(cd "$BHT_MNT" && sha256sum data/f*) >"$PWD/data.sha256"
}

# bht_keep TAG N: N files of random data (1-32 KiB) in BHT_MNT/kept/TAG,
# their checksums added to those bht_verify checks: data written while
# bhtune is loaded, read back after it is gone. Fewer once bht_load_stop
# has begun: each file is an exec, which takes long on a crawling guest.
bht_keep() {
	local i sums
	mkdir -p "$BHT_MNT/kept/$1"
	for ((i = 0; i < $2; i++)); do
		[[ -e load.stop ]] && break
		head -c $((1024 * (RANDOM % 32 + 1))) /dev/urandom >"$BHT_MNT/kept/$1/f$i"
	done
	((i > 0)) || return 0
	sums=$(cd "$BHT_MNT" && sha256sum "kept/$1"/f*)
	echo "$sums" >>data.sha256
}

# bht_verify: umount, e2fsck -fn, mount again, every checksum of the data
# set (bht_fs) and of the files bht_keep wrote. Meant for after bht_unload.
bht_verify() {
	local opts n kept
	opts=$(awk -v m="$BHT_MNT" '$2 == m {print $4}' /proc/mounts)
	sync
	umount "$BHT_MNT" || fail "umount $BHT_MNT"
	e2fsck -fn "$BHT_DEV" >e2fsck.log 2>&1 || {
		cat e2fsck.log
		fail "e2fsck -fn found problems"
	}
	mount -t ext4 -o "${opts:-defaults}" "$BHT_DEV" "$BHT_MNT" || fail "mount again"
	(cd "$BHT_MNT" && sha256sum --quiet -c "$OLDPWD/data.sha256") ||
		fail "data checksums differ"
	n=$(grep -c '' data.sha256)
	kept=$(grep -c ' kept/' data.sha256 || true)
	echo "data verified: e2fsck -fn clean ($(grep -E '^[^ ]+: [0-9]+/[0-9]+ files' e2fsck.log)), $n files match their checksums ($kept written while bhtune was loaded)"
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
# bht_load_stop, with lookups in flight on every CPU: on each CPU, fs_mark
# creating, writing and closing 100 small files, then the lot removed,
# over and over; and a writer keeping 8 files of random data a round
# (bht_keep, checked by bht_verify). Output in ./load.log.
bht_load_start() {
	local dir=$1 cpu
	rm -f load.stop
	touch load.log
	mkdir -p "$dir"
	BHT_LOAD_PIDS=
	for ((cpu = 0; cpu < $(nproc); cpu++)); do
		mkdir -p "load.cwd$cpu" # fs_mark leaves a fs_log.txt.PID in its directory
		(
			cd "load.cwd$cpu" || exit 1
			fsm=(fs_mark -d "$dir/c$cpu" -t 1 -n 100 -s 512 -S 0 -L 1)
			while [[ ! -e ../load.stop ]]; do
				# unpinned when the CPU is offline (63-bhtune-cpu-hotplug)
				if ! taskset -c "$cpu" "${fsm[@]}" >run.log 2>&1; then
					[[ -e ../load.stop ]] && exit 0 # cut short by bht_load_stop
					grep -q 'failed to set' run.log && "${fsm[@]}" >run.log 2>&1 ||
						{ cat run.log >>../load.log; echo "fs_mark failed" >>../load.log; exit 1; }
				fi
				cat run.log >>../load.log
				rm -rf "$dir/c$cpu" fs_log.txt.*
			done
		) &
		BHT_LOAD_PIDS+=" $!"
	done
	(
		round=0
		while [[ ! -e load.stop ]] && ((round < 40)); do
			bht_keep "r$round" 8
			round=$((round + 1))
			sleep 1 # the lookups are fs_mark's job; this only leaves data
		done
	) &
	BHT_LOAD_PIDS+=" $!"
}

# bht_load_running: whether a process of the background workload is left.
bht_load_running() {
	local pid
	for pid in $BHT_LOAD_PIDS; do
		kill -0 "$pid" 2>/dev/null && return 0
	done
	return 1
}

# bht_load_where: each process of the background workload, its state and
# kernel stack, and what the CPUs run, into the test's output.
bht_load_where() {
	local pid kids=""
	progress "load still running 30 s after the stop"
	echo "the background workload is still running 30 s after the stop:"
	for pid in $BHT_LOAD_PIDS; do
		kids+=" $(pgrep -P "$pid" | tr '\n' ' ')"
	done
	# fs_mark's own children too
	for pid in $BHT_LOAD_PIDS $kids $(pgrep -x fs_mark | tr '\n' ' '); do
		[[ -d /proc/$pid ]] || continue
		echo "  $(ps -o pid=,stat=,wchan:32=,etimes=,comm= -p "$pid")"
		sed 's/^/    /' "/proc/$pid/stack" 2>/dev/null || true
	done
	echo "  running or runnable anywhere:"
	ps -eo pid=,stat=,psr=,wchan:32=,comm= | awk '$2 ~ /^[RD]/' | sed 's/^/    /'
	grep -E '^(MemFree|Cached|Dirty|Writeback):' /proc/meminfo | sed 's/^/    /'
}

bht_load_stop() {
	local pid rc=0 end=$((SECONDS + 10))
	touch load.stop
	# A round ends within seconds; on a guest that crawls after a
	# compaction (62), in minutes: after 10 s it is cut short.
	while ((SECONDS < end)) && bht_load_running; do
		sleep 0.2
	done
	for pid in $BHT_LOAD_PIDS; do
		pkill -TERM -P "$pid" -x fs_mark 2>/dev/null || true
	done
	end=$((SECONDS + 20))
	while ((SECONDS < end)) && bht_load_running; do
		sleep 0.2
	done
	# still not stopped (6.1+full's 62 once took 570 s here): say where
	bht_load_running && bht_load_where
	for pid in $BHT_LOAD_PIDS; do
		wait "$pid" || rc=$?
	done
	BHT_LOAD_PIDS=
	((rc == 0)) || { tail -n 20 load.log; fail "background workload failed"; }
	rm -f load.stop
	echo "background workload: $(grep -c '^ *[0-9]' load.log) fs_mark rounds on $(nproc) CPUs, $(grep -c ' kept/' data.sha256) files kept"
}

# bht_cleanup: EXIT trap; best effort, never fails. The runner's timeout
# sends SIGTERM, which does not run EXIT traps by itself: bht_traps makes
# it do so, so a timed-out test does not leave brd busy for the next one.
bht_cleanup() {
	local i
	local - # errexit off in here only: every step may fail harmlessly
	set +e
	if [[ -n ${BHT_LOAD_PIDS:-} ]]; then
		touch load.stop
		for i in $BHT_LOAD_PIDS; do
			pkill -P "$i" 2>/dev/null
			wait "$i" 2>/dev/null
		done
	fi
	if mountpoint -q "$BHT_MNT"; then umount "$BHT_MNT" 2>/dev/null; fi
	# whatever is still mounted from a ramdisk (64 mounts /dev/ram1 too)
	awk '$1 ~ "^/dev/ram[0-9]+$" {print $2}' /proc/mounts | xargs -r -n1 umount 2>/dev/null
	# 69's cumulative livepatch, if it was left in force
	if [[ -e /sys/kernel/livepatch/bhtune_cumulative/enabled ]]; then
		echo 0 >/sys/kernel/livepatch/bhtune_cumulative/enabled 2>/dev/null
		for ((i = 0; i < 600; i++)); do
			[[ -e /sys/kernel/livepatch/bhtune_cumulative ]] || break
			sleep 0.1
		done
	fi
	rmmod bhtune_cumulative 2>/dev/null
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
# The extra commands may fail: bht_cleanup runs anyway.
bht_traps() {
	local extra=""
	[[ -z ${1:-} ]] || extra="{ $1
} || true; "
	# shellcheck disable=SC2064 # expand now
	trap "${extra}bht_cleanup" EXIT
	trap 'exit 143' TERM INT
}
