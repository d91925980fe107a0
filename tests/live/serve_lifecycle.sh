#!/usr/bin/env bash
# bhscope serve over a host's life: a new mount is exported at the next
# scrape, an unmounted and detached device stops being exported; SIGHUP
# re-reads --config (per-cpu, device filter, textfile directory), a broken
# file keeps the previous configuration and says so; SIGINT exits 0 and
# removes the textfile. A SIGTERM while serve still loads its BPF programs
# waits for them and ends it just as cleanly (it killed serve half started).
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/serve.sh
require_root
command -v fs_mark > /dev/null || skip_all "fs_mark is not installed (make deps)"

tmp=$(mktemp -d /tmp/bhscope-serve-life.XXXXXX)
on_exit "rm -rf '$tmp'"
mkdir "$tmp/a" "$tmp/b"
conf=$tmp/serve.conf
m=$tmp/metrics.prom

printf 'per-cpu = no\ntextfile = %s\ninterval = 0.5\n' "$tmp/a" > "$conf"
start_serve --config "$conf"

# wait_log TEXT: until serve's stderr has TEXT (5 s at most).
wait_log() {
	local i
	for ((i = 0; i < 50; i++)); do
		grep -q "$1" "$SERVE_LOG" && return 0
		sleep 0.1
	done
	return 1
}

ram_ext4 256 dirsync -b 4096
first=$LOOPNAME first_dev=$LOOPDEV first_mnt=$MNT
sync_writers 1
scrape > "$m"
check first_device_exported grep -q "^bhscope_jbd2_transactions_total{device=\"$first\"} [1-9]" "$m"

# A second filesystem: exported at once, counters at zero before events.
ram_ext4_unmounted 64
second=$LOOPNAME second_dev=$LOOPDEV second_mnt=$MNT
LOOPNAME=$first LOOPDEV=$first_dev MNT=$first_mnt	# sync_writers' target
mount "$second_dev" "$second_mnt"
on_exit "umount '$second_mnt' 2>/dev/null"
scrape > "$m"
check new_mount_exported_at_the_next_scrape \
	grep -q "^bhscope_jbd2_transactions_total{device=\"$second\"} " "$m"
for ((i = 0; i < 64; i++)); do : > "$second_mnt/x$i"; done
sync
second_kdev=$(kdev_of "$second")
in_map() { jbd2_devices "$SERVE_PID" | grep -qx "$1"; }
not_in_map() { ! in_map "$1"; }
check new_device_in_the_map in_map "$second_kdev"
lru_up=$(scrape | grep -c '^bhscope_source_up{source="lru"} 1' || true)
lru_counts() { lru_devices "$SERVE_PID" | grep -qx "$1"; }
no_lru_counts() { ! lru_counts "$1"; }
if ((lru_up)); then
	check new_device_has_lru_counters lru_counts "$second_kdev"
fi
umount "$second_mnt"
loopfs_detach "$second_dev"	# common.sh's own cleanup will find it done
scrape > "$m"
check unmounted_device_not_exported bash -c "! grep -q 'device=\"$second\"' '$m'"
sleep 0.7	# an interval: gone devices are pruned from the maps
check unmounted_device_pruned_from_the_map not_in_map "$second_kdev"
if ((lru_up)); then
	check unmounted_device_loses_its_lru_counters no_lru_counts "$second_kdev"
	check first_device_keeps_its_lru_counters lru_counts "$(kdev_of "$first")"
else
	echo "SKIP: $TEST_NAME/lru_counters: no LRU source in this build or kernel"
fi
check first_device_still_exported grep -q "device=\"$first\"" "$m"

check textfile_in_first_dir test -s "$tmp/a/bhscope.prom"
printf 'per-cpu = yes\ndevice = %s\ntextfile = %s\ninterval = 0.5\n' \
	"$first" "$tmp/b" > "$conf"
kill -HUP "$SERVE_PID"
check sighup_reloads wait_log 'configuration reloaded'
sync_writers 1
sleep 0.7
scrape > "$m"
check per_cpu_after_reload grep -q "^bhscope_jbd2_transactions_total{device=\"$first\",cpu=\"" "$m"
check device_filter_after_reload \
	bash -c "! grep -E 'device=\"' '$m' | grep -vq 'device=\"$first\"'"
check textfile_moves_to_the_new_dir test -s "$tmp/b/bhscope.prom"
check old_textfile_removed test ! -e "$tmp/a/bhscope.prom"
check reload_counted test "$(series_value "$m" bhscope_config_reloads_total)" = 1

echo 'per-cpu = perhaps' > "$conf"
kill -HUP "$SERVE_PID"
check broken_config_is_reported wait_log 'keeping the previous configuration'
scrape > "$m"
check broken_config_keeps_the_previous grep -q "cpu=\"" "$m"
check failed_reload_is_a_metric \
	test "$(series_value "$m" bhscope_config_last_reload_successful)" = 0
check server_survives_reloads kill -0 "$SERVE_PID"

kill -INT "$SERVE_PID"
rc=0
wait "$SERVE_PID" || rc=$?
check sigint_exits_0 test "$rc" -eq 0
check sigint_removes_the_textfile test ! -e "$tmp/b/bhscope.prom"

# SIGTERM while the tracers load (from their first BPF object on: a fixed
# delay lands before main() on a loaded host).
early_rc=""
for i in 1 2 3; do
	mkdir -p "$tmp/early$i"
	"$BHSCOPE" serve --listen none --textfile "$tmp/early$i" 2> "$tmp/early$i.log" &
	pid=$!
	bpf_loading "$pid"
	kill -TERM "$pid"
	rc=0
	wait "$pid" || rc=$?
	early_rc+=" $rc"
done
check sigterm_while_loading_exits_0 test "$early_rc" == " 0 0 0"
check sigterm_while_loading_leaves_no_textfile \
	test -z "$(find "$tmp"/early? -name '*.prom*' -print -quit)"
finish
