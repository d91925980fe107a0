#!/bin/bash
# bhscope.service's privilege model on this kernel (issue 33 item 6). The
# guest has no systemd, so bhscope serve runs as the unit makes it run: an
# unprivileged user holding exactly the unit's AmbientCapabilities, with
# tracefs root's alone (mode 0700), and the unit's tracefs step
# (systemd/bhscope-tracefs) runs as root around it.
#  1. The kernel's own LRU: `bhscope serve --probes` says tracefs is not
#     needed, the tracefs step leaves it as it is, and the service user
#     attaches jbd2 (BTF tracepoints where jbd2 is built in, as on
#     6.1-cloud; raw tracepoints where it is a module, whose BTF only
#     CAP_SYS_ADMIN may read from the kernel), the LRU's lookup hooks
#     (fentry or kprobes; the emptying watch fentry) and counts
#     transactions and lookups on ext4 on a ramdisk.
#  2. With bhtune.ko (when built for this kernel): its events are raw
#     tracepoints and their layout is read from sysfs, so --probes says
#     tracefs is not needed, the step leaves it alone, and the service user
#     traces bhtune's lookups. (The step's grant and restore, for kernels
#     without BTF tracepoints, are tested on the host: serve_systemd_caps.)
# The group is nogroup (the guest's /etc is the host's, read-only).
set -euo pipefail
# shellcheck source=tests/lib/guest_bhtune.sh
. "$REPO/tests/lib/guest_bhtune.sh"
# shellcheck source=tests/lib/guest_lru.sh
. "$REPO/tests/lib/guest_lru.sh"

K=12 PASSES=20
lru_need_tools
command -v setpriv >/dev/null || skip "setpriv is not installed on the host (util-linux)"
group=nogroup
gid=$(getent group $group | cut -d: -f3) || skip "no group $group on the host"
unit=$REPO/systemd/bhscope.service
helper=$REPO/systemd/bhscope-tracefs
tracing=/sys/kernel/tracing
export BHSCOPE=$LRU_BHSCOPE BHSCOPE_TRACEFS_GROUP=$group BHSCOPE_SERVE_ARGS=
export BHSCOPE_TRACEFS_RECORD=$PWD/tracefs.orig

