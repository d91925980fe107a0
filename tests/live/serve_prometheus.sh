#!/usr/bin/env bash
# A real Prometheus, started here on loopback with a private port and data
# dir, scrapes bhscope serve every second while sync writers run on a
# RAM-backed ext4 (-o dirsync: one commit per file). PromQL through the
# HTTP API then finds the series with plausible values: the transaction
# count equals the kernel's /proc/fs/jbd2 figure once the fs is frozen,
# rates and latency quantiles are sane, no counter ever reset.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/serve.sh
require_root
require_prometheus
command -v fs_mark > /dev/null || skip_all "fs_mark is not installed (make deps)"

# Tracing starts before the mount: bhscope sees every transaction.
ram_ext4_unmounted 256 -b 4096
start_serve -d "$LOOPNAME"
mount_ram_ext4 dirsync
start_prometheus "${SERVE_URL#http://}"
dev="device=\"$LOOPNAME\""

check prometheus_scrapes_bhscope wait_promql 'up{job="bhscope"} == 1' 10
sync_writers 4
# Freezing commits what is running and holds new handles off.
fsfreeze -f "$MNT"
on_exit "fsfreeze -u '$MNT' 2>/dev/null"
sleep 0.5
kernel_tx=$(jbd2_transactions)
# Two more scrapes, so Prometheus holds the final value.
sleep 2.5

q="bhscope_jbd2_transactions_total{$dev}"
prom_tx=$(promql_value "$q")
echo "query: $q"
promql "$q" | jq -c '.data.result'
echo "kernel /proc/fs/jbd2/$LOOPNAME-8/info: $kernel_tx transactions"
check transactions_series_exists test -n "$prom_tx"
check transactions_match_the_kernel test "${prom_tx:-0}" -eq "$kernel_tx"
check many_transactions_during_the_run test "${prom_tx:-0}" -gt 100

rate=$(promql_value "max_over_time(rate(bhscope_jbd2_transactions_total{$dev}[3s])[30s:1s])")
echo "peak transactions/s: $rate"
check transaction_rate_is_positive awk -v r="${rate:-0}" 'BEGIN { exit !(r > 10) }'

p50=$(promql_value "histogram_quantile(0.5, sum by (le) (increase(bhscope_jbd2_commit_duration_seconds_bucket{$dev}[1m])))")
echo "median commit latency: $p50 s"
check commit_latency_median_is_plausible awk -v v="${p50:-0}" 'BEGIN { exit !(v > 1e-6 && v < 1) }'

hpt=$(promql_value "bhscope_jbd2_transaction_handles_sum{$dev} / bhscope_jbd2_transaction_handles_count{$dev}")
echo "handles per transaction: $hpt"
check handles_per_transaction_is_plausible awk -v v="${hpt:-0}" 'BEGIN { exit !(v >= 1 && v < 1000) }'

check sync_commits_seen test "$(promql_value "bhscope_jbd2_sync_commits_total{$dev}")" -gt 0
check max_batch_time_is_a_gauge_in_seconds \
	test "$(promql_value "bhscope_jbd2_max_batch_time_seconds{$dev}")" = 0.015
check run_stats_probe_up \
	test "$(promql_value 'bhscope_probe_up{probe="tp_btf/jbd2_run_stats"}')" = 1

# Every sample Prometheus stored of every counter, histogram bucket, _sum
# and _count: none is below the one before it.
promql "{__name__=~\"bhscope_.*(_total|_bucket|_count|_sum)\"}[5m]" > "$MNT.range.json" || true
on_exit "rm -f '$MNT.range.json'"
read -r nseries nbackwards < <(jq -r '[.data.result[]
	| [.values[][1] | tonumber] as $v
	| [range(1; $v | length) | select($v[.] < $v[. - 1])] | length]
	| "\(length) \(add)"' "$MNT.range.json")
echo "counter series stored: $nseries, samples below their predecessor: $nbackwards"
check counter_series_stored test "${nseries:-0}" -gt 50
check no_counter_ever_went_backwards test "${nbackwards:-x}" = 0
finish
