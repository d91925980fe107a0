#!/usr/bin/env bash
# The Debian packages, as an operator meets them: `make deb` builds bhscope
# and bhtune-dkms with dpkg-buildpackage; lintian finds nothing; bhscope
# installs with dpkg -i and then has its command, man pages, completion and
# a unit that systemd-analyze verifies, installed disabled and not started
# (README.Debian says how to enable it); bhtune-dkms installs, says in one
# line that the running kernel lacks headers where it does, ships
# README.Debian (headers, Secure Boot, a modprobe.d example of real
# parameters), and DKMS builds
# bhtune against Debian's 6.1 and 6.12 headers (the VM bench's cache) with
# klp-fixup's livepatch relocations intact, and an existing bhtune guest
# test loads the DKMS-built modules. Everything installed is removed.
# DEB_VM_GUESTS (default 6.1): the guests of the last part; empty (or
# BHSCOPE_SKIP_VM=1) skips it.
# live-after-vm: its last part boots a guest through the VM bench with the
# DKMS-built modules in place of VM_BUILD/<series>/bhtune
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/common.sh
. tests/lib/completion.sh
require_root
for tool in dpkg-buildpackage lintian dkms scdoc; do
	command -v "$tool" > /dev/null || skip_all "$tool is not installed (make deps)"
done
installed() { [[ $(dpkg-query -W -f='${db:Status-Status}' "$1" 2> /dev/null) == installed ]]; }
for pkg in bhscope bhtune-dkms; do
	installed "$pkg" && skip_all "$pkg is installed on this machine: not replacing it"
done
version=$(dpkg-parsechangelog -l debian/changelog -SVersion)
# tracefs as found, put back whatever happens (registered first: last run)
tracefs_opts() { awk '$2 == "/sys/kernel/tracing" { print $4 }' /proc/mounts; }
tracefs_before=$(tracefs_opts)
on_exit "mount -o 'remount,$(grep -o 'gid=[0-9]*' <<< "$tracefs_before" || echo gid=0),$(grep -o 'mode=[0-7]*' <<< "$tracefs_before" || echo mode=700)' /sys/kernel/tracing; rm -f /run/bhscope-tracefs.orig"

# Build
start=$SECONDS
took() { echo "time: $1: $((SECONDS - start)) s"; start=$SECONDS; }
rc=0
make -s --no-print-directory deb > /dev/null || rc=$?
check make_deb_builds test "$rc" -eq 0
deb_bhscope=build/deb/bhscope_${version}_amd64.deb
deb_dkms=build/deb/bhtune-dkms_${version}_all.deb
check bhscope_package_built test -f "$deb_bhscope"
check bhtune_dkms_package_built test -f "$deb_dkms"
[[ -f $deb_bhscope && -f $deb_dkms ]] || { finish; exit 1; }

# has PACKAGE PATH...: the package holds each path.
has() {
	local deb=$1 p
	shift
	for p in "$@"; do
		dpkg -c "$deb" | awk '{ print $NF }' | grep -qx "\.$p" || {
			echo "$deb lacks $p"
			return 1
		}
	done
}
check bhscope_package_contents has "$deb_bhscope" /usr/sbin/bhscope /usr/bin/bhbench \
	/usr/share/man/man8/bhscope.8.gz /usr/share/man/man8/bhscope-lru.8.gz \
	/usr/share/man/man1/bhbench.1.gz /usr/share/bash-completion/completions/bhscope \
	/lib/systemd/system/bhscope.service /etc/default/bhscope \
	/usr/libexec/bhscope/bhscope-tracefs \
	/usr/lib/sysusers.d/bhscope.conf /usr/share/bhscope/grafana/bhscope.json \
	/usr/share/bhscope/prometheus/bhscope.rules.yml
check bhtune_dkms_package_contents has "$deb_dkms" "/usr/src/bhtune-$version/dkms.conf" \
	"/usr/src/bhtune-$version/Makefile" "/usr/src/bhtune-$version/Kbuild" \
	"/usr/src/bhtune-$version/klp-fixup.c" /usr/share/man/man4/bhtune.4.gz
