#!/bin/bash
# vmcheck.sh — boot each kernel in VM_KERNELS under QEMU (TCG) and run
# tests/vm/*.sh (or VM_SUITE/*.sh) inside it. Prints PASS:/FAIL:/SKIP: lines on stdout and exits
# non-zero if a test failed or a guest broke. See tests/vm/harness/README.md.
set -euo pipefail

# shellcheck source=tests/vm/harness/lib.sh
. "$(dirname "$0")/lib.sh"

VM_TEST_TIMEOUT=${VM_TEST_TIMEOUT:-300}
VM_IDLE_TIMEOUT=${VM_IDLE_TIMEOUT:-$((VM_TEST_TIMEOUT + 60))}
VM_TIMEOUT=${VM_TIMEOUT:-3600}
VM_TESTS=${VM_TESTS:-}
export VM_TESTS VM_TEST_TIMEOUT

# Host-side check, one result line like any test: the bench's own scripts
# are shellcheck-clean (warnings and errors; -x follows sourced files).
# --lint-only (make vmlint) also checks every guest test and hook.
lint() {
	local out lines files=("$VM_DIR"/*.sh "$VM_DIR/init" "$REPO/tests/lib/guest.sh")
	if ! command -v shellcheck >/dev/null; then
		echo "SKIP: vm/shellcheck: shellcheck is not installed (make deps)"
		return 0
	fi
	if [[ ${1:-} == all ]]; then
		files+=("$REPO"/tests/vm/*.sh "$REPO"/tests/vm/*.prep "$REPO"/tests/lib/guest*.sh)
		[[ $SUITE_DIR == "$REPO/tests/vm" ]] || files+=("$SUITE_DIR"/*.sh)
	fi
	if out=$(cd "$REPO" && shellcheck -x -S warning "${files[@]}" 2>&1); then
		echo "PASS: vm/shellcheck"
	else
		echo "FAIL: vm/shellcheck"
		mapfile -t lines <<<"$out"
		printf '    %s\n' "${lines[@]}"
		return 1
	fi
}

if [[ ${1:-} == --lint-only ]]; then
	lint all
	exit
fi

vm_need_tools
vm_lock

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.1f", b - a}'; }

# save_file "NAME/FILE BASE64": a file a guest test left in its VM_EXPORT,
# written to VM_OUT/export/NAME/FILE.
save_file() {
	local rel=${1%% *} data=${1#* }
	if [[ ! $rel =~ ^[A-Za-z0-9_][A-Za-z0-9._-]*/[A-Za-z0-9_][A-Za-z0-9._-]*$ ]]; then
		echo "vm: $SERIES: ignored an exported file with a bad name: ${rel:0:80}" >&2
		return
	fi
	mkdir -p "$RUN_OUT/export/${rel%/*}"
	if base64 -d <<<"$data" >"$RUN_OUT/export/$rel"; then
		echo "vm: $SERIES: exported $RUN_OUT/export/$rel" >&2
	else
		echo "vm: $SERIES: exported file $rel is corrupt" >&2
	fi
}

# on_line LINE: one line of the guest's result channel.
on_line() {
	local line=${1%$'\r'} id s
	case $line in
	"RUN: "*)
		running=${line#RUN: }
		# This test's files from an earlier run are stale; other tests'
		# (another suite's, say) stay.
		rm -rf "${RUN_OUT:?}/export/${running#*/}"
		;;
	"UP: "*) echo "vm: $SERIES: tests start at ${line#UP: } s guest uptime" >&2 ;;
	"TIME: "*)
		read -r _ id s <<<"$line"
		echo "vm: $id: $s s" >&2
		echo "$s vm/$id" >>"$VM_BUILD/times"
		;;
	"LIMIT: "*)
		# the test's own timeout, and its stuck_watch report, come first
		idle_limit=$((${line#LIMIT: } + 60))
		((idle_limit > VM_IDLE_TIMEOUT)) || idle_limit=$VM_IDLE_TIMEOUT
		;;
	"NOTE: "*) echo "vm: $SERIES: ${line#NOTE: }" >&2 ;;
	"FILE: "*) save_file "${line#FILE: }" ;;
	"BHVM-DONE") done=1 ;;
	"BHVM-ABORT: "*) echo "vm: $SERIES: guest: ${line#BHVM-ABORT: }" >&2 ;;
	"FAIL: "*)
		failed=1
		running="" idle_limit=$VM_IDLE_TIMEOUT
		echo "$line"
		;;
	"PASS: "* | "SKIP: "*)
		running="" idle_limit=$VM_IDLE_TIMEOUT
		echo "$line"
		;;
	*) echo "$line" ;;
	esac
}

