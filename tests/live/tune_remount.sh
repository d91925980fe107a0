#!/usr/bin/env bash
# bhscope tune without bhtune.ko (this host cannot load modules): the batch
# times of ext4 are set and reset by remount, the kernel's own figures
# (/proc/fs/ext4/<dev>/options) show the change, and lru_size says in one
# line what it needs.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/common.sh
require_root
[[ -d /sys/module/bhtune ]] && skip_all "bhtune.ko is loaded: this tests the remount path"

ram_ext4 128 defaults
options=/proc/fs/ext4/$LOOPNAME/options
opt() { tr ',' '\n' < "$options" | sed -n "s/^$1=//p"; }

out=$(mktemp)
on_exit "rm -f '$out'"
"$BHSCOPE" tune set -d "$LOOPNAME" batch_min_us=2000 batch_max_us=8000 > "$out"
check set_min_by_remount test "$(opt min_batch_time)" = 2000
check set_max_by_remount test "$(opt max_batch_time)" = 8000
check set_says_remount grep -q "min_batch_time=2000,max_batch_time=8000 (remount)" "$out"
check mount_still_writable touch "$MNT/after-remount"

"$BHSCOPE" tune -j -d "$LOOPNAME" > "$out"
check show_reports_new_values python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))["journals"]
sys.exit(0 if len(j) == 1 and (j[0]["min_batch_us"], j[0]["max_batch_us"], j[0]["from"]) == (2000, 8000, "ext4") else 1)' "$out"

# -j is one line, as every other -j; -p the same JSON, indented
check json_is_one_line test "$(wc -l < "$out")" -eq 1
"$BHSCOPE" tune -p -d "$LOOPNAME" > "$out.pretty"
check pretty_is_indented test "$(wc -l < "$out.pretty")" -gt 5
check pretty_is_the_same_json python3 -c '
import json, sys
sys.exit(0 if json.load(open(sys.argv[1])) == json.load(open(sys.argv[2])) else 1)' "$out" "$out.pretty"
rm -f "$out.pretty"

"$BHSCOPE" tune set -d "$LOOPNAME" batch_max_us=-1 batch_min_us=500 > /dev/null
check minus_one_leaves_the_other_value test "$(opt min_batch_time),$(opt max_batch_time)" = 500,8000

"$BHSCOPE" tune reset -d "$LOOPNAME" > /dev/null
check reset_restores_defaults test "$(opt min_batch_time),$(opt max_batch_time)" = 0,15000

rc=0
"$BHSCOPE" tune set lru_size=32 2> "$out" || rc=$?
check lru_size_refused_without_module test "$rc" -eq 1
check lru_size_says_why grep -qE '^bhscope: lru_size needs bhtune.ko' "$out"
check lru_size_one_line test "$(wc -l < "$out")" -eq 1

for bad in batch_min_us=abc lru_size=-3 nosuch=1 batch_min_us; do
	rc=0
	"$BHSCOPE" tune set "$bad" 2> "$out" || rc=$?
	check "refuses_${bad//[^a-z_]/_}" test "$rc" -eq 64
done
rc=0
"$BHSCOPE" tune set -d nosuchdev0 batch_min_us=1 2> "$out" || rc=$?
check unknown_device_refused test "$rc" -eq 1
check unchanged_after_errors test "$(opt min_batch_time),$(opt max_batch_time)" = 0,15000
check show_without_module_says_why bash -c '"$0" tune | head -n 1 | grep -q "^bhtune.ko: not loaded"' "$BHSCOPE"

# The remount repeats the mount's flags, as mount(8) would: MS_REMOUNT
# alone would make it writable again and clear noatime, nosuid, nodev.
mount -o remount,ro,noatime,nosuid,nodev "$MNT"
flags=$(findmnt -n -o VFS-OPTIONS "$MNT")
"$BHSCOPE" tune set -d "$LOOPNAME" batch_min_us=700 > /dev/null
check remount_keeps_mount_flags test "$(findmnt -n -o VFS-OPTIONS "$MNT")" = "$flags"
check remount_sets_read_only_fs test "$(opt min_batch_time)" = 700
finish
