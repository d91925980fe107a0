# shellcheck shell=bash
# Helpers for guest tests (tests/vm/*.sh). Source it with
#   . "$REPO/tests/lib/guest.sh"
# Tests run as root inside the guest, one at a time, each in its own scratch
# directory on a RAM-backed root; see tests/vm/harness/README.md.

skip() { # skip REASON: the runner shows REASON on the SKIP line
	echo "$*"
	exit 77
}

fail() {
	echo "FAILED: $*" >&2
	exit 1
}

# progress TEXT: "TEXT at N s" on the host's console as the test runs (the
# runner's NOTE channel), so a slow stretch shows where it was.
progress() {
	local test=${0##*/}
	echo "NOTE: ${test%%-*}: $* at $SECONDS s" >"${VM_NOTE:-/dev/null}"
}

# wait_until SECONDS PID COMMAND...: runs COMMAND every 0.1 s until it
# succeeds (returns 0), or PID (- for none) has exited and a last run of
# COMMAND fails, or SECONDS have passed (returns 1).
wait_until() {
	local tenths=$(($1 * 10)) pid=$2 i
	shift 2
	for ((i = 0; i < tenths; i++)); do
		"$@" && return 0
		if [[ $pid != - ]] && ! kill -0 "$pid" 2>/dev/null; then
			"$@"
			return
		fi
		sleep 0.1
	done
	return 1
}

# ramdisk_ext4 MNT MB [MKFS_OPTION...]: a fresh brd ramdisk of MB MiB with
# ext4 (4 KiB blocks, so block counts do not depend on the device size)
# mounted on MNT. Unmounted and brd removed when the test exits.
ramdisk_ext4() {
	local mnt=$1 mb=$2
	shift 2
	if grep -q '^brd ' /proc/modules; then
		rmmod brd || fail "brd is loaded and busy (a previous test leaked it)"
	fi
	modprobe brd rd_nr=1 rd_size=$((mb * 1024)) max_part=0 ||
		fail "modprobe brd"
	trap 'ramdisk_cleanup "'"$mnt"'"' EXIT
	mkfs.ext4 -q -F -b 4096 "$@" /dev/ram0 || fail "mkfs.ext4 /dev/ram0"
	mkdir -p "$mnt"
	mount -t ext4 /dev/ram0 "$mnt" || fail "mount ext4 on /dev/ram0"
}

ramdisk_cleanup() { # runs under set -e in the EXIT trap: never fail
	if mountpoint -q "$1"; then umount "$1" || true; fi
	rmmod brd 2>/dev/null || true
}

# The buffer-head lookup every later probe builds on: find_get_block_common
# where the 6.15 API exists (6.12.31+ has it backported; ext4 then goes
# through __find_get_block_nonatomic, not __find_get_block), else
# __find_get_block (6.1).
bh_lookup_func() {
	if in_kallsyms find_get_block_common; then
		echo find_get_block_common
	else
		echo __find_get_block
	fi
}

in_kallsyms() {
	grep -qE " $1\$" /proc/kallsyms
}

# Whether the kernel preempts kernel code anywhere: full or lazy
# preemption (PREEMPT_DYNAMIC's sched/preempt), a PREEMPT or PREEMPT_RT
# build (uname -v).
preempts_kernel() {
	local model
	model=$(sed -n 's/.*(\([a-z]*\)).*/\1/p' /sys/kernel/debug/sched/preempt 2>/dev/null || true)
	case $model in
	full | lazy) return 0 ;;
	none | voluntary) return 1 ;;
	esac
	uname -v | grep -qE 'PREEMPT(_RT|_LAZY)?( |$)' && ! uname -v | grep -q PREEMPT_DYNAMIC
}

# map_readers MAPREAD: a busy BPF map reader (tests/vm/bpf-count/mapread.c,
# built by bpf-count.prep) pinned on each CPU until map_readers_stop, which
# the tests' cleanup also runs. While one copies a map on a CPU, the kernel
# skips that CPU's kprobes and classic tracepoints (bpf_prog_active).
map_readers() {
	local cpu
	for ((cpu = 0; cpu < $(nproc); cpu++)); do
		"$1" "$cpu" &
		MAP_READERS="${MAP_READERS:-} $!"
	done
}

# Runs under set -e in EXIT traps: never fails.
map_readers_stop() {
	local pid
	for pid in ${MAP_READERS:-}; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	MAP_READERS=
}