# monitor_cmd MONITOR CMD: a command to the QEMU monitor's FIFO pair.
monitor_cmd() {
	timeout 5 bash -c 'echo "$2" >"$1.in"' _ "$1" "$2" 2>/dev/null || true
}

# vcpu_samples MONITOR: every vCPU's registers, twice 5 s apart, into
# RUN_OUT/hang-vcpus.txt: whether a silent guest still runs at all, and
# where (the NMI's answer that follows is one instant).
vcpu_samples() {
	local out=$RUN_OUT/hang-vcpus.txt
	timeout 1 cat "$1.out" >/dev/null 2>&1 || true # the banner, prompts
	monitor_cmd "$1" "info registers -a"
	sleep 5
	monitor_cmd "$1" "info registers -a"
	sleep 1
	timeout 2 cat "$1.out" 2>/dev/null | tr -d '\r' >"$out" || true
}

# hang_state OFFSET: what the console got after the NMI sent to a silent
# guest at byte OFFSET, in RUN_OUT/hang-state.txt; printed: the panic and
# every CPU's backtrace, then every user task and the kernel threads
# neither sleeping (S) nor idle (I), then the memory (show_mem).
hang_state() {
	local file=$RUN_OUT/hang-state.txt
	tail -c +$(($1 + 1)) "$RUN_OUT/console.log" | tr -d '\r' >"$file"
	echo "    each vCPU, twice 5 s apart before the NMI (all registers: $RUN_OUT/hang-vcpus.txt):"
	grep -E '^(CPU#|RIP=)' "$RUN_OUT/hang-vcpus.txt" 2>/dev/null | sed 's/^/      /'
	grep -E '^RAX=' "$RUN_OUT/hang-vcpus.txt" 2>/dev/null | sed 's/^/      /'
	if ! grep -q 'NMI' "$file"; then
		echo "    (no answer to the NMI: the guest's CPUs did not run)"
		return
	fi
	echo "    the guest's state at the NMI (all of it: $file):"
	awk '
	/ Mem-Info:/ { tasks = 0 }
	/ task:/ {
		tasks = 1
		kthread = / ppid:2 / || / pid:2 /
		keep = !kthread || $0 !~ / state:[SI] /
	}
	!tasks || keep { print "    " $0 }
	/<\/TASK>/ && tasks { keep = 0 }
	' "$file" | head -n 400
}

