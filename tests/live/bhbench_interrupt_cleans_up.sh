#!/usr/bin/env bash
# SIGINT in the middle of a run stops bhbench (exit 130, "interrupted"),
# removes every file it created, and leaves the filesystem clean; for
# processes and threads, meta and sync.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
# shellcheck source=../lib/bhbench.sh
source "$(dirname "$0")/../lib/bhbench.sh"
need_bhbench
fs_setup ""

err=$(mktemp)
trap 'rm -f "$err"; fs_teardown' EXIT

# Files appear under DIR/bhbench.<pid>/: interrupt once some exist.
interrupt() {
	local pid _ rc=0

	"$BHBENCH" "$@" -D "$MNT" -q 2> "$err" &
	pid=$!
	for _ in $(seq 100); do
		compgen -G "$MNT/bhbench.$pid/d*/t0.f1*" > /dev/null && break
		sleep 0.1
	done
	kill -INT "$pid"
	wait "$pid" || rc=$?
	[[ $rc -eq 130 ]] || fail "$*: exit $rc after SIGINT, want 130"
	grep -q 'interrupted' "$err" || fail "$*: stderr: $(cat "$err")"
	fs_expect_empty "$* after SIGINT"
}

interrupt meta -n 1000000 -t 2 --processes
interrupt meta -n 1000000 -t 2 --threads --dir-size 100
interrupt sync -n 1000000 -t 2 -s 0
fs_fsck
pass
