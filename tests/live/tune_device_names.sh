#!/usr/bin/env bash
# bhscope tune -d takes a device as every other command does (issue 15): a
# name, /dev/NAME or MAJOR:MINOR ("7:0" matched nothing and showed an empty
# table); a device that does not exist or holds no journal in use is a
# one-line error, not an empty table with exit 0.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/common.sh
require_root
[[ -d /sys/module/bhtune ]] && skip_all "bhtune.ko is loaded: this tests the remount path"

ram_ext4 64 defaults
numbers=$(cat "/sys/class/block/$LOOPNAME/dev")
options=/proc/fs/ext4/$LOOPNAME/options
opt() { tr ',' '\n' < "$options" | sed -n "s/^$1=//p"; }
out=$(mktemp)
on_exit "rm -f '$out'"

# journals_of ARG...: the devices tune -j lists.
journals_of() { "$BHSCOPE" tune -j "$@" | jq -r '.journals[].device'; }

check name_selects_the_journal test "$(journals_of -d "$LOOPNAME")" = "$LOOPNAME"
check dev_path_selects_the_journal test "$(journals_of -d "/dev/$LOOPNAME")" = "$LOOPNAME"
check major_minor_selects_the_journal test "$(journals_of -d "$numbers")" = "$LOOPNAME"
"$BHSCOPE" tune -d "$numbers" > "$out"
check text_table_has_the_journal grep -q "^$LOOPNAME " "$out"
"$BHSCOPE" tune set -d "$numbers" batch_min_us=3000 > /dev/null
check set_by_major_minor test "$(opt min_batch_time)" = 3000
"$BHSCOPE" tune reset -d "$numbers" > /dev/null
check reset_by_major_minor test "$(opt min_batch_time)" = 0

# expect_refused NAME PATTERN ARG...: exit 1, one line, starting "bhscope".
expect_refused() {
	local name=$1 pattern=$2 err rc=0
	shift 2
	err=$("$BHSCOPE" tune "$@" 2>&1 > /dev/null) || rc=$?
	if [[ $rc -eq 1 && $(wc -l <<< "$err") -eq 1 && $err == bhscope*"$pattern"* ]]
	then pass "$name"
	else fail "$name" "exit $rc: $err"; fi
}

expect_refused unknown_name_refused "unknown device 'nosuch'" -d nosuch
expect_refused unknown_name_refused_json "unknown device 'nosuch'" -j -d nosuch
expect_refused bad_numbers_refused "invalid device '7:x'" -d 7:x
# A block device that exists but holds no journal: another loop device.
img=$(mktemp /dev/shm/bhscope-test.XXXXXX)
on_exit "rm -f '$img'"
truncate -s 8M "$img"
other=$(losetup -f --show "$img")
on_exit "losetup -d '$other'"
expect_refused device_without_journal_refused "no jbd2 journal in use on ${other#/dev/}" -d "$other"
expect_refused set_on_device_without_journal_refused "no jbd2 journal in use" \
	set -d "$other" batch_min_us=1
check others_unchanged test "$(opt min_batch_time),$(opt max_batch_time)" = 0,15000
finish