# boot_guest CPUS: one guest; results are read live from its second serial
# port. A guest is hung when that port stays silent for VM_IDLE_TIMEOUT,
# or while a test runs, for its own timeout (LIMIT line) + 60 s: the
# guest's report on that timeout would have spoken first. It is cut
# off after VM_TIMEOUT in any case. Returns 0 only if the guest finished
# and no test failed.
boot_guest() {
	local cpus=$1 console=$RUN_OUT/console.log results=$RUN_OUT/results.log
	local qpid qrc=0 fd chunk partial="" st last=$SECONDS hung=0 nmi_at=0 nmi_off=0
	local tail_file=$RUN_OUT/console-tail.txt monitor=$RUN_OUT/monitor
	running="" done=0 failed=0 idle_limit=$VM_IDLE_TIMEOUT
	: >"$console"
	: >"$results"
	# A guest that falls silent is asked what it is doing before it is
	# killed: an NMI through QEMU's monitor makes it panic
	# (unknown_nmi_panic) with every CPU's backtrace, every task's state
	# and the memory's on the console (panic_print=0x43). Nothing else answers when both
	# CPUs spin with interrupts off, and a hang on the CI host leaves
	# nothing else to go on.
	rm -f "$monitor.in" "$monitor.out"
	mkfifo "$monitor.in" "$monitor.out"
	vm_qemu_cmd "$cpus" "bhvm_mode=check unknown_nmi_panic panic_print=0x43" "file:$console" "file:$results"
	QEMU+=(-monitor "pipe:$monitor")
	vm_virtiofsd
	timeout -k 10 "$VM_TIMEOUT" "${QEMU[@]}" </dev/null >"$RUN_OUT/qemu.log" 2>&1 &
	qpid=$!
	# an interrupted run leaves no QEMU and no virtiofsd
	trap 'kill "$qpid" 2>/dev/null || true; vm_virtiofsd_stop' EXIT
	# QEMU writes the port a byte at a time: keep partial lines until the
	# newline arrives. tail ends once QEMU has exited and the file is read.
	exec {fd}< <(tail -n +1 -f --pid="$qpid" "$results")
	while :; do
		st=0
		IFS= read -r -t 1 -u "$fd" chunk || st=$?
		if ((st == 0)); then
			on_line "$partial$chunk"
			partial=""
			last=$SECONDS
			continue
		fi
		partial+=$chunk
		((st > 128)) || break # EOF: QEMU is gone
		[[ -n $partial ]] && last=$SECONDS
		if ((!hung && SECONDS - last >= idle_limit)); then
			hung=1
			vcpu_samples "$monitor"
			nmi_at=$SECONDS
			nmi_off=$(stat -c %s "$console")
			monitor_cmd "$monitor" nmi
		elif ((hung && SECONDS - nmi_at >= 60)); then
			# the panic reboots it, and QEMU exits (-no-reboot)
			kill "$qpid" 2>/dev/null || true
		fi
	done
	[[ -n $partial ]] && on_line "$partial"
	exec {fd}<&-
	wait "$qpid" || qrc=$?
	vm_virtiofsd_stop
	trap - EXIT
	if ((done)); then
		return $failed
	fi
	# The guest broke: say how, name the test it was in, keep the console.
	local why="never printed its result"
	if ((hung)); then
		why="silent for $idle_limit s (hung? VM_IDLE_TIMEOUT, or the test's own timeout + 60 s), sent an NMI for its state, killed"
	elif ((qrc == 124 || qrc == 137)); then
		why="timed out after $VM_TIMEOUT s (VM_TIMEOUT)"
	elif grep -q 'Kernel panic' "$console"; then
		why="panicked"
	elif ((qrc != 0)); then
		why="qemu exited with status $qrc ($(head -c 300 "$RUN_OUT/qemu.log"))"
	fi
	if ((hung)); then
		head -c "$nmi_off" "$console" | tr -d '\r' | tail -n 50 >"$tail_file"
	else
		tr -d '\r' <"$console" | tail -n 50 >"$tail_file"
	fi
	[[ -n $running ]] && echo "FAIL: $running (the guest broke during this test)"
	echo "FAIL: $SERIES/guest: $why; last 50 console lines: $tail_file"
	sed 's/^/    /' "$tail_file"
	((hung)) && hang_state "$nmi_off"
	return 1
}

