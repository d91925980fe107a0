# shellcheck shell=bash
# Shared by vmcheck.sh and vmshell.sh: fetch a kernel, build its initramfs,
# write the guest's environment, and build the QEMU command line.

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$VM_DIR/../../.." && pwd)

VM_CPUS=${VM_CPUS:-2}
# CPUs per kernel, "series:cpus ..."; others get VM_CPUS. Empty by
# default: under single-threaded TCG every vCPU more slows each text-patching
# IPI round (a 6.12 bhtune load/unload cycle took 40 s with 4 vCPUs, 26 s
# with 2).
VM_SMP_LIST=${VM_SMP_LIST-}
VM_MEM=${VM_MEM:-1G}
# The guest scripts to run: tests/vm (make vmcheck), or another directory of
# the same kind, e.g. bench/vm (make bench); relative to the repo.
VM_SUITE=${VM_SUITE:-tests/vm}
case $VM_SUITE in
/*) SUITE_DIR=$VM_SUITE ;;
*) SUITE_DIR=$REPO/$VM_SUITE ;;
esac
# Where a run keeps its files (build/vm/<series>/, build/vm/<guest>/, the
# guests' times) and its lock; relative to the repo. Another tree lets a
# run go beside one in build/vm (make check's live tests that boot a guest
# start beside the VM bench's last guest).
VM_BUILD=${VM_BUILD:-build/vm}
case $VM_BUILD in
/*) ;;
*) VM_BUILD=$REPO/$VM_BUILD ;;
esac
# Loaded by the initramfs /init, with their dependencies: the 9p root, the
# overlay over it, and ext4's stack (its crc32c comes through the crypto API,
# so no module dependency pulls crc32c_generic in). brd, loop and the rest
# come from /lib/modules through modprobe inside the guest.
VM_MODULES=${VM_MODULES:-virtio_pci 9pnet_virtio 9p overlay crc32c_generic libcrc32c crc16 mbcache jbd2 ext4}
VIRTIOFSD=${VIRTIOFSD:-/usr/lib/qemu/virtiofsd}

# vm_share: how the guest reaches the host's root, in VM_SHARE: 9p where the
# kernel has it, else virtiofs (Debian's cloud flavour has no 9p but
# CONFIG_VIRTIO_FS=m; QEMU then needs virtiofsd on the host and shared
# guest memory). Sets VM_MODULES_EFFECTIVE: VM_MODULES with the 9p modules
# swapped for virtiofs where needed (ext4 and jbd2 may be built in: the
# initramfs skips built-in modules).
vm_share() {
	local mroot=${MODDIR%/lib/modules/*} m
	VM_SHARE=9p
	VM_MODULES_EFFECTIVE=$VM_MODULES
	if modprobe -d "$mroot" -S "$KVER" --show-depends 9p >/dev/null 2>&1; then
		return 0
	fi
	modprobe -d "$mroot" -S "$KVER" --show-depends virtiofs >/dev/null 2>&1 ||
		vm_die "$KVER has neither 9p nor virtiofs: no way to share the host root"
	[[ -x $VIRTIOFSD ]] || vm_die "$KVER has no 9p and $VIRTIOFSD is missing (apt-get install qemu-system-common)"
	VM_SHARE=virtiofs
	VM_MODULES_EFFECTIVE=
	for m in $VM_MODULES; do
		case $m in
		9p | 9pnet_virtio) ;;
		*) VM_MODULES_EFFECTIVE+="$m " ;;
		esac
	done
	VM_MODULES_EFFECTIVE+=virtiofs
}

# vm_virtiofsd: with VM_SHARE=virtiofs, serves the host's / on
# RUN_OUT/virtiofs.sock (one per guest: two may run at once) for the next
# QEMU (it exits when QEMU disconnects);
# VIRTIOFSD_PID is its pid, killed by vm_virtiofsd_stop. The guest mounts
# it read-only and writes to a tmpfs overlay, as with 9p.
vm_virtiofsd() {
	local out=${RUN_OUT:-$VM_OUT} sock
	sock=$out/virtiofs.sock
	VIRTIOFSD_PID=
	[[ $VM_SHARE == virtiofs ]] || return 0
	rm -f "$sock"
	"$VIRTIOFSD" --socket-path="$sock" -o source=/ -o cache=always \
		-o sandbox=chroot >"$out/virtiofsd.log" 2>&1 &
	VIRTIOFSD_PID=$!
	for _ in $(seq 100); do
		[[ -S $sock ]] && return 0
		kill -0 "$VIRTIOFSD_PID" 2>/dev/null || break
		sleep 0.05
	done
	vm_die "virtiofsd did not start: $(head -c 300 "$out/virtiofsd.log")"
}

vm_virtiofsd_stop() {
	[[ -n ${VIRTIOFSD_PID:-} ]] || return 0
	kill "$VIRTIOFSD_PID" 2>/dev/null || true
	wait "$VIRTIOFSD_PID" 2>/dev/null || true
	VIRTIOFSD_PID=
}

cpus_for() { # SERIES
	local e
	for e in $VM_SMP_LIST; do
		[[ ${e%%:*} == "$1" ]] && { echo "${e#*:}"; return; }
	done
	echo "$VM_CPUS"
}

vm_die() {
	echo "vm: $*" >&2
	exit 2
}

vm_need_tools() {
	local t
	for t in qemu-system-x86_64 cpio xz dpkg-deb apt-get depmod modprobe flock; do
		command -v "$t" >/dev/null || vm_die "$t is missing: run 'make deps'"
	done
	# The initramfs needs a static busybox: it runs before any library exists.
	if [[ ! -x /bin/busybox ]] || ldd /bin/busybox >/dev/null 2>&1; then
		vm_die "/bin/busybox is not the static one: apt-get install busybox-static"
	fi
}

# vm_lock: one vmcheck/vmshell per VM_BUILD at a time; they share
# VM_BUILD/<series>/.
vm_lock() {
	mkdir -p "$VM_BUILD"
	exec 8>"$VM_BUILD/.lock"
	if ! flock -n 8; then
		echo "vm: waiting for another vmcheck/vmshell in $VM_BUILD" >&2
		flock 8
	fi
}

# vm_kernel SERIES: sets KVER, VMLINUZ, MODDIR, KDIR, ABI, PKGVER from
# kernel-fetch.sh (which downloads on a cold cache); 1 if that failed.
vm_kernel() {
	local out k v
	out=$("$VM_DIR/kernel-fetch.sh" "$1") || return 1
	while IFS='=' read -r k v; do
		case $k in
		KVER | VMLINUZ | MODDIR | KDIR | ABI | PKGVER) printf -v "$k" '%s' "$v" ;;
		esac
	done <<<"$out"
	if [[ -z ${KVER:-} || ! -f ${VMLINUZ:-} || ! -d ${MODDIR:-} ]]; then
		echo "vm: kernel-fetch.sh $1 gave no usable kernel" >&2
		return 1
	fi
}

# vm_preps: every executable SUITE_DIR/*.prep, on the host, before boot.
# A failing hook is a FAIL line of its own; the guest still boots.
vm_preps() {
	local p name log rc=0
	for p in "$SUITE_DIR"/*.prep; do
		[[ -x $p ]] || continue
		name=${p##*/}
		log=$VM_OUT/prep-${name%.prep}.log
		if ! (cd "$REPO" && SERIES=$SERIES KVER=$KVER KDIR=$KDIR MODDIR=$MODDIR \
			VM_OUT=$VM_OUT REPO=$REPO "$p") >"$log" 2>&1; then
			echo "FAIL: $SERIES/$name (host-side hook; log $log)"
			sed 's/^/    /' "$log"
			rc=1
		fi
	done
	return $rc
}

