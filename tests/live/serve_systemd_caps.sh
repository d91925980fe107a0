#!/usr/bin/env bash
# The systemd unit's privileges are enough, and each is needed: bhscope
# serve run as an unprivileged user holding exactly the unit's
# AmbientCapabilities, in the unit's Group=, attaches and serves with
# tracefs left root's alone (mode 0700): BTF tracepoints, fentry, kprobes
# and raw tracepoints need nothing from it, and the unit remounts nothing
# itself. Its tracefs step (bhscope-tracefs, run as root) changes tracefs
# only where `bhscope serve --probes` says a classic tracepoint needs it:
# then it records tracefs's gid and mode, makes it readable by the group,
# and puts them back on stop (unless someone changed tracefs since); a
# record left by a service that never stopped keeps the original. The unit
# holds no capability to read files it does not own, passes
# `systemd-analyze verify` and scores no worse than 1.9 in
# `systemd-analyze security` (it scored 1.9 with CAP_DAC_READ_SEARCH and no
# network limits).
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/serve.sh
require_root
command -v setpriv > /dev/null || skip_all "setpriv is not installed (util-linux)"
grep -q '^tracefs /sys/kernel/tracing ' /proc/mounts ||
	skip_all "tracefs is not mounted at /sys/kernel/tracing"

unit=systemd/bhscope.service
helper=systemd/bhscope-tracefs
key() { awk -F= -v k="$1" '$1 == k { sub(/^[^=]*=/, ""); print }' "$unit"; }
caps=$(key AmbientCapabilities)
group=$(key Group)
pre=$(key ExecStartPre)
post=$(key ExecStopPost)
check bounding_set_is_the_ambient_set test "$caps" = "$(key CapabilityBoundingSet)"
check no_capability_to_read_any_file \
	bash -c "! grep -Eq 'CAP_(DAC_READ_SEARCH|DAC_OVERRIDE|SYS_ADMIN)' <<< '$caps'"
check unit_remounts_nothing_itself bash -c "! grep -E '^Exec' '$unit' | grep -q mount"
check tracefs_step_runs_as_root_on_start \
	test "$pre" = "+/usr/libexec/bhscope/bhscope-tracefs grant"
check tracefs_step_runs_as_root_on_stop \
	test "$post" = "+/usr/libexec/bhscope/bhscope-tracefs restore"

