#!/usr/bin/env bash
# The systemd unit's capability set is enough, and each of its capabilities
# is needed: bhscope serve run as an unprivileged user holding exactly the
# unit's AmbientCapabilities attaches and serves; without
# CAP_DAC_READ_SEARCH it says tracefs is unreadable. The unit file passes
# `systemd-analyze verify`.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/serve.sh
require_root
command -v setpriv > /dev/null || skip_all "setpriv is not installed (util-linux)"

unit=tools/systemd/bhscope.service
caps=$(awk -F= '/^AmbientCapabilities=/ { print $2 }' "$unit")
bounding=$(awk -F= '/^CapabilityBoundingSet=/ { print $2 }' "$unit")
check bounding_set_is_the_ambient_set test "$caps" = "$bounding"
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
all=$(setpriv_caps $caps)
# shellcheck disable=SC2086
without_dac=$(setpriv_caps ${caps//CAP_DAC_READ_SEARCH/})

# as_service_user CAPS: setpriv's arguments to become uid 65534 with CAPS.
as_service_user() {
	echo "--reuid=65534 --regid=65534 --clear-groups --inh-caps=$1 --ambient-caps=$1"
}

tmp=$(mktemp -d /tmp/bhscope-serve-caps.XXXXXX)
on_exit "rm -rf '$tmp'"
chmod 755 "$tmp"
# shellcheck disable=SC2046 # one argument per word
setpriv $(as_service_user "$all") "$BHSCOPE" serve --listen 127.0.0.1:0 --jbd2 \
	2> "$tmp/log" &
pid=$!
on_exit "stop_pid $pid"
url=
for ((i = 0; i < 100; i++)); do
	url=$(grep -o 'http://[0-9.:]*' "$tmp/log" | head -n 1 || true)
	[[ -n $url ]] && break
	kill -0 "$pid" 2> /dev/null || break
	sleep 0.1
done
check serves_with_the_units_capabilities test -n "$url"
curl -sf "$url/metrics" > "$tmp/m" || true
check jbd2_source_up grep -qx 'bhscope_source_up{source="jbd2"} 1' "$tmp/m"
check tracepoints_attached \
	grep -qx 'bhscope_probe_up{source="jbd2",probe="tracepoint/jbd2/jbd2_run_stats"} 1' "$tmp/m"
check runs_as_the_unprivileged_user test "$(awk '/^Uid:/ { print $3 }' "/proc/$pid/status")" = 65534
stop_pid "$pid"

rc=0
# shellcheck disable=SC2046
setpriv $(as_service_user "$without_dac") "$BHSCOPE" serve --listen 127.0.0.1:0 \
	--jbd2 2> "$tmp/log2" || rc=$?
check dac_read_search_is_needed_for_tracefs test "$rc" -eq 1
check says_tracefs_is_unreadable grep -q "^bhscope: tracefs at .* is not readable" "$tmp/log2"

if command -v systemd-analyze > /dev/null; then
	# verify wants the binary the unit names to exist.
	sed "s|/usr/local/sbin/bhscope|$BHSCOPE|" "$unit" > "$tmp/bhscope.service"
	check unit_file_verifies systemd-analyze verify "$tmp/bhscope.service"
else
	echo "SKIP: $TEST_NAME/unit_file_verifies: systemd-analyze is not installed"
fi
finish