# vm_initramfs OUTDIR: OUTDIR/initramfs.cpio = a base archive (busybox,
# /init, the VM_MODULES chain decompressed, since busybox insmod cannot read
# .ko.xz) followed by a small one with /bhvm.env; the kernel unpacks
# concatenated archives in order. The base is rebuilt only when its inputs
# change. Uncompressed: a few MB, which the kernel unpacks fastest as is.
vm_initramfs() {
	local out=$1 key base
	vm_share
	key=$({ echo "$KVER $VM_MODULES_EFFECTIVE"; cat "$VM_DIR/init" /bin/busybox; } | sha256sum | cut -c1-16)
	base=$out/initramfs-base-$key.cpio
	if [[ ! -f $base ]]; then
		rm -f "$out"/initramfs-base-*.cpio
		vm_initramfs_base "$out/initramfs" "$base.tmp"
		mv "$base.tmp" "$base"
	fi
	rm -rf "$out/initramfs-env"
	mkdir -p "$out/initramfs-env"
	vm_env >"$out/initramfs-env/bhvm.env"
	{
		cat "$base"
		vm_cpio "$out/initramfs-env"
	} >"$out/initramfs.cpio"
}

vm_cpio() { # DIR: a newc archive of DIR with fixed owners, order and times
	find "$1" -exec touch -h -d @0 {} +
	(cd "$1" && find . -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc --reproducible -R 0:0 --quiet)
}

