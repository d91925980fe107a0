#!/usr/bin/env bash
# make demo: the whole bhscope loop on an embedded default,
# measure -> tune -> measure -> compare:
#   1. a RAM-backed ext4 (a loop device on a file in /dev/shm), mounted dirsync
#   2. live: bhscope jbd2 and bhscope lru while DEMO_THREADS sync writers run
#   3. bhscope record: the workload, DEMO_REPEATS times, traced
#   4. bhscope tune: other jbd2 batch times (bhtune.ko if loaded, else a
#      remount), and a bigger LRU where bhtune.ko is loaded
#   5. bhscope record again, then bhscope compare: the before/after table
# Records and the chart stay in build/demo/. The RAM disk is undone on
# success, failure and Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/.."

THREADS=${DEMO_THREADS:-8}
FILES=${DEMO_FILES:-400}
REPEATS=${DEMO_REPEATS:-3}
SIZE_MB=${DEMO_SIZE_MB:-512}
AFTER_MIN_US=${DEMO_AFTER_MIN_US:-4000}
AFTER_LRU=${DEMO_AFTER_LRU:-32}
BHSCOPE=${BHSCOPE:-build/bhscope}
out=build/demo

[[ $(id -u) -eq 0 ]] || { echo "demo: needs root (loop devices, mount, BPF)" >&2; exit 1; }

# shellcheck source=tests/lib/loopfs.sh
. tests/lib/loopfs.sh
work=$(mktemp -d /tmp/bhscope-demo.XXXXXX)
mnt=$work/mnt tracer=
cleanup() {
	if [[ -n $tracer ]]; then kill "$tracer" 2> /dev/null; wait "$tracer" 2> /dev/null; fi
	loopfs_cleanup
	rm -rf "$work"
}
trap cleanup EXIT
trap 'echo; echo "demo: interrupted, cleaning up" >&2; exit 130' INT TERM

step() { printf '\n==> %s\n' "$*"; }
workload=(bench sync -D "$mnt" -t "$THREADS" -n "$FILES")

step "A ${SIZE_MB} MiB RAM-backed ext4: a loop device over /dev/shm, mounted -o dirsync"
mkdir "$mnt"
loopfs_mount -o dirsync "$SIZE_MB" "$mnt" -b 4096
loopdev=$LOOPFS_DEV
name=${loopdev#/dev/}
echo "$loopdev on $mnt ($(findmnt -no OPTIONS "$mnt"))"
mkdir -p "$out"

step "Live: bhscope jbd2 -d $name while $THREADS dirsync writers run (bhbench sync)"
"$BHSCOPE" jbd2 -d "$name" 3600 > "$work/jbd2.txt" &
tracer=$!
sleep 1	# attach before the workload starts
build/bhbench sync -D "$mnt" -t "$THREADS" -n "$FILES" -q
kill -INT "$tracer"
wait "$tracer" || true
tracer=
cat "$work/jbd2.txt"

step "Live: bhscope lru -d $name (which LRU figures this kernel gives, and why)"
"$BHSCOPE" lru --probes || true
"$BHSCOPE" lru -d "$name" 3600 > "$work/lru.txt" 2>&1 &
tracer=$!
sleep 1
build/bhbench meta -D "$mnt" -t 2 -n 2000 -q
kill -INT "$tracer"
wait "$tracer" || true
tracer=
cat "$work/lru.txt"

step "Measure: bhscope record, $REPEATS runs of the writers, traced"
"$BHSCOPE" tune -d "$name"
"$BHSCOPE" record -q -r "$REPEATS" --label before -o "$out/before.json" -- "${workload[@]}"

step "Tune: bhscope tune set batch_min_us=$AFTER_MIN_US (and lru_size=$AFTER_LRU where bhtune.ko is loaded)"
"$BHSCOPE" tune set -d "$name" batch_min_us="$AFTER_MIN_US"
if [[ -d /sys/module/bhtune ]]; then
	"$BHSCOPE" tune set lru_size="$AFTER_LRU"
else
	"$BHSCOPE" tune set lru_size="$AFTER_LRU" || echo "(the LRU size stays as it is; the rest of the loop goes on)"
fi

step "Measure again: bhscope record"
"$BHSCOPE" record -q -r "$REPEATS" --label after -o "$out/after.json" -- "${workload[@]}"

step "Compare: bhscope compare $out/before.json $out/after.json"
"$BHSCOPE" compare --chart "$out/before-after.svg" "$out/before.json" "$out/after.json"

step "Put the tunables back: bhscope tune reset"
"$BHSCOPE" tune reset -d "$name"
echo
echo "Records and chart kept in $out/ (before.json, after.json, before-after.svg)."
