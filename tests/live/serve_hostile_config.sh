#!/usr/bin/env bash
# serve --config as hostile input: only a bounded regular file is read.
# /dev/zero (it spun forever), a FIFO (it blocked forever), a directory (it
# was an empty config) and a long line (its tail was applied) are one-line
# errors at start; at a SIGHUP reload they keep the previous configuration,
# and a SIGTERM right after the SIGHUP is served at once.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/serve.sh
require_root

tmp=$(mktemp -d /tmp/bhscope-serve-conf.XXXXXX)
on_exit "rm -rf '$tmp'"

# expect_refused NAME PATTERN CONFIG: serve exits 1 within 5 s, one line.
expect_refused() {
	local name=$1 pattern=$2 err rc=0
	err=$(timeout 5 "$BHSCOPE" serve --listen 127.0.0.1:0 --config "$3" 2>&1 > /dev/null) || rc=$?
	if [[ $rc -eq 1 && $(wc -l <<< "$err") -eq 1 && $err == "bhscope: "*"$pattern"* ]]
	then pass "$name"
	else fail "$name" "exit $rc (124 = it hung): $(head -c 300 <<< "$err")"; fi
}

expect_refused dev_zero_refused "cannot read /dev/zero: a character device, not a regular file" /dev/zero
expect_refused directory_refused "cannot read $tmp: a directory, not a regular file" "$tmp"
mkfifo "$tmp/fifo.conf"
expect_refused fifo_refused "a FIFO, not a regular file" "$tmp/fifo.conf"
{ printf '#%.0s' $(seq 4200); echo 'interval = 2'; } > "$tmp/long.conf"
expect_refused long_line_refused "$tmp/long.conf:1: line too long" "$tmp/long.conf"
printf '\e[2J = 1\n' > "$tmp/esc.conf"
expect_refused escape_in_error_is_shown_not_sent "esc.conf:1: unknown setting '\x1b[2J'" "$tmp/esc.conf"

# Reload: the config becomes /dev/zero, a FIFO, then a directory.
printf 'interval = 60\n' > "$tmp/serve.conf"
start_serve --jbd2 --config "$tmp/serve.conf"
for kind in zero fifo.conf directory; do
	case $kind in
	zero) target=/dev/zero ;;
	fifo.conf) target=$tmp/fifo.conf ;;
	directory) target=$tmp ;;
	esac
	ln -sfn "$target" "$tmp/serve.conf"
	lines=$(wc -l < "$SERVE_LOG")
	kill -HUP "$SERVE_PID"
	ok=false
	for ((i = 0; i < 50; i++)); do
		if tail -n +"$((lines + 1))" "$SERVE_LOG" | grep -q 'reload: cannot read .*not a regular file; keeping the previous configuration'; then
			ok=true
			break
		fi
		sleep 0.1
	done
	check "reload_refuses_$kind" $ok # a stable name: $tmp is random
done
check still_serving_after_bad_reloads test "$(http_code "$SERVE_URL/metrics")" = 200
check reloads_counted_as_failed bash -c \
	"curl -s '$SERVE_URL/metrics' | grep -q '^bhscope_config_last_reload_successful 0'"

# SIGTERM right behind a SIGHUP whose file is endless: served at once.
ln -sfn /dev/zero "$tmp/serve.conf"
kill -HUP "$SERVE_PID"
kill -TERM "$SERVE_PID"
exited=false
for ((i = 0; i < 50; i++)); do
	if ! kill -0 "$SERVE_PID" 2> /dev/null; then exited=true; break; fi
	sleep 0.1
done
check sigterm_served_during_reload $exited
finish