vm_initramfs_base() { # STAGE OUT
	local stage=$1 mroot line path rel m
	local -A seen=()
	mroot=${MODDIR%/lib/modules/*}
	rm -rf "$stage"
	mkdir -p "$stage/bin"
	cp /bin/busybox "$stage/bin/busybox"
	cp "$VM_DIR/init" "$stage/init"
	chmod 0755 "$stage/init"
	: >"$stage/modules.list"
	for m in $VM_MODULES_EFFECTIVE; do
		# One module at a time: a name missing from one series is a warning.
		if ! line=$(modprobe -d "$mroot" -S "$KVER" --show-depends "$m" 2>&1); then
			echo "vm: module $m not in $KVER, skipped" >&2
			continue
		fi
		while read -r _ path _; do
			[[ $path == /* ]] || continue # "builtin NAME"
			rel=${path#"$mroot"/}
			rel=${rel%.xz}
			[[ -n ${seen[$rel]:-} ]] && continue
			seen[$rel]=1
			mkdir -p "$stage/$(dirname "$rel")"
			case $path in
			*.xz) xz -dc "$path" >"$stage/$rel" ;;
			*) cp "$path" "$stage/$rel" ;;
			esac
			echo "$rel" >>"$stage/modules.list"
		done <<<"$line"
	done
	vm_cpio "$stage" >"$2"
}

# The guest's environment, sourced by /init and by guest-init.sh; tests see
# the exported part (see README.md).
vm_env() {
	local v
	for v in SERIES KVER KDIR MODDIR VM_OUT VM_CPUS VM_TESTS VM_TEST_TIMEOUT \
		VM_GUEST_VARIANT; do
		printf '%s=%q\n' "$v" "${!v:-}"
	done
	printf 'BHVM_REPO=%q\n' "$REPO"
	printf 'BHVM_SHARE=%q\n' "${VM_SHARE:-9p}"
	printf 'BHVM_SUITE=%q\n' "$SUITE_DIR"
	printf 'BHSCOPE_LRU_DEFERRED=%q\n' "${VM_LRU_DEFERRED:-}"
}

# vm_qemu_cmd CPUS APPEND SERIAL...: the QEMU command in the array QEMU.
# TCG only (no /dev/kvm here). VM_TCG_THREAD=single (the default) runs
# every vCPU on one host thread: QEMU 7.2's multi-threaded TCG can keep
# running a stale translation of kernel text another vCPU just patched
# (text_poke_bp: livepatch, ftrace, BPF trampolines, static calls), which
# showed as a CPU looping on a vanished int3 (soft lockup) on 6.1 and an
# Oops on 6.12, in the bhtune load/unload test. thread=multi is faster on
# a host with cores to spare, for tests that do not patch text.
# Measured boot savings: la57=off (4-level page walks are cheaper to
# emulate), qboot instead of SeaBIOS, no NIC (no iPXE option ROM).
# The 9p share is the host's / read-only; multidevs=remap keeps inode
# numbers unique across the host's mounts (virtiofs where 9p is missing:
# vm_share). no_timer_check: on a loaded
# host the boot-time IO-APIC timer check can see too few ticks and panic
# ("IO-APIC + timer doesn't work"); the emulated timer works, skip it.
# log_buf_len: the kernel log of a whole run must fit, for the
# kernel-log-clean check after the tests (bhtune's stress tests alone log
# thousands of lines; the default 128 KiB wraps).
# The stall detectors at their largest (RCU stall 300 s, soft lockup 120 s
# instead of 21 s and 20 s): TCG executes the guest 20-50 times slower than
# its clock runs, and a guest that the host leaves waiting (two guests and
# virtiofsd on 2 CPUs) sees its clock jump, so the defaults fired on work
# that takes well under a second on hardware (an RCU kthread "starved"
# with all quiescent states seen; fs_mark "stuck" 40 s during compaction).
# A real hang still shows: as these reports, as a hung task (120 s), or as a
# test outliving its timeout (guest-init.sh's stuck_watch).
# norandmaps: QEMU 7.2's TCG finds a translated block by its virtual address
# too, so with ASLR every new process translated all the code it ran again:
# 8-9 MB/s of generated code in test 38, the 1 GiB buffer flushed every two
# minutes; with one layout for every process, 0.3 MB/s, and 38 took 181 s
# instead of 245. Nothing under test depends on user-space addresses.
vm_qemu_cmd() {
	local cpus=$1 append=$2 s
	shift 2
	# shellcheck disable=SC2054 # the commas belong to QEMU's options
	QEMU=(qemu-system-x86_64 -accel "tcg,thread=${VM_TCG_THREAD:-single}" -cpu max,la57=off
		-smp "$cpus" -m "$VM_MEM" -nodefaults -display none -nic none
		-bios qboot.rom -no-reboot -kernel "$VMLINUZ" -initrd "${RUN_OUT:-$VM_OUT}/initramfs.cpio"
		-append "console=ttyS0 panic=-1 mitigations=off no_timer_check log_buf_len=4M rcupdate.rcu_cpu_stall_timeout=300 watchdog_thresh=60 norandmaps quiet $append ${GUEST_APPEND:-} ${VM_APPEND:-}")
	if [[ ${VM_SHARE:-9p} == virtiofs ]]; then
		# vhost-user needs the guest's memory shared with virtiofsd
		# shellcheck disable=SC2054 # the commas belong to QEMU's options
		QEMU+=(-chardev "socket,id=vfs,path=${RUN_OUT:-$VM_OUT}/virtiofs.sock"
			-device vhost-user-fs-pci,chardev=vfs,tag=hostroot
			-object "memory-backend-memfd,id=mem,size=$VM_MEM,share=on"
			-numa node,memdev=mem)
	else
		# shellcheck disable=SC2054
		QEMU+=(-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap)
	fi
	# VM_ICOUNT=N: the guest clock counts instructions, 2^N ns each
	# (make bench: timings without the host's noise); single-threaded TCG.
	[[ -n ${VM_ICOUNT:-} ]] && QEMU+=(-icount "shift=$VM_ICOUNT")
	for s in "$@"; do
		QEMU+=(-serial "$s")
	done
}
