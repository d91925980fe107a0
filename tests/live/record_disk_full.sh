#!/usr/bin/env bash
# A record that does not fit (a 16 KiB tmpfs) fails with one clear line,
# leaves no partial record or temporary file, and keeps an older record of
# the same name whole.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
# shellcheck source=../lib/record.sh
source "$(dirname "$0")/../lib/record.sh"
need_tools
[[ $EUID -eq 0 ]] || skip "needs root to mount a tmpfs"
scratch_setup
tiny=$SCRATCH/tiny
mkdir "$tiny"
mount -t tmpfs -o size=16k tmpfs "$tiny"
echo '{"old": true}' > "$tiny/rec.json"
# Fill the rest so that not even one page is left.
dd if=/dev/zero of="$tiny/fill" bs=4k 2> /dev/null || true

rc=0
"$BHSCOPE" record -q -o "$tiny/rec.json" -- \
	sh -c 'head -c 65536 /dev/zero | tr "\0" x' > /dev/null 2> "$SCRATCH/err" || rc=$?
err=$(cat "$SCRATCH/err")
if [[ $rc -ne 0 ]]; then check_pass disk_full_exits_non_zero
else check_fail disk_full_exits_non_zero "exit 0"; fi
if [[ $err == *"bhscope: $tiny/rec.json: writing the record failed: No space left on device"* ]]
then check_pass disk_full_says_so_in_one_line
else check_fail disk_full_says_so_in_one_line "stderr: $err"; fi
left=$(find "$tiny" -mindepth 1 ! -name rec.json ! -name fill)
if [[ -z $left ]]; then check_pass no_temporary_file_left
else check_fail no_temporary_file_left "$left"; fi
if [[ $(cat "$tiny/rec.json") == '{"old": true}' ]]; then check_pass older_record_kept_whole
else check_fail older_record_kept_whole "rec.json changed"; fi

# With room again, the same command writes a complete record.
rm -f "$tiny/fill"
umount "$tiny"
mount -t tmpfs -o size=1m tmpfs "$tiny"
if "$BHSCOPE" record -q -o "$tiny/rec.json" -- true 2> "$SCRATCH/err" &&
	"$BHSCOPE" compare "$tiny/rec.json" > /dev/null 2>&1
then check_pass record_written_when_there_is_room
else check_fail record_written_when_there_is_room "$(cat "$SCRATCH/err")"; fi
finish
