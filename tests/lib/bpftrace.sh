# shellcheck shell=bash
# bpftrace as an oracle, for live and guest tests.

# bpftrace_stop PID: ends a bpftrace started in the background, which
# then prints its maps, and waits for it; returns its exit status.
#
# bpftrace 0.17 (Debian 12) prints "Attaching N probes..." before it
# attaches them, and its event loop returns only when a signal interrupts
# epoll_wait(): a SIGINT that lands outside it (while the probes attach,
# which takes seconds under TCG, or between two of its 100 ms waits) sets
# the exit flag, which nothing reads again, and it runs on for good (64 hung
# so in a guest until its timeout; on the host, 3 of 3 signalled right after
# "Attaching"). So the signal is sent again every 2 s until it exits:
# SIGTERM, which goes to the same handler and which bpftrace, unlike SIGINT,
# still catches while it prints its maps. After 120 s it is killed.
bpftrace_stop() {
	local pid=$1 i
	for ((i = 0; i < 1200; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		((i % 20)) || kill -TERM "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		echo "bpftrace (pid $pid) still running 120 s after SIGTERM: killed" >&2
		kill -KILL "$pid" 2>/dev/null
	fi
	wait "$pid"
}

# bpftrace_wait_ready PID OUT DIR: until bpftrace PID prints "ready" on
# OUT (its probes fired once; its stderr goes to OUT.err), making a file
# in DIR every 0.1 s for its probes to see (a few buffer-head lookups
# each); 120 s at most.
bpftrace_wait_ready() {
	local pid=$1 out=$2 dir=$3 i
	for ((i = 0; i < 1200; i++)); do
		grep -qs '^ready' "$out" && break
		kill -0 "$pid" 2>/dev/null || { cat "$out.err" 2>/dev/null; fail "bpftrace died"; }
		touch "$dir/ready.$i"
		sleep 0.1
	done
	grep -q '^ready' "$out" || fail "bpftrace did not see its probes fire in 120 s"
	rm -f "$dir"/ready.*
}