check every_man_page_packaged test "$({ dpkg -c "$deb_bhscope"; dpkg -c "$deb_dkms"; } |
	grep -c '/man/man./.*\.gz$')" \
	-eq "$(find man -name '*.scd' | wc -l)"
took "make deb"
check depends_computed_by_shlibdeps bash -c "dpkg-deb -f '$deb_bhscope' Depends | grep -q 'libbpf1 (>='"

lintian_out=$(lintian --fail-on error,warning build/deb/*.changes 2>&1 |
	grep -v '^running with root privileges' || true)
echo "lintian: ${lintian_out:-(nothing to report)}"
check lintian_no_errors_nor_warnings bash -c "! grep -Eq '^[EW]: ' <<< '$lintian_out'"
took lintian

# bhscope installed
group=bhscope-tracefs
getent group "$group" > /dev/null && had_group=1 || had_group=0
on_exit "dpkg --purge bhscope > /dev/null 2>&1"
((had_group)) || on_exit "groupdel '$group' 2> /dev/null"
rc=0
dpkg -i "$deb_bhscope" > /dev/null || rc=$?
check dpkg_installs_bhscope test "$rc" -eq 0
check installed_version test "$(/usr/sbin/bhscope --version | head -n 1)" = "bhscope $version"
check man_finds_bhscope_lru test "$(man -w bhscope-lru)" = /usr/share/man/man8/bhscope-lru.8.gz
check man_finds_bhtune_only_with_dkms bash -c '! man -w 4 bhtune 2> /dev/null'
check installed_unit_verifies systemd-analyze verify /lib/systemd/system/bhscope.service
# Installing starts no kernel tracer: the unit is neither enabled nor
# started (no start in the maintainer scripts, no bhscope running), and
# README.Debian says what it attaches and how to enable it.
check unit_not_enabled_after_install test "$(systemctl is-enabled bhscope 2>&1)" = disabled
ctrl=$(mktemp -d /tmp/bhscope-deb-ctrl.XXXXXX)
on_exit "rm -rf '$ctrl'"
dpkg-deb -e "$deb_bhscope" "$ctrl"
check postinst_starts_nothing bash -c "! grep -Eq 'deb-systemd-invoke (start|\\\$_dh_action)|systemctl (start|enable)' '$ctrl/postinst'"
check prerm_stops_the_service_on_removal grep -q 'deb-systemd-invoke stop bhscope.service' "$ctrl/prerm"
check no_bhscope_running_after_install bash -c '! pgrep -f "^/usr/sbin/bhscope" > /dev/null'
readme=/usr/share/doc/bhscope/README.Debian
[[ -e $readme ]] || readme=$readme.gz
check readme_debian_says_how_to_enable bash -c "zcat -f '$readme' | grep -q 'systemctl enable --now bhscope'"
check readme_debian_says_what_it_costs bash -c "zcat -f '$readme' | grep -q 'What it costs'"
# shellcheck disable=SC2016 # the unit's own text
check unit_runs_the_installed_binary grep -qx 'ExecStart=/usr/sbin/bhscope serve $BHSCOPE_SERVE_ARGS' \
	/lib/systemd/system/bhscope.service
check service_group_created bash -c "getent group '$group' > /dev/null"
check installed_unit_remounts_nothing_itself \
	bash -c "! grep -E '^Exec' /lib/systemd/system/bhscope.service | grep -q mount"
# The installed tracefs step asks the installed bhscope, and changes
# nothing on this kernel (BTF tracepoints: no probe needs tracefs).
check installed_tracefs_step_leaves_tracefs bash -c \
	"/usr/libexec/bhscope/bhscope-tracefs grant | grep -q 'no probe needs it' &&
	 [[ \$(awk '\$2 == \"/sys/kernel/tracing\" { print \$4 }' /proc/mounts) == '$tracefs_before' ]]"
compl=/usr/share/bash-completion/completions/bhscope
check installed_completion_parses bash -n "$compl"
check installed_completion_l_is_lru test "$(complete_words "$compl" /usr/sbin "bhscope l")" = lru

took "bhscope installed"

# bhtune-dkms installed; DKMS builds against the cached Debian headers.
on_exit "dkms remove bhtune/$version --all > /dev/null 2>&1; dpkg --purge bhtune-dkms > /dev/null 2>&1"
ko_dir=$(mktemp -d /tmp/bhscope-dkms-ko.XXXXXX)
on_exit "rm -rf '$ko_dir'"
rc=0
dpkg -i "$deb_dkms" > "$ko_dir/dpkg-i.log" 2>&1 || rc=$?
check dpkg_installs_bhtune_dkms test "$rc" -eq 0
check dkms_knows_bhtune bash -c "dkms status bhtune | grep -q 'bhtune/$version'"
# Without headers for the running kernel (this host has none), one line
# says so and names the package; README.Debian tells the rest.
kver=$(uname -r)
if [[ -d /lib/modules/$kver/build/include ]]; then
	check no_headers_line_where_headers_are bash -c "! grep -q '^bhtune-dkms: .*headers' '$ko_dir/dpkg-i.log'"
else
	sed -n 's/^/  dpkg -i: /p' "$ko_dir/dpkg-i.log"
	check no_headers_said_in_one_line test "$(grep -c "^bhtune-dkms: .*not installed: apt install linux-headers-$kver," "$ko_dir/dpkg-i.log")" -eq 1
fi
dkms_readme=/usr/share/doc/bhtune-dkms/README.Debian
[[ -e $dkms_readme ]] || dkms_readme=$dkms_readme.gz
# shellcheck disable=SC2016 # the README's own words
for topic in 'linux-headers-$(uname -r)' 'mokutil --import /var/lib/dkms/mok.pub' \
	'/etc/modprobe.d/bhtune.conf' 'options bhtune '; do
	check "dkms_readme_has_${topic//[^a-z]/_}" bash -c "zcat -f '$dkms_readme' | grep -qF -- '$topic'"
done
# the parameters its modprobe.d example sets: bhtune.ko's own, checked below
example_params=$(zcat -f "$dkms_readme" | sed -n 's/^ *options bhtune //p' | tr ' ' '\n' | cut -d= -f1 || true)
for series in 6.1 6.12; do
	if ! env=$(tests/vm/harness/kernel-fetch.sh "$series" 2> /dev/null); then
		echo "SKIP: $TEST_NAME/dkms_builds_for_$series: no Debian $series kernel in the cache or the archive"
		continue
	fi
	kver=$(sed -n 's/^KVER=//p' <<< "$env")
	kdir=$(sed -n 's/^KDIR=//p' <<< "$env")
	rc=0
	dkms build -m bhtune -v "$version" -k "$kver" --kernelsourcedir "$kdir" \
		> "$ko_dir/dkms-$series.log" 2>&1 || rc=$?
	((rc == 0)) || tail -n 30 "$ko_dir/dkms-$series.log"
	check "dkms_builds_for_$series" test "$rc" -eq 0
	built=/var/lib/dkms/bhtune/$version/$kver/x86_64/module
	check "dkms_built_both_modules_for_$series" test -f "$built/bhtune.ko" -a -f "$built/bhtune_events.ko"
	check "modules_are_for_$kver" test "$(modinfo -F vermagic "$built/bhtune.ko" | cut -d' ' -f1)" = "$kver"
	# klp-fixup ran, and nothing (dkms's strip) undid it.
	check "livepatch_relocations_kept_for_$series" \
		bash -c "readelf -SW '$built/bhtune.ko' | grep -q '\.klp\.rela\.vmlinux\.'"
	echo "dkms signed bhtune.ko for $series: $(modinfo -F signer "$built/bhtune.ko" || true)"
	check "readme_modprobe_example_names_real_parameters_for_$series" bash -c \
		"parms=\$(modinfo -F parm '$built/bhtune.ko' | cut -d: -f1)
		 for p in $(echo "$example_params" | tr '\n' ' '); do grep -qx \"\$p\" <<< \"\$parms\" || exit 1; done
		 [[ -n '$example_params' ]]"
	mkdir -p "$ko_dir/$kver"
	cp "$built"/*.ko "$ko_dir/$kver/" 2> /dev/null || true
done

took "dkms builds"

# An existing bhtune guest test loads what DKMS built.
vm_kernels=${DEB_VM_GUESTS-6.1}
if [[ -z $vm_kernels ]]; then
	echo "SKIP: $TEST_NAME/guest_loads_the_dkms_modules: DEB_VM_GUESTS is empty"
elif [[ ${BHSCOPE_SKIP_VM:-0} == 1 ]]; then
	echo "SKIP: $TEST_NAME/guest_loads_the_dkms_modules: BHSCOPE_SKIP_VM=1"
elif ! command -v qemu-system-x86_64 > /dev/null; then
	echo "SKIP: $TEST_NAME/guest_loads_the_dkms_modules: qemu-system-x86_64 is not installed"
else
	rc=0
	make -s --no-print-directory vmcheck VM_GUESTS="$vm_kernels" \
		VM_TESTS=60-bhtune-params-refused BHTUNE_KO_DIR="$ko_dir" \
		> "$ko_dir/vm.log" 2>&1 || rc=$?
	sed 's/^/  vm: /' "$ko_dir/vm.log" | grep -E 'PASS|FAIL|SKIP' || true
	for series in $vm_kernels; do
		kver=$(sed -n 's/^KVER=//p' <<< "$(tests/vm/harness/kernel-fetch.sh "$series" 2> /dev/null)")
		check "guest_${series}_ran_the_dkms_modules" \
			cmp -s "${VM_BUILD:-build/vm}/$series/bhtune/bhtune.ko" "$ko_dir/$kver/bhtune.ko"
		check "guest_${series}_loads_the_dkms_modules" \
			grep -qx "PASS: $series/60-bhtune-params-refused" "$ko_dir/vm.log"
	done
	((rc == 0)) || tail -n 40 "$ko_dir/vm.log"
fi

took "guest"

# A service that never stopped left tracefs readable by its group (as
# bhscope-tracefs grant does where a classic tracepoint needs it): the
# package's removal puts tracefs's gid and mode back.
fake=$(mktemp /tmp/bhscope-fake.XXXXXX)
on_exit "rm -f '$fake'"
printf '%s\n' '#!/bin/sh' 'echo "tracefs: needed by jbd2 tracepoint/jbd2/jbd2_run_stats"' > "$fake"
chmod 755 "$fake"
BHSCOPE=$fake /usr/libexec/bhscope/bhscope-tracefs grant > /dev/null
check tracefs_granted_before_removal grep -q "gid=$(getent group "$group" | cut -d: -f3)" <<< "$(tracefs_opts)"

# Removal leaves nothing.
run_cleanups
# shellcheck disable=SC2016 # expanded by that bash
check bhscope_purged bash -c '! dpkg-query -W bhscope > /dev/null 2>&1 || \
	[[ $(dpkg-query -W -f="\${db:Status-Status}" bhscope) == not-installed ]]'
check binary_removed test ! -e /usr/sbin/bhscope
check unit_removed test ! -e /lib/systemd/system/bhscope.service
check removal_put_tracefs_back test "$(tracefs_opts)" = "$tracefs_before"
check removal_dropped_the_tracefs_record test ! -e /run/bhscope-tracefs.orig
check dkms_tree_removed test ! -e "/var/lib/dkms/bhtune/$version"
check module_sources_removed test ! -e "/usr/src/bhtune-$version"
finish
