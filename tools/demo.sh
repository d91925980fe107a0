#!/usr/bin/env bash
# make demo: the whole bhscope loop on an embedded default.
#   1. a RAM-backed ext4 (a loop device on a file in /dev/shm), mounted dirsync
#   2. DEMO_THREADS synchronous writers (fs_mark) while bhscope jbd2 traces
#   3. the batching report
#   4. a remount with other batch times, the same workload, traced again
#   5. before/after side by side with the workload's throughput
# Everything is undone on success, failure and Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/.."

THREADS=${DEMO_THREADS:-8}
FILES=${DEMO_FILES:-200}
SIZE_MB=${DEMO_SIZE_MB:-512}
BEFORE=${DEMO_BEFORE:-min_batch_time=0,max_batch_time=15000}
AFTER=${DEMO_AFTER:-min_batch_time=4000,max_batch_time=15000}
BHSCOPE=${BHSCOPE:-build/bhscope}

[[ $(id -u) -eq 0 ]] || { echo "demo: needs root (loop devices, mount, BPF)" >&2; exit 1; }

work=$(mktemp -d /tmp/bhscope-demo.XXXXXX)
img=/dev/shm/bhscope-demo.$$.img
loopdev= mnt=$work/mnt tracer=
cleanup() {
	[[ -n $tracer ]] && kill "$tracer" 2> /dev/null && wait "$tracer" 2> /dev/null
	mountpoint -q "$mnt" && umount "$mnt"
	[[ -n $loopdev ]] && losetup -d "$loopdev"
	rm -rf "$img" "$work"
}
trap cleanup EXIT
trap 'echo; echo "demo: interrupted, cleaning up" >&2; exit 130' INT TERM

step() { printf '\n==> %s\n' "$*"; }

step "A ${SIZE_MB} MiB RAM-backed ext4: loop device on $img, mounted -o dirsync"
truncate -s "${SIZE_MB}M" "$img"
loopdev=$(losetup -f --show "$img")
mkfs.ext4 -q -b 4096 "$loopdev"
mkdir "$mnt"
mount -o "dirsync,$BEFORE" "$loopdev" "$mnt"
name=${loopdev#/dev/}
echo "$loopdev on $mnt ($(findmnt -no OPTIONS "$mnt"))"

# run LABEL: the workload under bhscope jbd2, one report for the whole run.
run() {
	local label=$1
	mkdir -p "$mnt/$label"
	"$BHSCOPE" jbd2 -d "$name" -j 3600 > "$work/$label.json" &
	tracer=$!
	sleep 1	# let the programs attach before the workload starts
	(cd "$work" && fs_mark -d "$mnt/$label" -t "$THREADS" -n "$FILES" -s 4096 -S 0 -L 1) \
		> "$work/$label.fsmark"
	kill -INT "$tracer"
	wait "$tracer"
	tracer=
	awk '/^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+/ { print $4 }' "$work/$label.fsmark" > "$work/$label.fps"
	echo "$label: fs_mark $THREADS threads x $FILES files: $(cat "$work/$label.fps") files/s"
}

step "Workload with $BEFORE, traced by bhscope jbd2"
run before
step "The batching report (bhscope jbd2 text output for the same kind of run)"
"$BHSCOPE" jbd2 -d "$name" 3600 > "$work/before.txt" 2> /dev/null &
tracer=$!
sleep 1
(cd "$work" && fs_mark -d "$mnt/report" -t "$THREADS" -n "$((FILES / 2))" -s 4096 -S 0 -L 1) > /dev/null
kill -INT "$tracer"
wait "$tracer"
tracer=
cat "$work/before.txt"

step "Tune: mount -o remount,$AFTER (jbd2 sync-writer batching)"
mount -o "remount,$AFTER" "$mnt"
echo "now: $(findmnt -no OPTIONS "$mnt")"
step "Workload with $AFTER, traced by bhscope jbd2"
run after

step "Before / after"
python3 - "$work" "$BEFORE" "$AFTER" <<'PY'
import json, sys
work, before, after = sys.argv[1:4]

def figures(label):
    reps = [json.loads(l) for l in open(f"{work}/{label}.json") if l.strip()]
    devs = [d for r in reps for d in r["devices"]]
    t = lambda k: sum(d[k] for d in devs)
    txn = t("transactions") or 1
    secs = sum(r["interval_s"] for r in reps)
    fps = float(open(f"{work}/{label}.fps").read().split()[0])
    return [("fs_mark files/s", fps),
            ("transactions/s", t("transactions") / secs),
            ("handles per transaction", t("handles") / txn),
            ("sync handles", t("sync_handles")),
            ("blocks per transaction", t("blocks") / txn),
            ("commit latency avg us", t("commit_ns") / 1000 / (t("commits") or 1))]

b, a = figures("before"), figures("after")
print(f"before: {before}\nafter:  {after}\n")
print(f"{'':26}{'before':>14}{'after':>14}{'change':>10}")
for (name, x), (_, y) in zip(b, a):
    ch = f"{(y - x) / x * 100:+.0f}%" if x else "n/a"
    print(f"{name:26}{x:14.1f}{y:14.1f}{ch:>10}")
PY
step "Done; unmounting and removing the RAM disk"
