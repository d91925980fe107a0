#!/usr/bin/env bash
# The systemd unit's privileges are enough, and each is needed: bhscope
# serve run as an unprivileged user holding exactly the unit's
# AmbientCapabilities, in the unit's Group=, after the unit's own
# ExecStartPre= made tracefs readable by that group, attaches and serves;
# without that step it says tracefs is unreadable. The unit holds no
# capability to read files it does not own, passes `systemd-analyze verify`
# and scores no worse than 1.9 in `systemd-analyze security` (it scored
# 1.9 with CAP_DAC_READ_SEARCH and no network limits).
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/serve.sh
require_root
command -v setpriv > /dev/null || skip_all "setpriv is not installed (util-linux)"
grep -q '^tracefs /sys/kernel/tracing ' /proc/mounts ||
	skip_all "tracefs is not mounted at /sys/kernel/tracing"

unit=tools/systemd/bhscope.service
key() { awk -F= -v k="$1" '$1 == k { sub(/^[^=]*=/, ""); print }' "$unit"; }
caps=$(key AmbientCapabilities)
group=$(key Group)
pre=$(key ExecStartPre)
check bounding_set_is_the_ambient_set test "$caps" = "$(key CapabilityBoundingSet)"
check no_capability_to_read_any_file \
	bash -c "! grep -Eq 'CAP_(DAC_READ_SEARCH|DAC_OVERRIDE|SYS_ADMIN)' <<< '$caps'"
check tracefs_step_runs_as_root test "${pre:0:1}" = +

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
# tracefs's options as found, put back at the end (gid 0, mode 700 when
# none are shown).
opts=$(awk '$2 == "/sys/kernel/tracing" { print $4 }' /proc/mounts)
old_gid=$(grep -o 'gid=[0-9]*' <<< "$opts" || echo gid=0)
old_mode=$(grep -o 'mode=[0-7]*' <<< "$opts" || echo mode=700)
on_exit "mount -o remount,$old_gid,$old_mode /sys/kernel/tracing"
mount -o "remount,gid=0,mode=0700" /sys/kernel/tracing

tmp=$(mktemp -d /tmp/bhscope-serve-caps.XXXXXX)
on_exit "rm -rf '$tmp'"
chmod 755 "$tmp"
as_service_user=(setpriv --reuid=65534 --regid="$gid" --clear-groups
	--inh-caps="$caps" --ambient-caps="$caps")

rc=0
"${as_service_user[@]}" "$BHSCOPE" serve --listen 127.0.0.1:0 --jbd2 2> "$tmp/log0" || rc=$?
check without_group_access_tracefs_is_unreadable test "$rc" -eq 1
check says_tracefs_is_unreadable grep -q "^bhscope: tracefs at .* is not readable" "$tmp/log0"

# The unit's own command, as systemd runs it with "+" (as root).
eval "${pre#+}"
check tracefs_readable_by_the_group \
	grep -Eq "^tracefs /sys/kernel/tracing .*gid=$gid,mode=750" /proc/mounts

"${as_service_user[@]}" "$BHSCOPE" serve --listen 127.0.0.1:0 --jbd2 2> "$tmp/log" &
pid=$!
on_exit "stop_pid $pid"
url=
for ((i = 0; i < 100; i++)); do
	url=$(grep -o 'http://[0-9.:]*' "$tmp/log" | head -n 1 || true)
	[[ -n $url ]] && break
	kill -0 "$pid" 2> /dev/null || break
	sleep 0.1
done
check serves_with_the_units_privileges test -n "$url"
curl -sf "$url/metrics" > "$tmp/m" || true
check jbd2_source_up grep -qx 'bhscope_source_up{source="jbd2"} 1' "$tmp/m"
check tracepoints_attached \
	grep -qx 'bhscope_probe_up{source="jbd2",probe="tp_btf/jbd2_run_stats"} 1' "$tmp/m"
check runs_as_the_unprivileged_user test "$(awk '/^Uid:/ { print $3 }' "/proc/$pid/status")" = 65534
check holds_no_file_reading_capability test \
	"$(awk '/^CapEff:/ { print $2 }' "/proc/$pid/status")" = "$(printf '%016x' $(((1 << 38) | (1 << 39))))"
stop_pid "$pid"

if command -v systemd-analyze > /dev/null; then
	# verify wants the binary the unit names to exist; the man page it
	# names is checked once installed (tests/live/deb_install.sh).
	sed "s|/usr/sbin/bhscope|$BHSCOPE|" "$unit" > "$tmp/bhscope.service"
	check unit_file_verifies systemd-analyze verify --man=no "$tmp/bhscope.service"
	score=$(systemd-analyze security --offline=true "$tmp/bhscope.service" 2>&1 |
		sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
	echo "systemd-analyze security: $score (was 1.9)"
	check security_exposure_at_most_1_9 awk -v s="${score:-99}" 'BEGIN { exit !(s <= 1.9) }'
else
	echo "SKIP: $TEST_NAME/unit_file_verifies: systemd-analyze is not installed"
fi
finish