# The guests: every VM_KERNELS series under every VM_VARIANTS preemption
# model ("default": the kernel's own, voluntary on Debian; "full":
# preempt=full on the command line). A guest is named after both: 6.1,
# 6.1+full. A +icount guest (6.1+icount) counts instructions for its
# clock, for the tests that compare times ("# vm-only: icount"). Tests run on every default guest; a test also runs on the
# other guests when its head says so ("# vm-also: full"), or only on
# those ("# vm-only: full cloud"), or when VM_TESTS names it. PREEMPT_RT flavours (6.1-rt) are guests of their
# own variant, rt ("# vm-also: rt"); so is the cloud flavour (6.1-cloud),
# cloud: the 6.1 kernel with ext4 and jbd2 built in and the root over
# virtiofs, which runs what that changes ("# vm-also: cloud").
# VM_GUESTS names them outright; given VM_KERNELS or VM_VARIANTS instead,
# every series boots in every variant.
VM_DEFAULT_GUESTS="6.1 6.12 6.1+full 6.12+full 6.1-cloud 6.1-rt 6.12-rt 6.1+icount 6.12+icount"
# Guests at once: QEMU's single-threaded TCG keeps one host core busy each.
VM_JOBS=${VM_JOBS:-$(($(nproc) < 2 ? 1 : 2))}
guests=()
if [[ -n ${VM_GUESTS:-} ]]; then
	read -ra guests <<<"$VM_GUESTS"
elif [[ -z ${VM_KERNELS:-} && -z ${VM_VARIANTS:-} ]]; then
	read -ra guests <<<"$VM_DEFAULT_GUESTS"
else
	for s in ${VM_KERNELS:-6.1 6.12}; do
		for v in ${VM_VARIANTS:-default full}; do
			case $v in
			default) guests+=("$s") ;;
			full) guests+=("$s+full") ;;
			*) vm_die "VM_VARIANTS: unknown variant '$v' (default, full)" ;;
			esac
		done
	done
fi
for g in "${guests[@]}"; do
	[[ $g =~ ^[0-9]+\.[0-9]+(-[a-z]+)?(\+full|\+icount)?$ ]] ||
		vm_die "bad guest '$g' (SERIES[-FLAVOUR][+full|+icount], e.g. 6.1, 6.1+full, 6.1-cloud, 6.1+icount)"
done
durations=$VM_BUILD/durations

# The guests in the order that ends soonest with VM_JOBS slots
# (guest-order.awk), from the wall times of the last full run
# (VM_BUILD/durations), or for a guest it did not run, of a recent
# whole-suite run (durations.seed): the slots stay full until the end, instead of the
# longest guest starting last and running alone.
order_guests() {
	local g known=("$REPO/tests/vm/harness/durations.seed")
	[[ -f $durations ]] && known+=("$durations")
	for g in "${guests[@]}"; do
		printf '%s %s\n' "$(awk -v g="$g" '$1 == g {t = $2} END {print t + 0}' \
			"${known[@]}")" "$g"
	done | sort -k1,1nr -k2 | awk -v jobs="$VM_JOBS" -f "$REPO/tests/vm/harness/guest-order.awk"
}

# Only a run of the whole suite says how long a guest takes: a subset
# (VM_TESTS) or another suite (the live tests' guests) leaves the times be.
full_suite_run() {
	[[ -z $VM_TESTS && $SUITE_DIR == "$REPO/tests/vm" ]]
}

declare -A kernel_of=()
# prepare SERIES: fetch the kernel and run the .prep hooks into
# VM_BUILD/SERIES, once for all the guests of a series (they read it as
# VM_OUT). Returns 1 when its guests cannot boot.
prepare() {
	local series=$1 t0 t1
	SERIES=$series
	VM_OUT=$VM_BUILD/$series
	mkdir -p "$VM_OUT"
	t0=$(now)
	if ! vm_kernel "$series"; then
		echo "FAIL: $series/kernel-fetch (tests/vm/harness/kernel-fetch.sh $series; messages above)"
		return 1
	fi
	t1=$(now)
	echo "vm: $series: kernel $KVER ($PKGVER), fetch $(secs "$t0" "$t1") s" >&2
	kernel_of[$series]=$(declare -p KVER VMLINUZ MODDIR KDIR ABI PKGVER)
	VM_CPUS=$(cpus_for "$series")
	vm_preps || prep_rc=1
	echo "vm: $series: prep $(secs "$t1" "$(now)") s" >&2
}

