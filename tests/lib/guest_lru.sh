# shellcheck shell=bash
# Helpers for the buffer-head LRU tests (tests/vm/3*-lru-*.sh). Source after
# guest.sh. The workload whose answer is known in advance:
#
#   A directory of exactly K 4 KiB blocks, emptied, on ext4 without
#   dir_index, mounted noatime. Listing it (a bash glob: opendir, getdents)
#   makes ext4_readdir read its K blocks in order, one sb_getblk() each, and
#   nothing else touches the filesystem. Repeated on one CPU, that is a
#   cyclic reference string over K keys: every lookup has LRU stack distance
#   K-1. So with BH_LRU_SIZE >= K every lookup hits in slot K-1, and with
#   BH_LRU_SIZE < K every lookup misses and evicts (the LRU's worst case);
#   the what-if curve is 0 below size K and 1 from size K on.

LRU_BHSCOPE=$REPO/build/bhscope
LRU_CPU=1	# the workload's CPU (the guests have 2 or 4)
LRU_DEV=ram0

lru_need_tools() {
	[[ -x $LRU_BHSCOPE ]] || skip "$LRU_BHSCOPE is not built on the host (make)"
	command -v jq >/dev/null || skip "jq is not installed on the host"
	command -v taskset >/dev/null || skip "taskset is not installed on the host"
	command -v chrt >/dev/null || skip "chrt is not installed on the host"
	(($(nproc) > LRU_CPU)) || skip "needs CPU $LRU_CPU; the guest has $(nproc)"
}

