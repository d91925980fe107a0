#!/usr/bin/env bash
# bhscope jbd2 agrees with the kernel's own /proc/fs/jbd2/<dev>/info over a
# sync-heavy fs_mark run: ordered-mode fsync writers, and -o dirsync creators.
# Tracing starts before the mount, and the filesystem is frozen before the
# kernel's figures are read, so both cover exactly the same transactions.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/common.sh
require_root

# agreement LABEL MOUNT-OPTIONS FS_MARK-ARGS...; $HOOK: bhscope jbd2 --hook.
agreement() {
	local label=$1 opts=$2 out info
	shift 2
	out=$(mktemp /tmp/bhscope-jbd2.XXXXXX)
	info=$(mktemp /tmp/bhscope-info.XXXXXX)
	on_exit "rm -f '$out' '$info'"

	ram_ext4_unmounted 256 -b 4096
	"$BHSCOPE" jbd2 --hook="${HOOK:-auto}" -d "$LOOPNAME" -j 1 > "$out" &
	local tracer=$!
	on_exit "kill $tracer 2>/dev/null"
	# The first report means the programs are attached.
	wait_for_file_lines "$out" 1 20 || { fail "$label/attach" "no report in 20 s"; return; }
	mount_ram_ext4 "$opts"
	mkdir "$MNT/fsmark"
	(cd "$MNT" && fs_mark -d "$MNT/fsmark" "$@") > "$out.fsmark"
	on_exit "rm -f '$out.fsmark'"
	check "$label/fs_mark_ran" grep -qE '^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+' "$out.fsmark"
	# Freezing commits what is running and holds new handles off.
	fsfreeze -f "$MNT"
	on_exit "fsfreeze -u '$MNT' 2>/dev/null"
	sleep 1.2
	cat "$(jbd2_info)" > "$info"
	kill -INT "$tracer"
	wait "$tracer"
	fsfreeze -u "$MNT"
	check "$label/final_report_on_sigint" grep -q '"final":true' "$out"
	python3 tests/live/jbd2_proc_agreement.py "$out" "$info" "$label" ||
		failures=$((failures + 1))
	if [[ $label == dirsync ]]; then
		check "$label/sync_handles_seen" python3 -c '
import json, sys
n = sum(d["sync_handles"] for l in open(sys.argv[1]) for d in json.loads(l)["devices"])
sys.exit(0 if n > 0 else 1)' "$out"
	fi
	run_cleanups
}

agreement ordered_fsync defaults -t 4 -n 300 -s 4096 -S 1
agreement dirsync dirsync -t 4 -n 200 -s 0 -S 0
# The raw tracepoints, which bhscope.service takes where jbd2 is a module.
HOOK=raw agreement raw_tp dirsync -t 4 -n 200 -s 0 -S 0
finish