# The unit's capabilities, "CAP_BPF CAP_PERFMON" -> "+bpf,+perfmon".
caps=$(awk -F= '$1 == "AmbientCapabilities" { print $2 }' "$unit")
caps=$(for c in $caps; do c=${c#CAP_}; printf '+%s,' "${c,,}"; done)
caps=${caps%,}
[[ $caps == +bpf,+perfmon ]] || fail "the unit's capabilities are '$caps', this test knows +bpf,+perfmon"
as_service_user=(setpriv --reuid=65534 --regid="$gid" --clear-groups
	--inh-caps="$caps" --ambient-caps="$caps")

have_bhtune=0
if [[ -f $BHT_KO/bhtune.ko && -f $BHT_KO/bhtune_events.ko && -d /sys/kernel/livepatch ]]; then
	have_bhtune=1
	bht_cleanup # what a test killed by its timeout left (as bht_need does)
	BHT_LOG_START=$(bht_kmsg_mark start)
fi

tracefs_opts() {
	local o
	o=$(awk -v m=$tracing '$2 == m { print $4 }' /proc/mounts)
	echo "$(grep -o 'gid=[0-9]*' <<<"$o" || echo gid=0),$(grep -o 'mode=[0-7]*' <<<"$o" || echo mode=700)"
}
orig=$(tracefs_opts)

SERVES=
# the textfiles, where the service user may write (the scratch directory
# need not be reachable by it)
out=$(mktemp -d /tmp/bhscope-unit.XXXXXX)
chmod 755 "$out"
cleanup() {
	local pid
	for pid in $SERVES; do kill "$pid" 2>/dev/null || true; done
	wait 2>/dev/null || true
	mount -o "remount,$orig" $tracing 2>/dev/null || true
	rm -rf "$out"
	lru_cleanup || true
	bht_cleanup || true
}
lru_ext4 "$PWD/mnt"
trap cleanup EXIT
mount -o remount,gid=0,mode=0700 $tracing || fail "cannot remount tracefs"
lru_dir "$PWD/mnt/a" $K

# serve_as_service NAME: bhscope serve as the service user, writing
# $out/NAME/bhscope.prom every second; returns once it did.
serve_as_service() {
	mkdir -p "$out/$1"
	chown 65534:"$gid" "$out/$1"
	"${as_service_user[@]}" "$LRU_BHSCOPE" serve -l none --textfile "$out/$1" -i 1 \
		2>"$1.err" &
	SERVE=$!
	SERVES="$SERVES $SERVE"
	wait_until 60 $SERVE test -s "$out/$1/bhscope.prom" ||
		fail "bhscope serve as the service user wrote no textfile: $(cat "$1.err")"
}
stop_serve() { # NAME
	kill "$SERVE"
	wait "$SERVE" || fail "bhscope serve exited with $? on SIGTERM: $(cat "$1.err")"
}
prom() { grep -E "^$2(\{| )" "$out/$1/bhscope.prom" || true; }
value() { # NAME SERIES: the value of one exact series
	awk -v s="$2" 'index($0, s " ") == 1 { print $2; exit }' "$out/$1/bhscope.prom"
}
workload() {
	local i
	lru_list "$PWD/mnt/a" $PASSES
	for ((i = 0; i < 20; i++)); do
		: >"$PWD/mnt/j$i"
		sync "$PWD/mnt/j$i"
	done
}

# 1. The kernel's own LRU. Where jbd2 is a module its BTF is out of the
# service's reach (only CAP_SYS_ADMIN may read it from the kernel), so the
# service takes jbd2's raw tracepoints (CO-RE from /sys/kernel/btf) and
# the batching sleep is down; where jbd2 is built in, its BTF tracepoints.
# Neither needs tracefs, and --probes (as root, with the service's
# capabilities) says so.
"$LRU_BHSCOPE" serve --probes >probes1.txt || fail "serve --probes failed"
sed 's/^/  probes: /' probes1.txt
grep -qx 'tracefs: not needed' probes1.txt ||
	fail "serve --probes says tracefs is needed here: $(tail -n 1 probes1.txt)"
jbd2_probe=tp_btf/jbd2_run_stats
grep -q '^jbd2 ' /proc/modules && jbd2_probe=raw_tp/jbd2_run_stats
grep -qx "jbd2	$jbd2_probe	up" probes1.txt ||
	fail "serve --probes does not attach jbd2 through $jbd2_probe"
"$helper" grant
[[ $(tracefs_opts) == gid=0,mode=700 && ! -e $BHSCOPE_TRACEFS_RECORD ]] ||
	fail "the tracefs step changed tracefs ($(tracefs_opts)) where no probe needs it"
"${as_service_user[@]}" test -r $tracing/events &&
	fail "tracefs is readable by the service user: the test proves nothing"
echo "PASS: no probe needs tracefs here (jbd2 through $jbd2_probe), and the tracefs step leaves it root's alone"

serve_as_service own
workload
sleep 2.5
[[ $(value own 'bhscope_source_up{source="jbd2"}') == 1 &&
	$(value own 'bhscope_source_up{source="lru"}') == 1 ]] ||
	fail "a source is down for the service user: $(prom own bhscope_source_up); $(prom own bhscope_probe_error_info)"
[[ $(value own "bhscope_probe_up{source=\"jbd2\",probe=\"$jbd2_probe\"}") == 1 ]] ||
	fail "jbd2 is not attached through $jbd2_probe: $(prom own bhscope_probe_up)"
prom own bhscope_lru_mode_info | grep -qE 'mode="(fentry|kprobe)"' ||
	fail "the LRU is not traced by its lookup hooks: $(prom own bhscope_lru_mode_info)"
if in_kallsyms invalidate_bh_lru; then
	prom own bhscope_probe_up | grep -qx 'bhscope_probe_up{source="lru",probe="fentry/invalidate_bh_lru"} 1' ||
		fail "the emptying watch is not attached as fentry: $(prom own bhscope_probe_up)"
fi
tx=$(value own "bhscope_jbd2_transactions_total{device=\"$LRU_DEV\"}")
lookups=$(value own "bhscope_lru_lookups_total{device=\"$LRU_DEV\"}")
((${tx:-0} >= 20 && ${lookups:-0} >= K * PASSES)) ||
	fail "the service user counted ${tx:-no} transactions (want 20) and ${lookups:-no} lookups (want $((K * PASSES))) of $LRU_DEV"
prom own bhscope_probe_error_info | grep -q 'tracefs.*not readable' &&
	fail "a probe is down for want of tracefs: $(prom own bhscope_probe_error_info)"
stop_serve own
"$helper" restore
[[ $(tracefs_opts) == gid=0,mode=700 ]] || fail "tracefs changed: $(tracefs_opts)"
echo "PASS: the service user, tracefs root's alone: $tx transactions ($jbd2_probe), $lookups lookups; $(prom own bhscope_lru_mode_info)"

# 2. bhtune.ko's events: raw tracepoints, their layout read from sysfs.
if ((!have_bhtune)); then
	echo "bhtune.ko is not built for $KVER (tests/vm/bhtune.prep), or no livepatch: part 2 skipped"
	exit 0
fi
bht_load lru_size=24
"$LRU_BHSCOPE" serve --probes --lru >probes2.txt || fail "serve --probes failed with bhtune"
sed 's/^/  probes: /' probes2.txt
grep -qx 'tracefs: not needed' probes2.txt ||
	fail "serve --probes says bhtune's events need tracefs: $(tail -n 1 probes2.txt)"
"$helper" grant
[[ $(tracefs_opts) == gid=0,mode=700 && ! -e $BHSCOPE_TRACEFS_RECORD ]] ||
	fail "the tracefs step changed tracefs ($(tracefs_opts)) for bhtune's events"
serve_as_service bhtune
wait_until 20 $SERVE grep -q '^bhscope_lru_mode_info{mode="bhtune"' "$out/bhtune/bhscope.prom" ||
	fail "the service user does not trace bhtune: $(prom bhtune bhscope_lru_mode_info); $(prom bhtune bhscope_probe_error_info)"
lru_list "$PWD/mnt/a" $PASSES
sleep 2.5
lookups=$(value bhtune "bhscope_lru_lookups_total{device=\"$LRU_DEV\"}")
((${lookups:-0} >= K * PASSES)) ||
	fail "the service user counted ${lookups:-no} bhtune lookups of $LRU_DEV, want $((K * PASSES))"
stop_serve bhtune
"$helper" restore
[[ $(tracefs_opts) == gid=0,mode=700 ]] || fail "tracefs changed: $(tracefs_opts)"
echo "PASS: the service user traces bhtune's lookups ($lookups) with tracefs root's alone"
bht_unload
bht_log_clean "bhtune: module verification failed"