# lru_ext4 MNT [MKFS-OPTION...]: ext4 on a brd ramdisk of LRU_RAM_MB MiB
# (default 64), mounted noatime, inode tables zeroed now (no ext4lazyinit
# later); by default without dir_index (linear directories). Unmounted and
# brd removed when the test exits, and any bhscope started here killed.
lru_ext4() {
	local mnt=$1
	shift
	(($#)) || set -- -O ^dir_index
	if grep -q '^brd ' /proc/modules; then
		rmmod brd || fail "brd is loaded and busy (a previous test leaked it)"
	fi
	modprobe brd rd_nr=1 rd_size=$((${LRU_RAM_MB:-64} * 1024)) max_part=0 ||
		fail "modprobe brd"
	LRU_MNT=$mnt
	trap lru_cleanup EXIT
	# The runner's timeout sends SIGTERM, which runs no EXIT trap by itself.
	trap 'exit 143' TERM INT
	mkfs.ext4 -q -F -b 4096 -E lazy_itable_init=0,lazy_journal_init=0 "$@" \
		/dev/$LRU_DEV || fail "mkfs.ext4 /dev/$LRU_DEV"
	mkdir -p "$mnt"
	mount -t ext4 -o noatime /dev/$LRU_DEV "$mnt" || fail "mount /dev/$LRU_DEV"
}

# Runs under set -e as the EXIT trap: nothing in it may fail.
lru_cleanup() {
	local pid
	map_readers_stop
	for pid in ${LRU_PIDS:-}; do
		kill "$pid" 2>/dev/null || true
	done
	wait 2>/dev/null || true
	umount "$LRU_MNT" 2>/dev/null || true
	rmmod brd 2>/dev/null || true
}

# lru_dir DIR K: a directory of exactly K blocks and no entries. Long
# names (19 entries a block) keep the number of creates small; the size is
# checked every 8 creates, less than a block's worth, so it cannot jump
# past K blocks unseen.
lru_dir() {
	local dir=$1 want=$(($2 * 4096)) n=0 size pad
	printf -v pad '%*s' 200 ''
	pad=${pad// /x}
	mkdir "$dir"
	while :; do
		for ((j = 0; j < 8; j++, n++)); do
			: >"$dir/$pad$n"
		done
		size=$(stat -c %s "$dir")
		((size < want)) || break
	done
	((size == want)) || fail "$dir grew to $size bytes, wanted $want"
	find "$dir" -mindepth 1 -delete
	sync
	[[ $(stat -c %s "$dir") == "$want" ]] || fail "$dir shrank"
}

# lru_list DIR PASSES: lists DIR PASSES times on LRU_CPU, in one process,
# under SCHED_FIFO with RT throttling off meanwhile: no other task is
# switched in inside one of its lookups (6.12's find_get_block_common calls
# might_sleep(), a reschedule point under voluntary preemption), which
# would leave that lookup unsynced and the test's known answer unmet.
# lru_list_cfs runs it as an ordinary task instead.
lru_list() {
	local rt=/proc/sys/kernel/sched_rt_runtime_us old rc=0
	old=$(cat $rt)
	echo -1 >$rt
	(chrt -f -p 1 $BASHPID >/dev/null && lru_list_cfs "$1" "$2") || rc=$?
	echo "$old" >$rt
	return $rc
}

lru_list_cfs() {
	taskset -c "$LRU_CPU" bash -c \
		'for ((i = 0; i < $2; i++)); do : "$1"/*; done' _ "$1" "$2"
}

# lru_known_dirs; lru_known_passes N: the known answer of 31, 48 and 49 on
# LRU_MNT: directories a (8 blocks) and b (12); a pass lists a twice and b
# once on LRU_CPU, under SCHED_FIFO as lru_list does: per pass 8 hits in
# slot 7 (a's second listing) and 20 installed misses.
lru_known_dirs() {
	lru_dir "$LRU_MNT/a" 8
	lru_dir "$LRU_MNT/b" 12
}

# One pass, for bash -c with a in $1 and b in $2.
# shellcheck disable=SC2016 # the inner shell expands them
LRU_KNOWN_PASS=': "$1"/*; : "$1"/*; : "$2"/*'

lru_known_passes() {
	local rt=/proc/sys/kernel/sched_rt_runtime_us old rc=0
	old=$(cat $rt)
	echo -1 >$rt
	# shellcheck disable=SC2016 # the inner shell expands them
	(chrt -f -p 1 $BASHPID >/dev/null &&
		taskset -c "$LRU_CPU" bash -c 'for ((i = 0; i < $3; i++)); do '"$LRU_KNOWN_PASS"'; done' \
			_ "$LRU_MNT/a" "$LRU_MNT/b" "$1") ||
		rc=$?
	echo "$old" >$rt
	return $rc
}

# lru_known_load DONE END: passes in the background until killed, the
# count so far in DONE and "stopped, exit N" in END when it ends, RT
# throttling off meanwhile. One FIFO shell throughout, its PID in
# LRU_PIDS: one started for each batch left gaps of a second or more
# between batches under TCG, a window's length (52 on a busy host). 5
# passes, then a 100 ms pause: about half the CPU under TCG, so that what
# else runs there gets its share (the deferred hook's settle thread pinned
# to each CPU before a read: with 20 passes to a 50 ms pause, 52's windows
# under it came 69 s apart on 6.12).
lru_known_load() {
	local rt=/proc/sys/kernel/sched_rt_runtime_us
	# shellcheck disable=SC2016 # the inner shell expands them
	chrt -f 1 taskset -c "$LRU_CPU" bash -c '
		trap "echo \"stopped, exit \$?\" >\"\$4\"; echo $(cat $5) >$5" EXIT
		echo -1 >"$5"
		n=0
		while :; do
			for ((i = 0; i < 5; i++)); do '"$LRU_KNOWN_PASS"'; done
			echo $((n += 5)) >"$3"
			sleep 0.1
		done' _ "$LRU_MNT/a" "$LRU_MNT/b" "$1" "$2" "$rt" &
	LRU_PIDS="${LRU_PIDS:-} $!"
}

# lru_start OUT ARGS...: bhscope lru ARGS in the background, JSON lines to
# OUT, stderr to OUT.err; returns once its probes are attached.
lru_start() {
	local out=$1
	shift
	"$LRU_BHSCOPE" lru -j "$@" >"$out" 2>"$out.err" &
	LRU_PID=$!
	LRU_PIDS="${LRU_PIDS:-} $LRU_PID"
	wait_until 60 "$LRU_PID" grep -q '^Tracing' "$out.err" && return 0
	cat "$out.err" >&2
	fail "bhscope lru $* did not start"
}

# lru_stop: SIGINT (the final report covers the whole run), then wait.
lru_stop() {
	kill -INT "$LRU_PID"
	wait "$LRU_PID" || fail "bhscope lru exited with $? ($(cat "$1.err"))"
}

# lru_cpu OUT: the final report's figures for LRU_CPU (needs -C).
lru_cpu() {
	tail -n 1 "$1" | jq -c ".cpus[] | select(.cpu == $LRU_CPU)"
}

# lru_check NAME CONDITION-AS-JQ JSON: PASS/FAIL line; failing exits 1.
# JSON numbers carry 9 significant digits: bounds on ratios need a 1e-6
# margin.
lru_check() {
	local name=$1 cond=$2 json=$3
	if [[ $(jq -r "$cond" <<<"$json") == true ]]; then
		echo "PASS: $name"
	else
		echo "FAIL: $name: $cond is not true of:"
		jq -c . <<<"$json" | cut -c 1-2000
		exit 1
	fi
}

# lru_timing_check OUT [ORACLE_OUT]: a run with --timing 1 timed each
# lookup its entry probe saw once at most, in the class of its outcome:
# its timed and dropped lookups make those seen, but for a timing still
# open on a CPU at the end (the guests trace no other buffer-head
# filesystem); no class has more timed than the run counted; and, given
# the oracle's output, no timed hit is one the kernel did not make (its
# touches, counted from before the workload to after it). The deferred
# hook times nothing, and must say so.
lru_timing_check() {
	local t o=null
	# the deferred hook and its fallback are fentry programs (kprobes time)
	if [[ ${BHSCOPE_LRU_DEFERRED:-} == 1 &&
		$(tail -n 1 "$1" | jq -r .mode) == fentry ]]; then
		lru_check "deferred hook: no lookup times, and the report says why" \
			'.lookup_time == null and (.unavailable.lookup_time | test("deferred"))' \
			"$(tail -n 1 "$1")"
		return 0
	fi
	[[ -z ${2:-} ]] || o=$(cat "$2")
	t=$(tail -n 1 "$1" | jq -c --argjson n "$(nproc)" --argjson o "$o" '
		.lookup_time.costs as $c |
		{every: $c.sample_every, seen: $c.seen, timed: $c.timed,
		 dropped: $c.dropped, ncpu: $n,
		 hits: [([$c.hit_slots[] | .timed] | add), .total.hits],
		 installed: [$c.installed.timed, .total.installed],
		 not_installed: [$c.not_installed.timed, .total.not_installed],
		 absent: [$c.absent.timed, .total.absent],
		 touches: (if $o then $o.touches | add else null end)}')
	echo "lookup times: $t"
	lru_check "timed: every lookup seen, timed or dropped (one a CPU may be open)" \
		'.every == 1 and .timed > 0 and .timed + .dropped <= .seen and
		 .seen - .timed - .dropped <= .ncpu' "$t"
	lru_check "timed: no class holds more timed lookups than it counted" \
		'[.hits, .installed, .not_installed, .absent] | all(.[0] <= .[1])' "$t"
	[[ ${2:-} ]] || return 0
	lru_check "timed: no more hits than the kernel made" \
		'.hits[0] <= .touches' "$t"
}

# lru_replay_check SIM.JSON LIVE_CPU_JSON [LEARNED]: the independent replay
# (bhscope simulate -C -j, in SIM.JSON) of the trace a live run wrote,
# against that run's figures for $LRU_CPU (LIVE_CPU_JSON): nothing lost,
# no lookup the two classify differently, the same lookups classified (but
# at most LEARNED the replay could not, learning an LRU no snapshot gave
# it), and the same what-if curve: at every size the same number of hits.
# The replay shares no code with the probe: it predicts each lookup from
# its key and the kernel's raw bits.
lru_replay_check() {
	local file=$1 live=$2 learned=${3:-0} sim both
	sim=$(jq -c ".cpus[] | select(.cpu == $LRU_CPU)" "$file")
	lru_check "the trace lost nothing; live and the replay disagree on no lookup" \
		'.lost == 0 and .disagreements == 0' "$(cat "$file")"
	lru_check "the replay classified the same lookups, with the same hits" \
		".lookups == $(jq .lookups <<<"$live") and .hits == $(jq .hits <<<"$live") and
		 .compare.live_unsynced_model_classified == 0 and
		 .compare.model_unsynced_live_classified <= $learned" "$sim"
	both=$(jq -c -n --argjson a "$live" --argjson b "$sim" '
		def classified: .hits + .installed + .not_installed + .absent;
		($a | classified) as $la | ($b | classified) as $lb |
		{live: [$a.whatif.hit_ratio[] * $la | round],
		 sim: [$b.whatif.hit_ratio[0:($a.whatif.hit_ratio | length)][] * $lb | round]}')
	lru_check "live and replay: the same hits at every what-if size" \
		'.live == .sim' "$both"
}

# The LRU tests' oracle (tests/vm/bpf-count/oracle.*), which shares no
# code with the tracer: lru_need_oracle checks it was built (and the map
# reader with it); lru_oracle_start OUT KDEV counts the lookups of KDEV
# from fentry, fexit and the BTF tracepoint on touch_buffer until
# lru_oracle_stop, which leaves its JSON line in OUT.
LRU_ORACLE=${VM_OUT:-}/bpf-count
lru_need_oracle() {
	[[ -x $LRU_ORACLE/bhvm-oracle && -x $LRU_ORACLE/bhvm-mapread ]] ||
		fail "$LRU_ORACLE/bhvm-oracle or bhvm-mapread missing: bpf-count.prep did not run"
}

lru_oracle_start() {
	: >"$1.err"
	"$LRU_ORACLE/bhvm-oracle" "$LRU_ORACLE/oracle.bpf.o" fentry "$2" \
		"$(bh_lookup_func)" >"$1" 2>"$1.err" &
	LRU_ORACLE_PID=$!
	LRU_PIDS="${LRU_PIDS:-} $LRU_ORACLE_PID"
	wait_until 60 $LRU_ORACLE_PID grep -q ready "$1.err" || fail "oracle: $(cat "$1.err")"
}

lru_oracle_stop() {
	kill -INT $LRU_ORACLE_PID
	wait $LRU_ORACLE_PID || fail "oracle: $(cat "$1.err")"
}

# lru_kdev: LRU_DEV's dev_t as the kernel encodes it (major << 20 | minor).
lru_kdev() {
	echo $(((0x$(stat -c %t /dev/$LRU_DEV) << 20) | 0x$(stat -c %T /dev/$LRU_DEV)))
}

# lru_meta_worker N: bhbench meta in a loop in mnt/wN (under the test's
# directory), unpinned, until the file stop exists: one task of a busy
# host's metadata load.
lru_meta_worker() {
	mkdir -p "mnt/w$1"
	while [[ ! -e stop ]]; do
		"$REPO/build/bhbench" meta -D "mnt/w$1" -t 1 -n 150 -q || true
	done
}
