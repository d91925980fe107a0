#!/usr/bin/env bash
# make static gives one bhscope with every library linked in: ldd says it
# is not a dynamic executable, it has no program interpreter and needs no
# shared object; in a chroot holding nothing but itself (no /lib, no
# loader; /proc and /sys bound read-only for BPF) it attaches its jbd2
# tracepoints and serves /metrics; and the static binary passes the
# jbd2 agreement test with the kernel's /proc figures.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/common.sh
require_root

rc=0
make -s --no-print-directory static > /dev/null || rc=$?
check make_static_builds test "$rc" -eq 0
static=$PWD/build/static/bhscope
[[ -x $static ]] || { finish; exit 1; }
echo "size: $(stat -c %s "$static") bytes"
echo "ldd: $(ldd "$static" 2>&1 | tr -d '\t')"
check ldd_says_not_dynamic bash -c "ldd '$static' 2>&1 | grep -q 'not a dynamic executable'"
check no_program_interpreter bash -c "! readelf -lW '$static' | grep -q 'Requesting program interpreter'"
check no_shared_object_needed bash -c "! readelf -dW '$static' | grep -q NEEDED"

root=$(mktemp -d /tmp/bhscope-static-root.XXXXXX)
# --one-file-system: never into /proc or /sys should an unmount have failed.
on_exit "rm -rf --one-file-system '$root'"
mkdir -p "$root"/{proc,sys,tmp}
cp "$static" "$root/bhscope"
for d in proc sys; do
	mount --rbind -o ro "/$d" "$root/$d"
	mount --make-rslave "$root/$d"
	on_exit "! mountpoint -q '$root/$d' || umount -R '$root/$d'"
done
check chroot_has_no_libraries test -z "$(find "$root" -xdev -name '*.so*' -print -quit)"
# the same version, the libraries linked in: its features say static
check runs_with_no_library test "$(chroot "$root" /bhscope --version | head -n 1)" = \
	"$(build/bhscope --version | head -n 1)"
check version_says_static bash -c "chroot '$root' /bhscope --version | grep -q '^features: .*, static'"

log=$root/tmp/serve.log
chroot "$root" /bhscope serve --listen 127.0.0.1:0 --jbd2 2> "$log" &
pid=$!
on_exit "kill $pid 2>/dev/null; wait $pid 2>/dev/null"
url=
for ((i = 0; i < 100; i++)); do
	url=$(grep -o 'http://[0-9.:]*' "$log" | head -n 1 || true)
	[[ -n $url ]] && break
	kill -0 "$pid" 2> /dev/null || break
	sleep 0.1
done
check serves_in_the_empty_chroot test -n "$url"
curl -sf --max-time 5 "$url/metrics" > "$root/tmp/m" || true
check jbd2_tracepoints_attached_there \
	grep -qx 'bhscope_probe_up{source="jbd2",probe="tp_btf/jbd2_run_stats"} 1' "$root/tmp/m"
kill "$pid"
wait "$pid" 2> /dev/null || true
for d in proc sys; do umount -R "$root/$d"; done

# The static binary against the kernel's own figures (its lines indented:
# they count here as one check).
rc=0
BHSCOPE=$static tests/live/jbd2_proc_agreement.sh > "$root/tmp/agreement.log" 2>&1 || rc=$?
sed 's/^/  /' "$root/tmp/agreement.log"
check static_binary_agrees_with_proc test "$rc" -eq 0
finish