# "CAP_BPF CAP_PERFMON" -> "+bpf,+perfmon" for setpriv.
setpriv_caps() {
	local c out=
	for c in "$@"; do
		c=${c#CAP_}
		out+=${out:+,}+${c,,}
	done
	echo "$out"
}
# shellcheck disable=SC2086 # one word per capability
caps=$(setpriv_caps $caps)

# The group the package creates; made here for the test when absent.
if ! getent group "$group" > /dev/null; then
	groupadd --system "$group"
	on_exit "groupdel '$group'"
fi
gid=$(getent group "$group" | cut -d: -f3)
# tracefs's gid and mode as /proc shows them (defaults when it shows none)
tracefs_opts() {
	local o
	o=$(awk '$2 == "/sys/kernel/tracing" { print $4 }' /proc/mounts)
	echo "$(grep -o 'gid=[0-9]*' <<< "$o" || echo gid=0),$(grep -o 'mode=[0-7]*' <<< "$o" || echo mode=700)"
}
# tracefs's options as found, put back at the end; root's alone meanwhile.
orig=$(tracefs_opts)
on_exit "mount -o 'remount,$orig' /sys/kernel/tracing"
mount -o "remount,gid=0,mode=0700" /sys/kernel/tracing

tmp=$(mktemp -d /tmp/bhscope-serve-caps.XXXXXX)
on_exit "rm -rf '$tmp'"
chmod 755 "$tmp"
as_service_user=(setpriv --reuid=65534 --regid="$gid" --clear-groups
	--inh-caps="$caps" --ambient-caps="$caps")

check tracefs_unreadable_by_the_service_user \
	bash -c "! ${as_service_user[*]} test -r /sys/kernel/tracing/events"
"${as_service_user[@]}" "$BHSCOPE" serve --listen 127.0.0.1:0 2> "$tmp/log" &
pid=$!
on_exit "stop_pid $pid"
url=
for ((i = 0; i < 100; i++)); do
	url=$(grep -o 'http://[0-9.:]*' "$tmp/log" | head -n 1 || true)
	[[ -n $url ]] && break
	kill -0 "$pid" 2> /dev/null || break
	sleep 0.1
done
check serves_with_the_units_privileges_without_tracefs test -n "$url"
[[ -n $url ]] || cat "$tmp/log"
curl -sf "$url/metrics" > "$tmp/m" || true
check jbd2_source_up grep -qx 'bhscope_source_up{source="jbd2"} 1' "$tmp/m"
check jbd2_btf_tracepoints_attached \
	grep -qx 'bhscope_probe_up{source="jbd2",probe="tp_btf/jbd2_run_stats"} 1' "$tmp/m"
check jbd2_checkpoints_found_in_btf \
	grep -qx 'bhscope_probe_up{source="jbd2",probe="tp_btf/jbd2_checkpoint_stats"} 1' "$tmp/m"
check lru_source_up grep -qx 'bhscope_source_up{source="lru"} 1' "$tmp/m"
check no_probe_down_for_want_of_tracefs \
	bash -c "! grep '^bhscope_probe_error_info' '$tmp/m' | grep -q 'tracefs.*not readable'"
check runs_as_the_unprivileged_user test "$(awk '/^Uid:/ { print $3 }' "/proc/$pid/status")" = 65534
check holds_no_file_reading_capability test \
	"$(awk '/^CapEff:/ { print $2 }' "/proc/$pid/status")" = "$(printf '%016x' $(((1 << 38) | (1 << 39))))"
stop_pid "$pid"
check tracefs_left_root_s_alone test "$(tracefs_opts)" = gid=0,mode=700

# The unit's tracefs step, as systemd runs it ("+": as root).
export BHSCOPE_TRACEFS_RECORD=$tmp/tracefs.orig
out=$(BHSCOPE=$BHSCOPE BHSCOPE_SERVE_ARGS='' "$helper" grant)
echo "grant: $out"
check grant_changes_nothing_where_no_probe_needs_tracefs \
	test "$(tracefs_opts)" = gid=0,mode=700 -a ! -e "$BHSCOPE_TRACEFS_RECORD"
check grant_says_so grep -q 'no probe needs it' <<< "$out"

# A kernel where a classic tracepoint is needed: its --probes says so.
fake=$tmp/bhscope-classic
printf '%s\n' '#!/bin/sh' \
	'printf "jbd2\ttracepoint/jbd2/jbd2_run_stats\tup\n"' \
	'echo "tracefs: needed by jbd2 tracepoint/jbd2/jbd2_run_stats"' > "$fake"
chmod 755 "$fake"
BHSCOPE=$fake "$helper" grant > /dev/null
check grant_records_the_old_gid_and_mode test "$(cat "$BHSCOPE_TRACEFS_RECORD" 2> /dev/null)" = gid=0,mode=700
check grant_makes_tracefs_readable_by_the_group test "$(tracefs_opts)" = "gid=$gid,mode=750"
check the_service_user_reads_tracefs_then "${as_service_user[@]}" test -r /sys/kernel/tracing/events
# A start after a stop that never ran: the record still holds the original.
BHSCOPE=$fake "$helper" grant > /dev/null
check a_second_grant_keeps_the_original test "$(cat "$BHSCOPE_TRACEFS_RECORD")" = gid=0,mode=700
"$helper" restore > /dev/null
check restore_puts_back_gid_and_mode test "$(tracefs_opts)" = gid=0,mode=700
check restore_drops_the_record test ! -e "$BHSCOPE_TRACEFS_RECORD"
# Changed by someone else since the grant: left as it is.
BHSCOPE=$fake "$helper" grant > /dev/null
mount -o remount,mode=0755 /sys/kernel/tracing
"$helper" restore > /dev/null
check restore_leaves_a_tracefs_changed_since test "$(tracefs_opts)" = "gid=$gid,mode=755"
mount -o remount,gid=0,mode=0700 /sys/kernel/tracing
printf '%s\n' '#!/bin/sh' 'exit 1' > "$fake"
rc=0
BHSCOPE=$fake "$helper" grant > /dev/null 2> "$tmp/err" || rc=$?
check grant_fails_in_one_line_when_bhscope_does \
	bash -c "[[ $rc -ne 0 && \$(wc -l < '$tmp/err') -eq 1 ]] && grep -q '^bhscope-tracefs: ' '$tmp/err'"
check failed_grant_changes_nothing test "$(tracefs_opts)" = gid=0,mode=700

if command -v systemd-analyze > /dev/null; then
	# verify wants the programs the unit names to exist; the man page it
	# names is checked once installed (tests/live/deb_packages.sh).
	sed "s|/usr/sbin/bhscope|$BHSCOPE|; s|/usr/libexec/bhscope/bhscope-tracefs|$PWD/$helper|" \
		"$unit" > "$tmp/bhscope.service"
	check unit_file_verifies systemd-analyze verify --man=no "$tmp/bhscope.service"
	score=$(systemd-analyze security --offline=true "$tmp/bhscope.service" 2>&1 |
		sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
	echo "systemd-analyze security: $score (was 1.9)"
	check security_exposure_at_most_1_9 awk -v s="${score:-99}" 'BEGIN { exit !(s <= 1.9) }'
else
	echo "SKIP: $TEST_NAME/unit_file_verifies: systemd-analyze is not installed"
fi
finish
