#!/bin/bash
# PID 1 of the guest after the initramfs chrooted into the host's root:
# runs the guest tests (bhvm_mode=check, the default) or an interactive shell
# (bhvm_mode=shell), then powers the VM off.
#
# Results go to the second serial port (/dev/ttyS1), which carries nothing
# else, so the host never has to pick them out of kernel messages:
#   UP: secs               kernel uptime when the tests start
#   RUN: S/name            a test starts (the host names it if the guest dies);
#                          a test with modes runs once a mode, as name-mode
#   TIME: S/name secs      how long it took
#   PASS: S/name | FAIL: S/name (why) | SKIP: S/name: reason
#       <output>           after a FAIL: the test's output, indented
#   NOTE: text            progress a test wrote to $VM_NOTE (shown on the host)
#   FILE: name/file b64   a file the test left in $VM_EXPORT, base64 on one line
#   S: N passed, N failed, N skipped
#   BHVM-DONE
# Not set -e: PID 1 must always reach the power-off.
set -uo pipefail

# shellcheck source=/dev/null
. /run/bhvm.env
export SERIES KVER KDIR MODDIR VM_OUT VM_CPUS VM_TESTS VM_TEST_TIMEOUT
export VM_GUEST_VARIANT=${VM_GUEST_VARIANT:-default}
export REPO=$BHVM_REPO
# VM_LRU_DEFERRED=1: every bhscope lru of the run takes the deferred hook
[[ -n ${BHSCOPE_LRU_DEFERRED:-} ]] && export BHSCOPE_LRU_DEFERRED
suite=${BHVM_SUITE:-$REPO/tests/vm}
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 TERM=${TERM:-linux}

mode=${bhvm_mode:-check}
res=/dev/ttyS1

off() {
	sync
	/bin/busybox poweroff -f
	echo o >/proc/sysrq-trigger
	sleep 10
}

report() {
	echo "$*" >"$res"
	echo "$*"
}

if [[ $mode == shell ]]; then
	cat <<EOF
bhscope VM guest: $KVER, $(nproc) CPUs. Host root is read-only under a tmpfs
overlay; the repo is at $REPO. Tests: $suite. Exit the shell to power off.
EOF
	cd "$REPO" || cd /
	# setsid -c: the shell gets ttyS0 as its controlling tty (job control, ^C).
	setsid -c -w bash -i </dev/ttyS0 >/dev/ttyS0 2>&1
	off
fi

timeout_s=${VM_TEST_TIMEOUT:-300}
logs=/tmp/bhvm-logs
mkdir -p "$logs"
pass=0 fail=0 skip=0
echo "UP: $(cut -d' ' -f1 /proc/uptime)" >"$res"
shopt -s nullglob
export VM_NOTE=$res
# stuck_watch ID LIMIT: the test's state just before its timeout kills it
# at LIMIT s, on the result port: every user process with the kernel
# function it waits in, and the kernel stack of those not sleeping
# interruptibly. If it outlives the kill by 15 s (uninterruptible sleep,
# or a CPU stuck in the kernel), the kernel's blocked tasks and every
# CPU's backtrace too.
stuck_watch() {
	local id=$1 limit=$2 before pid procs
	sleep $((limit - 2))
	{
		echo "NOTE: $id is still running after $((limit - 2)) s; its timeout kills it in 2 s. Memory:"
		# builtins only: a guest short of memory may not exec anything
		while read -r line; do
			[[ $line == @(MemTotal|MemFree|MemAvailable|Buffers|Cached|Shmem|Unevictable|AnonPages|AnonHugePages|Slab):* ]] &&
				echo "    $line"
		done </proc/meminfo
		echo "    User processes:"
		# kernel threads (kthreadd, pid 2, and its children) left out;
		# ps could itself block on a task holding its mm: bounded
		procs=$(timeout 10 ps --ppid 2 -p 2 --deselect -o pid,ppid,stat,etimes,wchan:32,args --forest)
		cut -c 1-220 <<<"$procs" | sed 's/^/    /'
		for pid in $(awk 'NR > 1 && $3 !~ /^[SI]/ {print $1}' <<<"$procs"); do
			[[ -e /proc/$pid ]] || continue # ps's own
			echo "    kernel stack of $pid ($(cat "/proc/$pid/comm" 2>/dev/null)):"
			timeout 5 sed 's/^/      /' "/proc/$pid/stack" 2>/dev/null
		done
	} >"$res"
	sleep 17
	echo "NOTE: $id is still running 15 s after its timeout: blocked tasks and CPU backtraces follow" >"$res"
	before=$(dmesg | wc -l)
	echo w >/proc/sysrq-trigger
	echo l >/proc/sysrq-trigger
	sleep 2
	dmesg | tail -n +$((before + 1)) | head -n 200 | sed 's/^/    /' >"$res"
}

