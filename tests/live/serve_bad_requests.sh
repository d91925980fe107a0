#!/usr/bin/env bash
# bhscope serve answers bad HTTP requests with the right status and keeps
# serving: unknown path 404, other methods 405 (with Allow), headers beyond
# the connection's memory 431, garbage 400, and clients that connect and
# say nothing or hang up mid-request do not block the next scrape.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/serve.sh
require_root

start_serve --jbd2
url=$SERVE_URL
hostport=${url#http://}
host=${hostport%:*}
port=${hostport##*:}

check metrics_200 test "$(http_code "$url/metrics")" = 200
check content_type_is_prometheus_text \
	bash -c "curl -sI '$url/metrics' | grep -qi '^Content-Type: text/plain; version=0.0.4'"
check head_200_without_body test "$(curl -sI -o /dev/null -w '%{http_code} %{size_download}' "$url/metrics")" = "200 0"
check landing_page_200 test "$(http_code "$url/")" = 200
check unknown_path_404 test "$(http_code "$url/nope")" = 404
check metrics_subpath_404 test "$(http_code "$url/metrics/x")" = 404
check query_string_is_ignored test "$(http_code "$url/metrics?x=1")" = 200
for m in POST PUT DELETE PATCH OPTIONS; do
	check "${m,,}_405" test "$(http_code -X "$m" "$url/metrics")" = 405
done
check post_with_body_405 test "$(http_code --data-binary @/etc/services "$url/metrics")" = 405
check allow_header_on_405 \
	bash -c "curl -s -D - -o /dev/null -X POST '$url/metrics' | grep -qi '^Allow: GET, HEAD'"

big=$(head -c 65536 /dev/zero | tr '\0' a)
check huge_header_431 test "$(http_code -H "X-Big: $big" "$url/metrics")" = 431
many=()
for ((i = 0; i < 2000; i++)); do many+=(-H "X-H$i: value"); done
check many_headers_431 test "$(http_code "${many[@]}" "$url/metrics")" = 431
check huge_url_rejected bash -c "[[ \$(curl -s -o /dev/null -w '%{http_code}' '$url/$big') == 4?? ]]"

# Raw sockets: garbage, a request cut in the middle, a silent client.
garbage_status=$(timeout 5 bash -c "exec 3<>/dev/tcp/$host/$port
	printf 'EHLO \x01\x02\x03 nonsense\r\n\r\n' >&3
	head -n 1 <&3" | tr -d '\r' || true)
check garbage_400 bash -c "[[ '$garbage_status' == 'HTTP/1.1 400'* ]]"
timeout 5 bash -c "exec 3<>/dev/tcp/$host/$port; printf 'GET /metr' >&3" || true
for ((i = 0; i < 30; i++)); do	# random bytes, random lengths
	timeout 2 bash -c "exec 3<>/dev/tcp/$host/$port
		head -c $((RANDOM % 20000 + 1)) /dev/urandom >&3; sleep 0.05" 2> /dev/null || true
done
check random_bytes_do_not_crash_it kill -0 "$SERVE_PID"
exec 4<> "/dev/tcp/$host/$port"	# stays open and silent
check scrape_while_a_client_is_silent test "$(http_code "$url/metrics")" = 200
exec 4>&-

# Many scrapes in parallel.
pids=()
for ((i = 0; i < 20; i++)); do
	curl -sf -o /dev/null "$url/metrics" & pids+=($!)
done
ok=0
for p in "${pids[@]}"; do wait "$p" && ok=$((ok + 1)); done
check parallel_scrapes_all_answered test "$ok" -eq 20

check server_survives kill -0 "$SERVE_PID"
m=$(mktemp /tmp/bhscope-serve-m.XXXXXX)
on_exit "rm -f '$m'"
scrape > "$m"
check errors_counted_by_code test "$(series_value "$m" 'bhscope_http_requests_total{code="404"}')" -ge 2
check bad_methods_counted test "$(series_value "$m" 'bhscope_http_requests_total{code="405"}')" -ge 7
finish
