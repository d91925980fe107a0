#!/usr/bin/env bash
# A trace whose header does not fit (a full 16 KiB tmpfs) fails and leaves
# no file, not even an empty one, and an older trace of the same name
# whole (issue 33 item 5): the header is written to a file beside it,
# renamed over it only once written. Through the recorder `bhscope lru
# --trace` uses (lrutrace-pump) and through the writer alone (lrutrace
# convert); with room, the same trace is written and replays.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/common.sh
require_root
PUMP=$PWD/build/lrutrace-pump
LRUTRACE=$PWD/build/lrutrace
for b in "$PUMP" "$LRUTRACE" "$BHSCOPE"; do
	[[ -x $b ]] || skip_all "$b is not built (make)"
done
dir=$(mktemp -d /tmp/bhscope-tracefull.XXXXXX)
on_exit "rm -rf '$dir'"
tiny=$dir/tiny
mkdir "$tiny"
mount -t tmpfs -o size=16k tmpfs "$tiny"
on_exit "umount '$tiny'"
src=tests/fuzz/trace/two-cpus-v2.trace
cp "$src" "$tiny/old.trace"
dd if=/dev/zero of="$tiny/fill" bs=4k 2> /dev/null || true

# nothing_left NAME: nothing but old.trace (unchanged) and fill in $tiny.
nothing_left() {
	local left
	left=$(find "$tiny" -mindepth 1 ! -name old.trace ! -name fill)
	if [[ -z $left ]] && cmp -s "$src" "$tiny/old.trace"; then pass "$1"
	else fail "$1" "left: $left; old.trace $(cmp "$src" "$tiny/old.trace" 2>&1 || true)"; fi
}

fails() { ! "$@" > /dev/null 2>&1; }
check recorder_fails_on_a_full_disk fails "$PUMP" 1000 1 "$tiny/new.trace"
nothing_left recorder_leaves_no_empty_trace
check writer_fails_on_a_full_disk fails "$LRUTRACE" convert "$src" "$tiny/new.trace"
nothing_left writer_leaves_no_empty_trace
check writer_over_an_old_trace_fails fails "$LRUTRACE" convert "$src" "$tiny/old.trace"
nothing_left older_trace_kept_whole

rm -f "$tiny/fill"
check written_when_there_is_room "$LRUTRACE" convert "$src" "$tiny/new.trace"
replays() { "$BHSCOPE" simulate -j "$1" > /dev/null; }
check replays_when_there_is_room replays "$tiny/new.trace"
finish