# run_test FILE NAME [MODE]: one run of a guest test, reported as NAME;
# MODE, if any, in its environment as VM_MODE.
run_test() {
	local t=$1 name=$2 id=$SERIES/$2 log scratch limit t0 rc why watch
	# A test that needs longer says so in its head: "# vm-timeout: SECONDS".
	limit=$(sed -n '1,30s/^# vm-timeout: \([0-9][0-9]*\)$/\1/p' "$t")
	((${limit:-0} > timeout_s)) || limit=$timeout_s
	report "RUN: $id"
	# the host waits that long, and more, before it takes silence for a hang
	echo "LIMIT: $limit" >"$res"
	log=$logs/$name.log
	scratch=/tmp/bhvm-scratch/$name
	export VM_EXPORT=/tmp/bhvm-export/$name
	mkdir -p "$scratch" "$VM_EXPORT"
	echo "=== $id" >/dev/console
	# A mark in the kernel log, so the log check below can say whose
	# messages it found.
	echo "bhvm: test $id starts" >/dev/kmsg
	# Each test in its own scratch directory (the root is a RAM overlay),
	# output to the log and the console.
	t0=$(date +%s.%N)
	stuck_watch "$id" "$limit" &
	watch=$!
	(cd "$scratch" && VM_MODE=${3:-} VM_TEST_TIMEOUT=$limit timeout -k 5 "$limit" "$t") </dev/null 2>&1 |
		tee "$log" >/dev/console
	rc=${PIPESTATUS[0]}
	kill "$watch" 2>/dev/null
	wait "$watch" 2>/dev/null
	# The guest's writes stay in its RAM: files meant for the host travel
	# on the result port (vmcheck.sh writes them to VM_OUT/export/).
	for f in "$VM_EXPORT"/*; do
		[[ -f $f ]] && echo "FILE: $name/${f##*/} $(base64 -w 0 "$f")" >"$res"
	done
	echo "TIME: $id $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')" >"$res"
	case $rc in
	0)
		report "PASS: $id"
		pass=$((pass + 1))
		;;
	77)
		why=$(grep -v '^[[:space:]]*$' "$log" | tail -n 1)
		report "SKIP: $id: ${why:-no reason given}"
		skip=$((skip + 1))
		;;
	*)
		if ((rc == 124 || rc == 137)); then
			report "FAIL: $id (timed out after ${limit} s)"
		else
			report "FAIL: $id (exit $rc)"
		fi
		sed 's/^/    /' "$log" >"$res"
		fail=$((fail + 1))
		;;
	esac
}

for t in "$suite"/${VM_TESTS:-*}.sh; do
	name=${t##*/}
	name=${name%.sh}
	if [[ ! -x $t ]]; then
		report "SKIP: $SERIES/$name: not executable"
		skip=$((skip + 1))
		continue
	fi
	# On a full-preemption guest (and any other variant), only the tests
	# that ask for it ("# vm-also: full"); a test that runs on the listed
	# variants alone says "# vm-only: full cloud". Unless VM_TESTS names
	# them.
	head=$(sed -n '1,30p' "$t")
	if [[ -z ${VM_TESTS:-} ]] &&
		if [[ $VM_GUEST_VARIANT == default ]]; then
			grep -qE "^# vm-only:" <<<"$head"
		else
			! grep -qE "^# vm-(also|only):.*\b$VM_GUEST_VARIANT\b" <<<"$head"
		fi; then
		continue
	fi
	# A test of several modes says so in its head: "# vm-modes: A B";
	# each mode is a run and a result of its own, NAME-A, NAME-B.
	modes=$(sed -n '1,30s/^# vm-modes: \([a-z0-9 ]*\)$/\1/p' "$t")
	if [[ -z $modes ]]; then
		run_test "$t" "$name"
		continue
	fi
	for mode in $modes; do
		run_test "$t" "$name-$mode" "$mode"
	done
done

# A test can pass and still leave the kernel complaining (a module that
# warns on unload, a probe that oopses in another context, a double
# release of a buffer_head): check the log, after a subset (VM_TESTS) too,
# and name the test each report came during. A known defect of the kernel
# itself is shown, and does not fail the run.
id=$SERIES/kernel-log-clean
scan=$(dmesg | awk -f "$REPO/tests/vm/harness/kernel-log-check.awk")
while IFS=$'\t' read -r kind during why; do
	[[ $kind == known ]] && report "NOTE: kernel log during $during: $why"
done <<<"$scan"
# the whole of each such report, for whoever looks into it
known=$(awk -F'\t' '$1 == "known-line" { print $2 ": " $3 }' <<<"$scan")
[[ -n $known ]] &&
	echo "FILE: kernel-log-clean/known-reports.txt $(base64 -w 0 <<<"$known")" >"$res"
bad=$(awk -F'\t' '$1 == "bad" { print $2 ": " $3 }' <<<"$scan")
if [[ -n $bad ]]; then
	report "FAIL: $id ($(grep -c '' <<<"$bad") lines, first during ${bad%%: *})"
	head -n 60 <<<"$bad" | sed 's/^/    /' >"$res"
	fail=$((fail + 1))
else
	report "PASS: $id"
	pass=$((pass + 1))
fi

report "$SERIES: $pass passed, $fail failed, $skip skipped"
report "BHVM-DONE"
off
