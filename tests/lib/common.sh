# shellcheck shell=bash
# Helpers for live tests: result lines, and a RAM-backed ext4 that is always
# cleaned up (umount, detach), whatever way the test ends.
#
# Source it from a test run at the repo root:  . tests/lib/common.sh

BHSCOPE=${BHSCOPE:-$PWD/build/bhscope}
BHBENCH=${BHBENCH:-$PWD/build/bhbench}
TEST_NAME=${TEST_NAME:-$(basename "$0" .sh)}
failures=0
cleanups=()

pass() { echo "PASS: $TEST_NAME/$1"; }
fail() { echo "FAIL: $TEST_NAME/$1${2:+: $2}"; failures=$((failures + 1)); }
skip_all() { echo "SKIP: $TEST_NAME: $1"; exit 77; }

# check NAME CONDITION-COMMAND...: PASS or FAIL by the command's status.
check() {
	local name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name" "$*"; fi
}

# Runs registered cleanups in reverse order.
run_cleanups() {
	local i
	for ((i = ${#cleanups[@]} - 1; i >= 0; i--)); do
		eval "${cleanups[i]}" || true
	done
	cleanups=()
}
on_exit() { cleanups+=("$1"); }
trap run_cleanups EXIT
trap 'exit 130' INT TERM

# shellcheck source=tests/lib/loopfs.sh
. "$(dirname "${BASH_SOURCE[0]}")/loopfs.sh"

finish() {
	run_cleanups
	[[ $failures -eq 0 ]]
}

# expect_error NAME STATUS PATTERN CMD...: exits STATUS (within 10 s),
# stderr's first line starts with "bhscope" and matches PATTERN.
expect_error() {
	local name=$1 status=$2 pattern=$3 err rc=0
	shift 3
	err=$(mktemp)
	timeout 10 "$@" > /dev/null 2> "$err" || rc=$?
	if [[ $rc -ne $status ]]; then
		fail "$name" "exit $rc, want $status: $(head -c 300 "$err")"
	elif ! head -n 1 "$err" | grep -qE "^bhscope.*$pattern"; then
		fail "$name" "stderr: $(head -c 300 "$err")"
	else
		pass "$name"
	fi
	rm -f "$err"
}

require_root() { [[ $(id -u) -eq 0 ]] || skip_all "needs root"; }

# ram_ext4 SIZE_MB MOUNT_OPTIONS [MKFS_OPTIONS...]: a fresh ext4 on a loop
# device backed by /dev/shm (tests/lib/loopfs.sh), mounted on $MNT. Sets
# LOOPDEV, LOOPNAME, MNT.
ram_ext4() {
	local opts=$2
	ram_ext4_unmounted "$1" "${@:3}"
	mount_ram_ext4 "$opts"
}

# The same, left unmounted (mount it later with mount_ram_ext4 OPTIONS).
ram_ext4_unmounted() {
	MNT=$(mktemp -d /tmp/bhscope-mnt.XXXXXX)
	on_exit "rmdir '$MNT'"
	# Registered first: it also undoes a device interrupted while made.
	on_exit loopfs_cleanup
	loopfs_mkfs "$@"
	LOOPDEV=$LOOPFS_DEV
	LOOPNAME=${LOOPDEV#/dev/}
}

mount_ram_ext4() { mount -o "$1" "$LOOPDEV" "$MNT"; }

# The /proc/fs/jbd2 directory of the mounted loop device's journal.
jbd2_info() { echo "/proc/fs/jbd2/$LOOPNAME-8/info"; }

# wait_for_file_lines FILE N SECONDS: until FILE has N lines.
wait_for_file_lines() {
	local file=$1 n=$2 i
	for ((i = 0; i < $3 * 10; i++)); do
		[[ -f $file && $(wc -l < "$file") -ge $n ]] && return 0
		sleep 0.1
	done
	return 1
}

# prog_ids_of PID: the BPF programs a process holds (its fds' prog_id).
# An fd it closes while grep reads the list is none of them: grep's error
# for it must not fail a caller's pipefail (serve --lru-duty opens and
# closes a session's fds every window).
prog_ids_of() {
	{ grep -h '^prog_id:' /proc/"$1"/fdinfo/* 2> /dev/null || true; } |
		awk '{ print $2 }' | sort -un
}

# progs_left SECONDS ID...: the IDs still loaded after waiting up to
# SECONDS for them to go. The kernel frees a detached tracing or
# raw-tracepoint program after an RCU grace period, not at close, and two
# busy guests beside the tests stretch that past 3 s.
progs_left() {
	local i id left
	for ((i = 0; i <= $1 * 10; i++)); do
		left=
		for id in "${@:2}"; do
			bpftool prog show id "$id" > /dev/null 2>&1 && left+=" $id"
		done
		[[ -z $left ]] && break
		sleep 0.1
	done
	echo "$left"
}

# bpf_loading PID: waits (up to 5000 looks) until PID holds a BPF object:
# it is loading its programs, past its signal setup, and has not reported.
bpf_loading() {
	local i
	for ((i = 0; i < 5000; i++)); do
		[[ -n $(find "/proc/$1/fd" -lname 'anon_inode:bpf*' -print -quit 2> /dev/null) ]] && return 0
		[[ -e /proc/$1 ]] || return 0
	done
}
