#!/usr/bin/env bash
# bhscope serve --lru-duty where the kernel refuses the lookup probes (this
# host: no fentry, no kprobes): every window fails and says why, once on
# stderr and in bhscope_lru_window_info, the windows keep coming (counted
# failed), the hits-only tracepoint counts on, no window figure appears,
# and serve leaves nothing loaded behind.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/serve.sh
require_root
command -v curl > /dev/null || skip_all "curl is not installed (make deps)"
command -v bpftool > /dev/null || skip_all "bpftool is not installed (make deps)"
probes=$("$BHSCOPE" lru --probes -j 2> /dev/null || true)
[[ $probes == *'"mode":"tracepoint"'* ]] ||
	skip_all "the lookup probes attach here: tests/vm/52 covers the windows"

start_serve --lru --lru-duty=0.2/0.5
ids=$(prog_ids_of "$SERVE_PID")
sleep 2.5
scrape > "$SERVE_LOG.1"
on_exit "rm -f '$SERVE_LOG.1'"
failed=$(series_value "$SERVE_LOG.1" 'bhscope_lru_windows_total{result="failed"}' || echo 0)
complete=$(series_value "$SERVE_LOG.1" 'bhscope_lru_windows_total{result="complete"}' || echo none)
check windows_keep_coming test "$failed" -ge 3
check none_complete test "$complete" = 0
check why_in_the_info grep -q 'bhscope_lru_window_info{window_seconds="0.2",period_seconds="0.5",mode="",hook="",why="[^"]*fentry: [^"]*"} 1' "$SERVE_LOG.1"
check said_once_on_stderr test "$(grep -c -- '--lru-duty: a window failed' "$SERVE_LOG")" = 1
check hits_counted_throughout grep -q '^bhscope_lru_mode_info{mode="tracepoint"' "$SERVE_LOG.1"
check no_window_figures bash -c "! grep -q '^bhscope_lru_window_\\(hits\\|lookups\\|seconds\\)' '$SERVE_LOG.1'"
check serve_still_up kill -0 "$SERVE_PID"
stop_pid "$SERVE_PID"
# shellcheck disable=SC2086 # one id a word
check nothing_left_loaded test -z "$(progs_left 5 $ids)"
finish
