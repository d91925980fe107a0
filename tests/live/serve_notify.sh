#!/usr/bin/env bash
# bhscope serve speaks systemd's notify protocol (the unit is Type=notify):
# READY=1 once /metrics answers, RELOADING=1 then READY=1 around a SIGHUP
# reload, STOPPING=1 on SIGTERM. The oracle is a datagram socket bound here
# as systemd binds $NOTIFY_SOCKET, which logs what it receives.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/serve.sh
require_root
command -v python3 > /dev/null || skip_all "python3 is not installed (make deps)"

tmp=$(mktemp -d /tmp/bhscope-notify.XXXXXX)
on_exit "rm -rf '$tmp'"
sock=$tmp/notify
# Each datagram on one line (newlines as '|'), and whether /metrics
# answered at that moment.
log=$tmp/serve.log
python3 - "$sock" "$tmp/received" "$log" > /dev/null 2>&1 <<'PY' &
import socket, sys, urllib.request, re
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "a", buffering=1) as out:
    while True:
        msg = s.recv(4096).decode().replace("\n", "|")
        answered = "?"
        if msg.startswith("READY=1"):
            try:
                url = re.search(r"http://[0-9.:]+", open(sys.argv[3]).read())
                answered = "metrics" if url and urllib.request.urlopen(
                    url.group(0) + "/metrics", timeout=5).status == 200 else "no-metrics"
            except Exception:
                answered = "no-metrics"
        out.write(msg + " " + answered + "\n")
PY
listener=$!
on_exit "kill $listener 2>/dev/null"
for ((i = 0; i < 50; i++)); do
	[[ -S $sock ]] && break
	sleep 0.1
done

cfg=$tmp/serve.conf
echo "interval = 5" > "$cfg"
NOTIFY_SOCKET=$sock "$BHSCOPE" serve --listen 127.0.0.1:0 --jbd2 --config "$cfg" 2> "$log" &
SERVE_PID=$!
SERVE_LOG=$log
on_exit "stop_pid $SERVE_PID"
wait_for_file_lines "$tmp/received" 1 30 || true
check ready_once_metrics_answer test "$(sed -n 1p "$tmp/received")" = "READY=1 metrics"
SERVE_URL=$(grep -o 'http://[0-9.:]*' "$log" | head -n 1 || true)

kill -HUP "$SERVE_PID"
wait_for_file_lines "$tmp/received" 3 10 || true
sed -n 2,3p "$tmp/received" | cut -d' ' -f1 > "$tmp/reload"
check reload_says_reloading_first grep -Eq '^RELOADING=1\|MONOTONIC_USEC=[0-9]+$' <(sed -n 1p "$tmp/reload")
check reload_then_ready_again test "$(sed -n 2p "$tmp/reload")" = READY=1
check reload_happened_in_between grep -q 'configuration reloaded' "$SERVE_LOG"
check metrics_answer_after_the_reload curl -sf --max-time 5 "$SERVE_URL/metrics" -o /dev/null

kill -TERM "$SERVE_PID"
wait "$SERVE_PID" || true
wait_for_file_lines "$tmp/received" 4 10 || true
check stopping_on_sigterm test "$(sed -n 4p "$tmp/received" | cut -d' ' -f1)" = STOPPING=1
echo "received:"
sed 's/^/  /' "$tmp/received"

# Without $NOTIFY_SOCKET nothing is sent and nothing is said.
start_serve --jbd2
check silent_without_a_manager bash -c "! grep -q notify '$SERVE_LOG'"
finish
