#!/usr/bin/env bash
# bhbench meta --xattr BYTES gives every file an attribute too big for its
# inode, as the seed threads' large ACLs: on ext4 the create phase then
# allocates an attribute block (ext4:ext4_allocate_blocks counts it, in a
# tracefs instance of its own) that a run without --xattr does not (one:
# ext4 shares a block among files with the same attributes, as it did
# the seeds' inherited ACLs, and each create reads and writes it); the
# report says so, the fs is left empty and clean. Where the filesystem
# has no user attributes (ramfs), one line says so and the exit is 1.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
# shellcheck source=../lib/bhbench.sh
source "$(dirname "$0")/../lib/bhbench.sh"
need_bhbench
need_jq
need_root
fs_setup ""
tracefs=/sys/kernel/tracing
[[ -d $tracefs/events/ext4/ext4_allocate_blocks ]] ||
	skip "no ext4:ext4_allocate_blocks tracepoint in $tracefs"
inst=$tracefs/instances/bhbench-xattr.$$
mkdir "$inst"
trap 'echo 0 > "$inst/events/ext4/ext4_allocate_blocks/enable" 2> /dev/null; rmdir "$inst"; fs_teardown' EXIT
echo 1 > "$inst/events/ext4/ext4_allocate_blocks/enable"
dev=$((0x$(stat -c %t "$LOOP"))),$((0x$(stat -c %T "$LOOP")))

# allocations ARGS...: the blocks ext4 allocated on our device during a
# create-only run of bhbench meta ARGS (this ext4 has 1 KiB blocks: 700
# bytes fit one, not the 128-byte inode)
allocations() {
	echo > "$inst/trace"
	"$BHBENCH" meta -D "$MNT" -n 300 --phases create -q "$@" > /dev/null ||
		fail "bhbench meta $* exited $?"
	sync
	grep -c "dev $dev " "$inst/trace" || true
}
plain=$(allocations)
with=$(allocations --xattr 700)
echo "block allocations in 300 creates: $plain plain, $with with --xattr 700"
((with > plain)) ||
	fail "--xattr 700 allocated no attribute block ($with allocations, $plain without)"
out=$("$BHBENCH" meta -D "$MNT" -n 50 --xattr 700 -j) || fail "exit $?"
jq -e '.ok == true and .params.xattr_bytes == 700' <<< "$out" > /dev/null ||
	fail "unexpected report: $out"
fs_expect_empty "bhbench meta --xattr"

ram=$SCRATCH/ram
mkdir "$ram"
mount -t ramfs none "$ram"
rc=0
err=$("$BHBENCH" meta -D "$ram" -n 5 --xattr 100 -q 2>&1 > /dev/null) || rc=$?
[[ $rc -eq 1 && $err == "bhbench: meta: "*"--xattr"*"not supported"* ]] ||
	fail "no user attributes (ramfs): exit $rc, '$err'"
[[ $(wc -l <<< "$err") -eq 1 ]] || fail "more than one line on ramfs: $err"
fs_fsck
pass