# run_guest LABEL: boots one guest (in a subshell of its own); its
# results and console go to VM_BUILD/LABEL.
run_guest() {
	local label=$1 series=${1%+*} t2 t3 rc=0
	eval "${kernel_of[$series]}"
	SERIES=$label
	VM_OUT=$VM_BUILD/$series
	VM_GUEST_VARIANT=default
	[[ $label == *+full ]] && VM_GUEST_VARIANT=full
	# +icount: the guest clock counts instructions (1 ns each, no sleep):
	# timings repeat to 0.01 %, for the tests that compare times
	[[ $label == *+icount ]] && VM_GUEST_VARIANT=icount && VM_ICOUNT=${VM_ICOUNT:-0,sleep=off}
	# PREEMPT_RT and cloud kernels: only the tests that ask for them, as
	# +full
	[[ $series == *-rt ]] && VM_GUEST_VARIANT=rt
	[[ $label == *-cloud ]] && VM_GUEST_VARIANT=cloud
	GUEST_APPEND=
	[[ $VM_GUEST_VARIANT == full ]] && GUEST_APPEND=preempt=full
	RUN_OUT=$VM_BUILD/$label
	mkdir -p "$RUN_OUT"
	VM_CPUS=$(cpus_for "$series")
	# one vCPU: 6.1 with two does not boot under -icount (nothing on
	# the console in 10 minutes), and a lone CPU has no lock holder
	# beside the workload to wait for
	[[ $VM_GUEST_VARIANT == icount ]] && VM_CPUS=1
	vm_initramfs "$RUN_OUT"
	t2=$(now)
	echo "vm: $label: booting $KVER with $VM_CPUS CPUs, $VM_MEM${GUEST_APPEND:+, $GUEST_APPEND}" >&2
	boot_guest "$VM_CPUS" || rc=1
	t3=$(now)
	echo "vm: $label: guest wall $(secs "$t2" "$t3") s" >&2
	echo "$label $(secs "$t2" "$t3")" >>"$RUN_OUT/wall"
	return $rc
}

rc=0 prep_rc=0
lint || rc=1
t_all=$(now)
rm -f "$VM_BUILD/times" "$VM_BUILD/slot-free"
# An interrupted run leaves no guest behind.
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
# A series is prepared when its first guest is next to start, so the
# later ones' kernel fetches and builds run beside the first guests
# instead of before them all.
declare -A bootable=()
mapfile -t queue < <(order_guests)
running_jobs=0
for g in "${queue[@]}"; do
	s=${g%+*}
	if [[ -z ${bootable[$s]:-} ]]; then
		if prepare "$s"; then bootable[$s]=1; else bootable[$s]=0; rc=1; fi
	fi
	[[ ${bootable[$s]} == 1 ]] || continue
	while ((running_jobs >= VM_JOBS)); do
		wait -n || rc=1
		running_jobs=$((running_jobs - 1))
	done
	rm -f "$VM_BUILD/$g/wall"
	run_guest "$g" &
	running_jobs=$((running_jobs + 1))
done
# No guest left to start: make check starts its live tests that boot a
# guest now, beside the last guests, instead of when a slot frees up
# (then they ran alone at the end, one core idle, for 2 to 3 minutes).
touch "$VM_BUILD/slot-free"
while ((running_jobs > 0)); do
	wait -n || rc=1
	running_jobs=$((running_jobs - 1))
done
((prep_rc)) && rc=1

# Each guest's wall time, for this run's summary and the next run's order
# (merged into what the last full runs measured of the other guests).
: >"$durations.now"
for g in "${guests[@]}"; do
	[[ -f $VM_BUILD/$g/wall ]] && cat "$VM_BUILD/$g/wall" >>"$durations.now"
done
if full_suite_run; then
	touch "$durations"
	awk 'NR == FNR {now[$1] = $0; next} !($1 in now) {print} END {for (g in now) print now[g]}' \
		"$durations.now" "$durations" >"$durations.tmp"
	mv "$durations.tmp" "$durations"
fi
echo "vm: all guests: $(secs "$t_all" "$(now)") s wall, $VM_JOBS at a time" >&2
sed 's/^/vm:   guest /; s/$/ s/' "$durations.now" >&2
exit $rc
