#!/usr/bin/env bash
# bhscope serve's exposition passes `promtool check metrics`, with and
# without --per-cpu, over HTTP and as the atomically rewritten textfile; the
# figures of a dirsync fs_mark run on a RAM-backed ext4 are there, the
# process's under the standard process_* names, each probe down with its
# cause; SIGTERM detaches every BPF program and removes the textfile.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/serve.sh
require_root
command -v promtool > /dev/null || skip_all "promtool is not installed (make deps)"
command -v fs_mark > /dev/null || skip_all "fs_mark is not installed (make deps)"

out=$(mktemp -d /tmp/bhscope-serve-out.XXXXXX)
on_exit "rm -rf '$out'"
textdir=$out/textfile
mkdir "$textdir"

ram_ext4 256 dirsync -b 4096
start_serve --per-cpu --textfile "$textdir" --interval 0.5
sync_writers 2

scrape > "$out/per-cpu.prom"
check per_cpu_exposition_passes_promtool promtool check metrics < "$out/per-cpu.prom"
check per_cpu_series_have_cpu_labels \
	grep -qE "^bhscope_jbd2_transactions_total\{device=\"$LOOPNAME\",cpu=\"[0-9]+\"\} [1-9]" "$out/per-cpu.prom"
check histograms_end_in_inf_sum_count grep -qE \
	"^bhscope_jbd2_commit_duration_seconds_bucket\{device=\"$LOOPNAME\",cpu=\"[0-9]+\",le=\"\+Inf\"\} [1-9]" "$out/per-cpu.prom"
if grep -qx 'bhscope_source_up{source="lru"} 1' "$out/per-cpu.prom"; then
	# The fs's metadata lookups go through the buffer-head LRU: hits.
	check lru_hits_per_cpu_on_the_device grep -qE \
		"^bhscope_lru_hits_total\{device=\"$LOOPNAME\",cpu=\"[0-9]+\"\} [1-9]" "$out/per-cpu.prom"
else
	echo "SKIP: $TEST_NAME/lru_hits_per_cpu_on_the_device: no LRU source in this build or kernel"
fi

# The textfile is rewritten every 0.5 s: wait for a write after the run.
sleep 1.2
check textfile_passes_promtool promtool check metrics < "$textdir/bhscope.prom"
check textfile_holds_the_device grep -q "device=\"$LOOPNAME\"" "$textdir/bhscope.prom"
check textfile_leaves_no_temporary_files \
	test "$(find "$textdir" -mindepth 1 | wc -l)" -eq 1
check textfile_is_world_readable test "$(stat -c %a "$textdir/bhscope.prom")" = 644

ids=$(prog_ids_of "$SERVE_PID")
check programs_attached_while_serving test -n "$ids"
kill -TERM "$SERVE_PID"
rc=0
wait "$SERVE_PID" || rc=$?
check sigterm_exits_0 test "$rc" -eq 0
check stderr_has_no_errors_but_known_probe_reasons \
	bash -c "! grep -v -e 'not attached' -e 'serving' '$SERVE_LOG'"
# shellcheck disable=SC2086 # one ID a word
left=$(progs_left 15 $ids)
check sigterm_detaches_every_program test -z "$left"
check sigterm_removes_the_textfile test ! -e "$textdir/bhscope.prom"

# Without --per-cpu: one series per device, no cpu label anywhere; with
# --bpf-stats, the programs' run time.
start_serve -d "$LOOPNAME" --bpf-stats
sync_writers 1
scrape > "$out/plain.prom"
check exposition_passes_promtool promtool check metrics < "$out/plain.prom"
check no_cpu_label_without_per_cpu bash -c "! grep -q 'cpu=\"' '$out/plain.prom'"
check device_filter_exports_only_that_device \
	bash -c "! grep -E 'device=\"' '$out/plain.prom' | grep -vq 'device=\"$LOOPNAME\"'"
# The process under the names every Prometheus client library uses.
standard_process_names() {
	local n
	for n in process_cpu_seconds_total process_resident_memory_bytes \
		process_virtual_memory_bytes process_start_time_seconds \
		process_open_fds process_max_fds; do
		grep -q "^$n [0-9]" "$1" || { echo "no $n"; return 1; }
	done
	! grep -qE '^bhscope_(cpu_seconds_total|resident_memory_bytes|start_time_seconds) ' "$1"
}
check process_metrics_under_standard_names standard_process_names "$out/plain.prom"
# Each probe down says whether by design or broken.
check every_probe_error_has_a_cause bash -c "! grep '^bhscope_probe_error_info{' '$out/plain.prom' |
	grep -vE 'cause=\"(refused|absent|not_chosen|failed)\"'"
tx=$(series_value "$out/plain.prom" "bhscope_jbd2_transactions_total{device=\"$LOOPNAME\"}")
check transactions_counted test "${tx:-0}" -gt 0
probe='{source="jbd2",probe="tp_btf/jbd2_run_stats"}'
runs=$(series_value "$out/plain.prom" "bhscope_bpf_prog_runs_total$probe" || echo 0)
check bpf_stats_count_program_runs test "$runs" -ge "$tx"
check bpf_stats_time_program_runs awk -v t="$(series_value "$out/plain.prom" \
	"bhscope_bpf_prog_run_seconds_total$probe" || echo 0)" 'BEGIN { exit !(t > 0) }'
finish
