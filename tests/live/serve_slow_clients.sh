#!/usr/bin/env bash
# A few slow clients must not stop the scrape (issue 15): 200 connections
# from one address (127.0.0.2) that each send half a request and hold on,
# while a scraper from another address (127.0.0.1) gets every answer within
# its timeout; the flood's extra connections are closed at once, the held
# ones after the idle timeout; a closed flood leaves no socket in
# CLOSE-WAIT (it waited in the listen queue for 30 s).
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/live/serve_lib.sh
require_root
command -v python3 > /dev/null || skip_all "python3 is not installed (make deps)"

start_serve --jbd2
hostport=${SERVE_URL#http://}
port=${hostport##*:}
tmp=$(mktemp -d /tmp/bhscope-serve-slow.XXXXXX)
on_exit "rm -rf '$tmp'"

# slow_clients N HOLD_S: N connections from 127.0.0.2, half a request each,
# held HOLD_S seconds; prints how many the server closed early, then exits.
cat > "$tmp/slow.py" <<'PY'
import socket, sys, time
port, n, hold = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
socks = []
for _ in range(n):
    s = socket.socket()
    s.bind(("127.0.0.2", 0))
    try:
        s.connect(("127.0.0.1", port))
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ")
    except OSError:
        pass
    socks.append(s)
print("connected", flush=True)
end = time.time() + hold
closed = set()
while time.time() < end:
    for i, s in enumerate(socks):
        if i in closed:
            continue
        s.setblocking(False)
        try:
            if s.recv(4096) == b"":
                closed.add(i)
        except BlockingIOError:
            pass
        except OSError:
            closed.add(i)
    time.sleep(0.2)
print(len(closed), flush=True)
PY

close_wait() {
	ss -Htn state close-wait "( sport = :$port )" | wc -l
}

python3 "$tmp/slow.py" "$port" 200 8 > "$tmp/slow.out" &
slow=$!
on_exit "kill $slow 2> /dev/null || true"
for ((i = 0; i < 100; i++)); do
	grep -q connected "$tmp/slow.out" && break
	sleep 0.1
done
check flood_connected grep -q connected "$tmp/slow.out"

# The scraper, from another address, every 0.25 s while they hold on:
# every scrape answered within a 2 s timeout (Prometheus' default is 10 s).
ok=0 total=20
for ((i = 0; i < total; i++)); do
	code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$SERVE_URL/metrics" || true)
	[[ $code == 200 ]] && ok=$((ok + 1))
	sleep 0.25
done
check every_scrape_answered_during_the_flood test "$ok" -eq "$total"

# Only SERVE_HTTP_MAX_CONNS_PER_IP (32) of them are held, and the held ones
# are closed by the idle timeout (5 s) before the client gives up (8 s).
wait "$slow" || true
closed=$(tail -n 1 "$tmp/slow.out")
check all_200_closed_by_the_server test "$closed" -eq 200

# A closed flood: 300 connections opened and dropped at once.
python3 - "$port" <<'PY'
import socket, sys
for _ in range(300):
    s = socket.socket()
    s.bind(("127.0.0.2", 0))
    try:
        s.connect(("127.0.0.1", int(sys.argv[1])))
        s.sendall(b"GET /met")
    except OSError:
        pass
    s.close()
PY
sleep 1
check no_close_wait_after_a_closed_flood test "$(close_wait)" -eq 0
check scrape_after_the_flood test "$(http_code "$SERVE_URL/metrics")" = 200
check server_survives kill -0 "$SERVE_PID"
finish
