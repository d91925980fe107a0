#!/usr/bin/env bash
# A few slow clients must not stop the scrape (issue 15): 200 connections
# from one address (127.0.0.2) that each send half a request and hold on,
# while a scraper from another address (127.0.0.1) gets every answer within
# its timeout; the flood's extra connections are closed at once, the held
# ones after the idle timeout; a closed flood leaves no socket in
# CLOSE-WAIT (it waited in the listen queue for 30 s).
# Slow-drip clients (issue 33): connections that send one header line
# every 2 s are never idle, so only the request head's deadline (5 s
# from when the connection waits for it) closes them, and they reconnect
# 0.2 s after the server closes them, the worst case. With 32 of them from
# each of 127.0.0.2..9 (all 256 slots), and then 32 from the scraper's own
# address 127.0.0.1 (its whole per-address share), every scrape from
# 127.0.0.1 is answered at the first try within 2 s, and no drip
# connection is held more than 6 s.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/serve.sh
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

# drip.py PORT HOLD_S ADDR:N...: N connections from each ADDR, each sending
# a request line and then one header line every 2 s, never the blank line
# that ends the head; one the server closes is opened again 0.2 s later.
# Prints "ready" once all are connected, then at the end one line: the
# connections the server closed, and the longest time one was held (closed
# or still open), in seconds.
cat > "$tmp/drip.py" <<'PY'
import selectors, socket, sys, time
port, hold = int(sys.argv[1]), float(sys.argv[2])
wanted = [(a.split(":")[0], int(a.split(":")[1])) for a in sys.argv[3:]]
sel = selectors.DefaultSelector()
closed, longest, reopen = 0, 0.0, []

def open_one(addr):
    s = socket.socket()
    s.bind((addr, 0))
    s.settimeout(1)
    try:
        s.connect(("127.0.0.1", port))
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
    except OSError:
        s.close()
        reopen.append((time.time() + 0.2, addr))
        return
    s.setblocking(False)
    now = time.time()
    sel.register(s, selectors.EVENT_READ, {"addr": addr, "t0": now, "next": now + 2, "n": 0})

def drop(key, now):
    global closed, longest
    closed += 1
    longest = max(longest, now - key.data["t0"])
    sel.unregister(key.fileobj)
    key.fileobj.close()
    reopen.append((now + 0.2, key.data["addr"]))

for addr, n in wanted:
    for _ in range(n):
        open_one(addr)
print("ready", flush=True)
end = time.time() + hold
while time.time() < end:
    for key, _ in sel.select(timeout=0.05):
        try:
            data = key.fileobj.recv(4096)
        except OSError:
            data = b""
        if not data:    # closed by the server (an answer, too, ends it)
            drop(key, time.time())
    now = time.time()
    for key in list(sel.get_map().values()):
        if now >= key.data["next"]:
            key.data["next"] += 2
            key.data["n"] += 1
            try:
                key.fileobj.send(b"X-Drip-%d: x\r\n" % key.data["n"])
            except OSError:
                drop(key, now)
    due = [r for r in reopen if r[0] <= now]
    reopen[:] = [r for r in reopen if r[0] > now]
    for _, addr in due:
        open_one(addr)
now = time.time()
for key in sel.get_map().values():
    longest = max(longest, now - key.data["t0"])
print(closed, "%.1f" % longest, flush=True)
PY

# drip_phase NAME ADDR:N...: drip clients for 9 s while curl scrapes from
# 127.0.0.1 every 0.25 s, one try each, 2 s at most.
drip_phase() {
	local name=$1 out=$tmp/drip-$1.out codes=$tmp/scrapes-$1 i pid
	shift
	python3 "$tmp/drip.py" "$port" 9 "$@" > "$out" &
	pid=$!
	on_exit "kill $pid 2> /dev/null || true"
	for ((i = 0; i < 100; i++)); do
		grep -q ready "$out" && break
		sleep 0.1
	done
	sleep 0.5
	: > "$codes"
	for ((i = 0; i < 28; i++)); do
		curl -s -o /dev/null --interface 127.0.0.1 --max-time 2 \
			-w '%{http_code} %{time_total}\n' "$SERVE_URL/metrics" >> "$codes" || true
		sleep 0.25
	done
	wait "$pid" || true
	read -r drip_closed drip_longest < <(tail -n 1 "$out")
	scrape_max=$(awk '{ if ($2 > m) m = $2 } END { print m + 0 }' "$codes")
	echo "$name: $(grep -c '^200 ' "$codes") of $(wc -l < "$codes") scrapes answered, the slowest in $scrape_max s; the server closed $drip_closed drip connections, none held more than ${drip_longest:-?} s"
	check "${name}_every_scrape_answered_at_once" test "$(grep -c '^200 ' "$codes")" -eq 28
	check "${name}_no_drip_connection_held_over_6_s" \
		awk -v l="${drip_longest:-99}" 'BEGIN { exit !(l <= 6) }'
}

others=()
for i in 2 3 4 5 6 7 8 9; do
	others+=("127.0.0.$i:32")
done
drip_phase drip_from_8_other_addresses "${others[@]}"
drip_phase drip_from_the_scrapers_address 127.0.0.1:32
scrape > "$tmp/after.prom" || true
check head_deadline_closes_counted grep -qE \
	'^bhscope_http_connections_closed_total\{reason="head_deadline"\} [1-9]' "$tmp/after.prom"
check server_survives_the_drip kill -0 "$SERVE_PID"
finish
